"""``scbench bless``: fill or refresh expected outputs from a reference solution.

Runs each selected case on the reference, parses every output that has an expectation
with the expectation's format, keeps the author's wildcards where they still match, and
proposes edits to the case files (round-trip YAML: comments and layout survive) or to the
expected-output files they point to. Nothing is written here: the caller shows the diffs
and writes the accepted :class:`Edit` objects.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import LiteralScalarString
from ruamel.yaml.util import load_yaml_guess_indent

from scbench.evaluate import CASE_KINDS
from scbench.formats import PARSERS
from scbench.grade import text
from scbench.problem.bundle import Bundle, CompiledCase
from scbench.problem.model import OutputExpectation
from scbench.run.cli_case import CliObservation
from scbench.run.context import RunContext
from scbench.run.http_case import HttpObservation

ANY = "[..]"


class UnknownCase(LookupError):
    """A ``--case`` id that the checkpoint does not have."""


@dataclass(frozen=True)
class Edit:
    """A proposed new text for one file, with its unified diff against the current text."""

    path: Path
    before: str
    after: str

    @property
    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(True), self.after.splitlines(True),
                                            str(self.path), str(self.path)))

    def write(self) -> None:
        self.path.write_text(self.after, encoding="utf-8")


def _wildcard_holds(old: Any, new: Any) -> bool:
    return old == ANY or (isinstance(old, str) and isinstance(new, str) and text.matches(old, new))


def _merge_dicts(old: dict, new: dict) -> dict:
    return {key: keep_wildcards(old[key], value) if key in old else value for key, value in new.items()}


def _merge_lists(old: list, new: list) -> list:
    return [keep_wildcards(o, n) for o, n in zip(old, new, strict=True)] if len(old) == len(new) else new


MERGERS: dict[tuple[type, type], Callable[[Any, Any], Any]] = {(dict, dict): _merge_dicts, (list, list): _merge_lists}


def restrict(old: Any, new: Any) -> Any:
    """``new`` cut down to the object keys ``old`` has (recursively, and through equal-length
    lists): a subset expectation stays a subset when refreshed."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {key: restrict(old[key], new[key]) for key in old if key in new}
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [restrict(o, n) for o, n in zip(old, new, strict=True)]
    return new


def keep_wildcards(old: Any, new: Any) -> Any:
    """``new``, except where ``old`` holds a wildcard that still matches it (recursively
    through objects and equal-length lists): there ``old`` is kept."""
    if _wildcard_holds(old, new):
        return old
    merge = MERGERS.get((type(old), type(new)))
    return merge(old, new) if merge else new


def _csv(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else [], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


SERIALIZERS: dict[str, Callable[[Any], str]] = {
    "text": str,
    "lines": lambda lines: "".join(f"{line}\n" for line in lines),
    "json": lambda value: json.dumps(value, indent=2, ensure_ascii=False) + "\n",
    "jsonl": lambda values: "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values),
    "yaml": lambda value: yaml.safe_dump(value, sort_keys=False, allow_unicode=True),
    "csv": _csv,
}
"""Format -> writer of an expected-output file (the inverse of ``formats.PARSERS``)."""


def _cli_actuals(obs: CliObservation) -> dict[tuple, bytes | None]:
    result = obs.result
    streams = {("stdout",): result.stdout, ("stderr",): result.stderr} if result else {}
    return {**streams, **{("files", name): data for name, data in obs.files.items()}}


ACTUALS: dict[type, Callable[[Any], dict[tuple, bytes | None]]] = {
    CliObservation: _cli_actuals,
    HttpObservation: lambda obs: {} if obs.error else {("body",): obs.body},
}
"""Observation type -> its outputs, keyed by their path under the step's ``expect``."""


def _expectation(step: Any, key: tuple) -> OutputExpectation | None:
    node = step.expect
    for part in key:
        node = node.get(part) if isinstance(node, dict) else getattr(node, part, None)
    return node


def _step_node(case_node: Any, index: int) -> Any:
    return case_node["steps"][index] if "steps" in case_node else case_node


def _set_inline(expect_node: Any, key: tuple, value: Any) -> None:
    parent = expect_node
    for part in key[:-1]:
        parent = parent[part]
    shown = LiteralScalarString(value) if isinstance(value, str) and "\n" in value.rstrip("\n") else value
    if isinstance(parent[key[-1]], str):
        parent[key[-1]] = shown
    else:
        parent[key[-1]]["value"] = shown


@dataclass(frozen=True)
class _Output:
    """One authored output expectation: its ``expect`` node in the YAML, its key there, its compiled form."""

    expect_node: Any
    key: tuple
    spec: OutputExpectation


class _CaseFile:
    """One case file opened for round-trip editing, plus edits to the files it points to."""

    def __init__(self, path: Path):
        self.path = path
        self.before = path.read_text(encoding="utf-8")
        self.document, indent, offset = load_yaml_guess_indent(self.before)
        self.yaml = YAML()
        self.yaml.preserve_quotes = True
        self.yaml.width = 120
        indent, offset = indent or 2, offset or 0
        self.yaml.indent(mapping=max(indent - offset, 2), sequence=indent, offset=offset)
        self.changed = False
        self.side_files: list[Edit] = []
        self.notes: list[str] = []

    def refresh(self, label: str, output: _Output, raw: bytes) -> None:
        """Set ``output``'s expected value (inline, or in the file it names) to ``raw`` parsed,
        wildcards kept; an output that does not parse is noted and left alone."""
        try:
            actual = PARSERS[output.spec.format](raw.decode("utf-8", errors="replace"))
        except ValueError as error:
            self.notes.append(f"{label} left as is, not valid {output.spec.format}: {error}")
            return
        if output.spec.subset and output.spec.value is not None:
            actual = restrict(output.spec.value, actual)
        value = keep_wildcards(output.spec.value, actual)
        authored = _expectation_node(output.expect_node, output.key)
        if value == output.spec.value:
            return
        if isinstance(authored, dict) and "file" in authored:
            target = self.path.parent / authored["file"]
            before = target.read_text(encoding="utf-8") if target.exists() else ""
            self.side_files.append(Edit(target, before, SERIALIZERS[output.spec.format](value)))
        else:
            _set_inline(output.expect_node, output.key, value)
            self.changed = True

    def edits(self) -> list[Edit]:
        buffer = io.StringIO()
        self.yaml.dump(self.document, buffer)
        own = [Edit(self.path, self.before, buffer.getvalue())] if self.changed else []
        return own + [edit for edit in self.side_files if edit.before != edit.after]


def _refresh(file: _CaseFile, compiled: CompiledCase, observations: list) -> None:
    case_node = file.document["cases"][compiled.index]
    for index, obs in enumerate(observations):
        step_node = _step_node(case_node, index)
        for key, raw in ACTUALS[type(obs)](obs).items():
            spec = _expectation(obs.step, key)
            if spec is not None and raw is not None:
                file.refresh(f"{compiled.case.id}: {'.'.join(key)}", _Output(step_node["expect"], key, spec), raw)


def _expectation_node(expect_node: Any, key: tuple) -> Any:
    node = expect_node
    for part in key:
        node = node[part]
    return node


def _selected(cases: list[CompiledCase], case_ids: set[str] | None, number: int) -> list[CompiledCase]:
    unknown = (case_ids or set()) - {c.case.id for c in cases}
    if unknown:
        raise UnknownCase(f"no case {', '.join(sorted(unknown))} in checkpoint {number}")
    return [c for c in cases if not case_ids or c.case.id in case_ids]


def bless(root: Path, bundle: Bundle, number: int, entry: list[str],
          case_ids: set[str] | None = None) -> tuple[list[Edit], list[str]]:
    """Proposed edits that make checkpoint ``number``'s expectations (all cases, or those
    in ``case_ids``) equal to what the solution started by ``entry`` prints, wildcards kept,
    and notes on outputs left alone. Raises :class:`UnknownCase` for an unknown case id."""
    cases = _selected(bundle.checkpoint(number).cases, case_ids, number)
    ctx = RunContext(entry=entry, data=bundle.data_dir(), env=bundle.checkpoint(number).config.env)
    files: dict[str, _CaseFile] = {}
    for compiled in cases:
        file = files.setdefault(compiled.source, _CaseFile(root / compiled.source))
        _refresh(file, compiled, CASE_KINDS[compiled.case.kind].run(compiled.case, ctx))
    return ([edit for file in files.values() for edit in file.edits()],
            [note for file in files.values() for note in file.notes])
