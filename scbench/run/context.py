"""What every case runner needs to know about the solution under test."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scbench.problem.model import (
    WRAPPERS,
    CliExpectation,
    DatabaseExpectation,
    JsonFile,
    JsonlFile,
    JsonStdin,
    OutputExpectation,
    RowsFile,
    SqliteFile,
    TextFile,
    YamlFile,
    YamlStdin,
)
from scbench.sandbox.base import Sandbox

PLACEHOLDER = re.compile(r"(?<!\{)\{(cwd|data|port|host)\}(?!\})")
"""A placeholder; ``{{port}}`` (a capture's syntax) is none."""


@dataclass(frozen=True)
class RunContext:
    """The entry argv, the bundle's data dir and the checkpoint's extra environment; with
    ``solution`` (the directory the entry's paths point into) each case runs a private copy;
    ``sandbox`` (started: it holds the cases' directories) runs every process."""

    entry: list[str]
    data: Path
    env: dict[str, str] = field(default_factory=dict)
    solution: Path | None = None
    sandbox: Sandbox = field(kw_only=True)

    def entry_in(self, copy: Path | None) -> list[str]:
        """The entry argv with paths inside ``solution`` moved into its per-case ``copy``."""
        if copy is None or self.solution is None:
            return self.entry
        return [str(copy / Path(token).relative_to(self.solution)) if Path(token).is_relative_to(self.solution)
                else token for token in self.entry]


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with ``{cwd}``, ``{data}``, ``{port}``, ``{host}`` replaced from ``values``
    (other braces, as in inline JSON, and ``{{name}}`` are left alone)."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def fill_value(item: Any, values: dict[str, str]) -> Any:
    """``item`` with :func:`fill` applied to every string of it, object keys included, recursively."""
    if isinstance(item, dict):
        return {fill(key, values): fill_value(child, values) for key, child in item.items()}
    if isinstance(item, list):
        return [fill_value(child, values) for child in item]
    return fill(item, values) if isinstance(item, str) else item


CONTENT_FIELDS: dict[type, str] = {TextFile: "text", JsonFile: "json_", YamlFile: "yaml_", JsonlFile: "jsonl",
                                   SqliteFile: "sqlite", RowsFile: "rows", JsonStdin: "json_", YamlStdin: "yaml_"}
"""Input-file and stdin form -> the field holding the content that takes placeholders (a form without an
entry is written as it is: base64, copy, tar, directory)."""


def filled_content(spec: Any, values: dict[str, str]) -> Any:
    """An input file's or stdin's ``spec`` with placeholders filled in its content (:data:`CONTENT_FIELDS`;
    a bare string is text; a compressed form's: the form it wraps, filled so)."""
    if isinstance(spec, str):
        return fill(spec, values)
    if (wrapped := WRAPPERS.get(type(spec))) is not None:
        return spec.model_copy(update={wrapped: filled_content(getattr(spec, wrapped), values)})
    name = CONTENT_FIELDS.get(type(spec))
    return spec.model_copy(update={name: fill_value(getattr(spec, name), values)}) if name else spec


def _filled_output(spec: OutputExpectation | None, values: dict[str, str]) -> OutputExpectation | None:
    if spec is None:
        return None
    escaped = {key: re.escape(value) for key, value in values.items()}
    return spec.model_copy(update={
        "value": fill_value(spec.value, escaped if spec.regex else values),
        "contains": fill_value(spec.contains, values), "not_contains": fill_value(spec.not_contains, values),
        "search": fill_value(spec.search, escaped)})


def _filled_database(spec: DatabaseExpectation, values: dict[str, str]) -> DatabaseExpectation:
    return spec.model_copy(update={
        "queries": [query.model_copy(update={"sql": fill(query.sql, values), "rows": fill_value(query.rows, values)})
                    for query in spec.queries],
        "violations": [violation.model_copy(update={"setup": fill_value(violation.setup, values),
                                                    "sql": fill(violation.sql, values)})
                       for violation in spec.violations]})


def filled_expectation(expect: CliExpectation, values: dict[str, str]) -> CliExpectation:
    """A compiled step's ``expect`` with placeholders filled in its outputs' values and text checks (escaped in
    regular expressions) and in its databases' SQL and rows; paths and JSONPaths stay as written."""
    return expect.model_copy(update={
        "stdout": _filled_output(expect.stdout, values), "stderr": _filled_output(expect.stderr, values),
        "files": {name: _filled_output(spec, values) for name, spec in expect.files.items()},
        "databases": {name: _filled_database(spec, values) for name, spec in expect.databases.items()}})
