"""Regression variants: an authored CLI case as it runs as a regression of a later checkpoint.

A later checkpoint's ``regression_args`` renames arguments of every earlier case and its
``regression_prepend`` writes text before inline text files of the names it gives; a case's own
``regression: {checkpoint_N: ...}`` replaces its args, stdin or expectation and adds input files.
Both hold from that checkpoint on and add up in checkpoint order.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import reduce

from pydantic import TypeAdapter

from scbench.problem.model import Case, CheckpointConfig, CliCase, RegressionVariant

CASE = TypeAdapter(Case)


def _replaced(data: dict, change: RegressionVariant | None) -> dict:
    """A case dumped as ``data`` with ``change``'s fields in place of its own (its files added)."""
    if change is None:
        return data
    files = {**data.get("files", {}), **change.model_dump(by_alias=True)["files"]}
    return {**data, **change.model_dump(by_alias=True, exclude_unset=True), "files": files}


def _renamed(data: dict, renames: dict[str, str]) -> dict:
    """``data`` with every argument (inline or of a step) renamed by ``renames``."""
    def rename(arguments: list[str] | None) -> list[str] | None:
        return None if arguments is None else [renames.get(argument, argument) for argument in arguments]
    steps = [{**step, "args": rename(step.get("args"))} for step in data.get("steps") or ()]
    return {**data, "args": rename(data.get("args")), **({"steps": steps} if steps else {})}


def _prepended(data: dict, prefixes: dict[str, str]) -> dict:
    """``data`` with ``prefixes[name]`` written before each inline text file ``name`` (a bare string or
    ``{text: ...}``); other files unchanged."""
    def prepend(name: str, spec):
        prefix = prefixes.get(name, "")
        if isinstance(spec, str):
            return prefix + spec
        return {"text": prefix + spec["text"]} if set(spec) == {"text"} else spec
    return {**data, "files": {name: prepend(name, spec) for name, spec in data["files"].items()}}


def _changed(data: dict, config: CheckpointConfig) -> dict:
    """``data`` as ``config``'s checkpoint changes every earlier case: renamed, then prepended."""
    return _prepended(_renamed(data, config.regression_args), config.regression_prepend)


def variants(case: CliCase, later: list[tuple[str, CheckpointConfig]]) -> Iterator[tuple[str, CliCase]]:
    """``(checkpoint name, authored case)`` for each of the checkpoints after the case's own (``later``, in
    order) that changes the case, by ``regression_args``, ``regression_prepend`` or by the case's own variant:
    the case's variants up to that checkpoint replace its fields, then the renames and prepended texts of each
    checkpoint up to it apply in order (so a variant may write arguments and files in the case's own words).
    Raises ``pydantic.ValidationError`` only if the models disagree with themselves (every part was validated
    already)."""
    data = case.model_dump(by_alias=True, exclude_unset=True, exclude={"regression"})
    data["files"] = case.model_dump(by_alias=True)["files"]
    changes: list[CheckpointConfig] = []
    for name, config in later:
        change = case.regression.get(name)
        data = _replaced(data, change)
        changes.append(config)
        if change is not None or config.regression_args or config.regression_prepend:
            yield name, CASE.validate_python(reduce(_changed, changes, data))
