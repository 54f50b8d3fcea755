"""Load a problem for running: a problem directory (compiled on the fly) or a compiled bundle."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from scbench.spec.bundle import Bundle
from scbench.spec.compiler import compile_problem
from scbench.spec.diagnostics import Diagnostic, SpecError

BUNDLE_SUFFIX = ".scb.json"


def load(path: Path) -> Bundle:
    """The bundle at ``path`` (a ``*.scb.json`` file) or compiled from a problem directory.
    Raises :class:`SpecError` when it does not compile or does not exist."""
    if path.name.endswith(BUNDLE_SUFFIX) and path.is_file():
        try:
            return Bundle.model_validate_json(path.read_bytes())
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(map(str, first["loc"]))
            raise SpecError([Diagnostic(str(path), 0, where, f"not a valid bundle ({error.error_count()} error(s), "
                                        f"first: {first['msg']})", "recompile it with scbench compile")]) from None
    if not path.is_dir():
        raise SpecError([Diagnostic(str(path), 0, "", "no such problem directory or bundle",
                                    "give problems/NAME or a compiled NAME-HASH.scb.json")])
    return compile_problem(path)
