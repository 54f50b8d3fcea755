"""Cross-reference checks on one schema-valid case: what a schema cannot say.

Each check takes the case and its :class:`CaseContext` and yields ``(path, message, hint)``
with ``path`` relative to the case; :data:`CASE_CHECKS` lists them all.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from scbench.formats import NOT_LISTS, PARSERS, TABLES
from scbench.problem.diagnostics import did_you_mean, where_of
from scbench.problem.model import (
    ANY,
    WRAPPERS,
    Base64File,
    BodyBytes,
    CliCase,
    Comparison,
    CopyFile,
    Directory,
    HttpCase,
    HttpExpectation,
    JsonStdin,
    OutputExpectation,
    ProblemConfig,
    RowsFile,
    SqliteFile,
    TarFile,
)
from scbench.problem.source import Unreadable, read_text
from scbench.problem.walk import (
    argument_strings,
    cli_steps,
    expected_paths,
    http_exchanges,
    inputs,
    outputs,
    queries,
)

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
CAPTURE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
PLACEHOLDERS = {"cli": {"cwd", "data"}, "http": {"cwd", "data", "port", "host"}}

Finding = tuple[tuple, str, str]


@dataclass(frozen=True)
class CaseContext:
    """What a case is checked and normalized against. ``problem`` is ``None`` when
    ``config.yaml`` is invalid: checks that need it are skipped, and nothing is normalized.
    ``missing_expected_files`` accepts expected-output files that do not exist yet."""

    problem: ProblemConfig | None
    problem_dir: Path
    case_dir: Path
    category: str
    timeout: float
    missing_expected_files: bool = False
    captured: frozenset[str] = frozenset()
    """The captures every step may use: those of its group's setup (see ``CaseGroup``)."""


def _inline_and_steps(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    if isinstance(case, CliCase) and case.steps and (case.args, case.stdin, case.expect) != (None, None, None):
        yield ("steps",), "both steps and inline args/stdin/expect are given", "move args/stdin/expect into a step"


def _run_without_args(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    """A harness-owned step (``run``) runs its own command: the entry's ``args`` have nothing to go with."""
    for path, step in cli_steps(case) if isinstance(case, CliCase) else ():
        if step.run is not None and step.args:
            yield (*path, "args"), "a step gives both run and args", \
                "put the whole command in run (a harness-owned step), or drop run to append args to the entry"


def _leaves(name: str) -> bool:
    pure = PurePosixPath(name)
    return pure.is_absolute() or ".." in pure.parts


def _copy_source(spec: CopyFile, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    if _leaves(spec.copy_):
        yield (*path, "copy"), f"copy source {spec.copy_!r} leaves data/", "name a path under data/ without '..'"
    elif not (ctx.problem_dir / "data" / spec.copy_).exists():
        yield path, f"data/{spec.copy_} does not exist", did_you_mean(spec.copy_, _files_under(
            ctx.problem_dir / "data")) or f"add it under {ctx.problem_dir.name}/data/ or fix the path"


def _files_under(directory: Path) -> list[str]:
    """The paths of the files and directories under ``directory``, relative to it, sorted."""
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*")) if directory.is_dir() else []


def _base64(spec: Base64File, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    try:
        base64.b64decode(spec.base64, validate=True)
    except binascii.Error as error:
        yield (*path, "base64"), f"not valid base64: {error}", "encode the bytes with base64 -w0 FILE"


def _tar_members(spec: TarFile, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    for name, content in spec.tar.items():
        if not name or _leaves(name):
            yield (*path, "tar", name), f"tar member name {name!r} is not a relative path", \
                "name the member by a relative path without '..'"
        if isinstance(content, Base64File):
            yield from _base64(content, (*path, "tar", name), ctx)


def _sqlite_statements(spec: SqliteFile, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    """Each statement run in order on an empty in-memory database: the first that fails is located."""
    with closing(sqlite3.connect(":memory:")) as database:
        for index, statement in enumerate(spec.sqlite):
            try:
                database.execute(statement)
            except (sqlite3.Error, sqlite3.Warning) as error:
                yield (*path, "sqlite", index), f"the statement fails: {error}", \
                    "fix the SQL; statements run in order on an empty database, one statement each"
                return


def _wrapped(spec: object, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    """A compressed input wraps a file: not a directory (nor a copy of one); what it wraps is checked as itself."""
    field = WRAPPERS[type(spec)]
    inner, where = getattr(spec, field), (*path, field)
    copied = isinstance(inner, CopyFile) and (ctx.problem_dir / "data" / inner.copy_).is_dir()
    if isinstance(inner, Directory) or copied:
        yield where, f"{field} compresses one file, and this is a directory", \
            f"wrap a file form ({{{field}: {{rows: ..., format: csv}}}}, text, copy of a file), or use a tar archive"
    yield from INPUT_CHECKS.get(type(inner), lambda *_: iter(()))(inner, where, ctx)


def _kind(value: object) -> str:
    """The JSON kind of a cell, ints and floats both ``number`` (as a parquet column holds either)."""
    return {bool: "boolean", int: "number", float: "number", str: "string", dict: "object"}.get(type(value), "array")


def _unlisted(spec: RowsFile, path: tuple) -> Iterator[Finding]:
    """Every key of a row is one of ``columns``, when given (else it would be dropped unseen)."""
    for index, row in enumerate(spec.rows if spec.columns else ()):
        for key in sorted(row.keys() - set(spec.columns)):
            yield (*path, "rows", index, key), f"column {key!r} is not one of columns", \
                f"add {key!r} to columns, or remove it from the row"


def _mixed_kinds(spec: RowsFile, path: tuple) -> Iterator[Finding]:
    """A parquet column holds one kind of value: pyarrow cannot write a column of numbers and strings."""
    first: dict[str, tuple[int, str]] = {}
    for index, row in enumerate(spec.rows if spec.rows_format == "parquet" else ()):
        for key, kind in ((key, _kind(value)) for key, value in row.items() if value is not None):
            seen, known = first.setdefault(key, (index, kind))
            if known != kind:
                yield (*path, "rows", index, key), f"a parquet column holds one kind of value, and {key!r} is a " \
                    f"{known} in row {seen} but a {kind} here", \
                    "write every value of the column as one kind (numbers may mix ints and floats), or null"


def _rows(spec: RowsFile, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    yield from _unlisted(spec, path)
    yield from _mixed_kinds(spec, path)


INPUT_CHECKS: dict[type, Callable[[object, tuple, CaseContext], Iterator[Finding]]] = {
    CopyFile: _copy_source, Base64File: _base64, TarFile: _tar_members, SqliteFile: _sqlite_statements,
    RowsFile: _rows,
    **dict.fromkeys(WRAPPERS, _wrapped)}
"""Input-file form -> its own check (forms without an entry need none)."""


def _input_paths(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for path, name, spec in inputs(case):
        if _leaves(name):
            yield path, f"file name {name!r} leaves the working directory", "use a relative path without '..'"
        yield from INPUT_CHECKS.get(type(spec), lambda *_: iter(()))(spec, path, ctx)


def _stdin_copy(spec: CopyFile, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    found = list(_copy_source(spec, path, ctx))
    yield from found
    if not found and (ctx.problem_dir / "data" / spec.copy_).is_dir():
        yield (*path, "copy"), f"data/{spec.copy_} is a directory, and stdin takes the bytes of one file", \
            "name a file under data/"


def _stdin_json(spec: JsonStdin, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    for where, message, _ in _finite(spec.json_, (*path, "json")):
        yield where, message, "write a number a double holds, or give stdin as text (a bare string)"


STDIN_CHECKS: dict[type, Callable[[object, tuple, CaseContext], Iterator[Finding]]] = {
    CopyFile: _stdin_copy, JsonStdin: _stdin_json}
"""Standard-input form -> its own check (forms without an entry need none)."""


def _stdins(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for path, step in cli_steps(case) if isinstance(case, CliCase) else ():
        if step.stdin is not None:
            yield from STDIN_CHECKS.get(type(step.stdin), lambda *_: iter(()))(step.stdin, (*path, "stdin"), ctx)


PATH_NOUNS = {"files": "output file", "databases": "output database", "absent": "path", "empty": "directory"}
"""Kind of path an expectation names -> its name in a message."""


def _output_names(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for path, kind, name in expected_paths(case):
        if _leaves(name):
            yield path, f"{PATH_NOUNS[kind]} {name!r} is outside the working directory", \
                "use a relative path without '..'"


def _within(name: str, other: str) -> bool:
    return PurePosixPath(name).is_relative_to(PurePosixPath(other))


CONTRADICTIONS: dict[str, Callable[[str, str], bool]] = {
    "absent": _within, "empty": lambda name, directory: name != directory and _within(name, directory)}
"""Absence expectation -> whether a path that another expectation of the step needs to exist contradicts it."""


def _absences_possible(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    existing = [(path[:-3], kind, name) for path, kind, name in expected_paths(case) if kind != "absent"]
    for path, kind, name in expected_paths(case):
        contradicting = CONTRADICTIONS.get(kind, lambda *_: False)
        for step, other_kind, other in existing:
            if step == path[:-3] and (other_kind, other) != (kind, name) and contradicting(other, name):
                yield path, f"{name!r} must be {kind}, and {other_kind} names {other!r}", \
                    "keep one of the two expectations"


def _expected_file(output: OutputExpectation, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    if output.value is not None:
        yield path, "both value and file are given", "keep one of them"
    target = (ctx.case_dir / output.file).resolve()
    if not target.is_relative_to(ctx.problem_dir.resolve()):
        yield (*path, "file"), f"expected-output file {output.file!r} is outside the problem", "keep it in the problem"
    elif target.is_file():
        yield from _parses(target, output, (*path, "file"))
    elif not ctx.missing_expected_files:
        yield (*path, "file"), f"expected-output file {output.file!r} does not exist", did_you_mean(
            output.file, _files_under(ctx.case_dir)) or "create it with scbench bless (it writes the reference's " \
            "output there) or fix the path; it is relative to the case file"


def _parses(target: Path, output: OutputExpectation, path: tuple) -> Iterator[Finding]:
    try:
        value = PARSERS[output.format](read_text(target, "an expected-output file"))
    except Unreadable as problem:
        yield path, f"{output.file}: {problem.message}", problem.hint
    except ValueError as error:
        yield path, f"{output.file}: not valid {output.format}: {error}", "fix the file or set format: to match it"
    else:
        for inside, message, hint in _finite(value, ()):
            yield path, f"{output.file}: {where_of(('$', *inside))}: {message}", hint


def _finite(value: object, path: tuple) -> Iterator[Finding]:
    """A finding per number of ``value`` beyond a double (``1.0e+400`` is read as infinity, which
    JSON cannot hold: the bundle would say ``null``) or not a number (YAML's ``.inf`` and ``.nan``)."""
    if isinstance(value, float) and not math.isfinite(value):
        yield path, f"the number {value} is beyond what a double holds (at most 1.7976931348623157e+308)", \
            "write a number a double holds, or the text the output prints, as a string with format: text"
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield from _finite(child, (*path, key))


def _expected_files(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for path, output in outputs(case):
        if isinstance(output, OutputExpectation) and output.file is not None:
            yield from _expected_file(output, path, ctx)


def _ini_value(value: object, path: tuple) -> Iterator[Finding]:
    if not isinstance(value, dict):
        yield path, "an ini value is an object of sections", 'write {section: {key: "text"}}'
        return
    for section, keys in value.items():
        if keys != ANY and not isinstance(keys, dict):
            yield (*path, section), f"section {section!r} is not an object of keys", 'write {key: "text"}'
        for key, text in keys.items() if isinstance(keys, dict) else ():
            if not isinstance(text, str):
                yield (*path, section, key), "an ini value is text, never a number, boolean or null", \
                    f"quote it: {json.dumps(json.dumps(text))}"


def _toml_value(value: object, path: tuple) -> Iterator[Finding]:
    if not isinstance(value, dict):
        yield path, "a toml document is a table", "write the value as an object of keys"
    for inside in (inside for inside, item in _leaves_of(value, ()) if item is None):
        yield (*path, *inside), "toml has no null", "leave the key out (or ignore it), or write the text it prints"


def _leaves_of(value: object, path: tuple) -> Iterator[tuple[tuple, object]]:
    """``(path, leaf)`` for every scalar of ``value``."""
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else None
    if children is None:
        yield path, value
    for key, child in children or ():
        yield from _leaves_of(child, (*path, key))


VALUE_SHAPES: dict[str, Callable[[object, tuple], Iterator[Finding]]] = {"ini": _ini_value, "toml": _toml_value}
"""Format -> the check that an expected value is one its parser can give (formats without an entry: any)."""


def _regex(output: OutputExpectation, path: tuple) -> Iterator[Finding]:
    if output.regex and (output.format != "text" or not isinstance(output.value, str)):
        yield (*path, "regex"), "regex needs format: text and a string value", "drop regex or make it text"
    elif output.regex:
        yield from _compile_regex(output.value, (*path, "value"))


def _jsonpaths(output: Comparison, path: tuple) -> Iterator[Finding]:
    for index, expression in enumerate(output.ignore):
        yield from compile_jsonpath(expression, (*path, "ignore", index))
    for index, rule in enumerate(output.normalize):
        yield from compile_jsonpath(rule.path, (*path, "normalize", index, "path"))


def _value(output: OutputExpectation, path: tuple) -> Iterator[Finding]:
    yield from _finite(output.value, (*path, "value"))
    if output.value is not None and output.value != ANY and output.format in VALUE_SHAPES:
        yield from VALUE_SHAPES[output.format](output.value, (*path, "value"))
    if output.sort_by and output.format in NOT_LISTS:
        yield (*path, "sort_by"), f"sort_by sorts a list, and a {output.format} output never is one", \
            "use format: jsonl, json, lines, yaml or csv; for lists inside a document, unordered: true"


def _searches(output: OutputExpectation, path: tuple) -> Iterator[Finding]:
    for index, pattern in enumerate(output.search):
        yield from _compile_regex(pattern, (*path, "search", index))


def _cells(output: OutputExpectation, path: tuple) -> Iterator[Finding]:
    if output.cells and output.format not in TABLES:
        yield (*path, "cells"), f"cells types the columns of a table, and a {output.format} output is none", \
            f"use format: {', '.join(sorted(TABLES))}, or drop cells (JSON and YAML values are typed already)"


OUTPUT_CHECKS: list[Callable[[OutputExpectation, tuple], Iterator[Finding]]] = [
    _regex, _jsonpaths, _value, _searches, _cells]
"""The checks of one output expectation (its ``path`` relative to the case)."""


def _outputs_well_formed(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for path, output in outputs(case):
        if isinstance(output, OutputExpectation):
            for check in OUTPUT_CHECKS:
                yield from check(output, path)
    for path, query in queries(case):
        yield from _jsonpaths(query, path)
        yield from _finite(query.rows, (*path, "rows"))


def _captures_well_formed(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for index, step in enumerate(case.steps if isinstance(case, HttpCase) else []):
        for name, capture in step.capture.items():
            yield from _capture_form(capture, ("steps", index, "capture", name))


def _compile_regex(pattern: str, path: tuple) -> Iterator[Finding]:
    try:
        re.compile(pattern)
    except re.error as error:
        yield path, f"invalid regular expression: {error}", "escape special characters with a backslash"


def compile_jsonpath(expression: str, path: tuple) -> Iterator[Finding]:
    import jsonpath  # its lexer compiles ~100 regular expressions: paid by the compiler only

    try:
        jsonpath.compile(expression)
    except jsonpath.JSONPathError as error:
        yield path, f"invalid JSONPath {expression!r}: {str(error).splitlines()[0]}", "write it like $.items[*].id"


def _capture_form(capture, path: tuple) -> Iterator[Finding]:
    if (capture.jsonpath is None) == (capture.header is None):
        yield path, "a capture needs exactly one of jsonpath and header", "e.g. {jsonpath: $.id}"
    elif capture.jsonpath is not None:
        yield from compile_jsonpath(capture.jsonpath, (*path, "jsonpath"))


def _placeholders(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    known = PLACEHOLDERS[case.kind]
    for path, text in argument_strings(case):
        for name in set(PLACEHOLDER.findall(CAPTURE.sub("", text))) - known:
            yield path, f"unknown placeholder {{{name}}}", f"known placeholders: {', '.join(sorted(known))}"


def _sent(step) -> str:
    """The JSON of what ``step`` sends: its request or its concurrent requests."""
    return step.model_dump_json(by_alias=True, include={"request", "concurrent"})


def _captures_defined(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    if not isinstance(case, HttpCase):
        return
    defined: set[str] = set(ctx.captured)
    for index, step in enumerate(case.steps):
        for name in sorted(set(CAPTURE.findall(_sent(step))) - defined):
            yield ("steps", index, "request"), f"{{{{{name}}}}} is used before any step captures it", \
                f"add capture: {{{name}: {{jsonpath: ...}}}} to an earlier step"
        defined |= set(step.capture)
        for name in sorted(set(CAPTURE.findall(step.expect.model_dump_json(by_alias=True))) - defined):
            yield ("steps", index, "expect"), f"{{{{{name}}}}} is used before any step captures it", \
                f"add capture: {{{name}: {{jsonpath: ...}}}} to this or an earlier step"


def _server_known(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    if isinstance(case, HttpCase) and case.server is None and ctx.problem is not None and ctx.problem.server is None:
        yield ("kind",), "an HTTP case needs a server (config.yaml or the case)", \
            'add server: {args: [--port, "{port}"]} to config.yaml (every HTTP case) or to this case'


BODIES = ("json_", "text", "form", "base64", "copy_")
"""The fields of an HTTP request that are its body."""


def _request_body(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for path, request, _ in http_exchanges(case) if isinstance(case, HttpCase) else ():
        given = [name.rstrip("_") for name in BODIES if getattr(request, name, None) is not None]
        if len(given) > 1:
            yield (*path, "request"), f"more than one body: {', '.join(given)}", "send one body"
        yield from _bytes_sources(request, (*path, "request"), ctx) if request is not None else ()


def _bytes_sources(item, path: tuple, ctx: CaseContext) -> Iterator[Finding]:
    """The ``base64`` and ``copy`` of a request or a ``body_bytes`` decode and exist."""
    if item.base64 is not None:
        yield from _base64(Base64File(base64=item.base64), path, ctx)
    if item.copy_ is not None:
        yield from _copy_source(CopyFile(copy=item.copy_), path, ctx)


def _body_bytes(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    for path, _, expect in http_exchanges(case) if isinstance(case, HttpCase) else ():
        spec, at = expect.body_bytes, (*path, "expect", "body_bytes")
        if spec is None:
            continue
        if expect.body is not None:
            yield at, "both body and body_bytes are given", "compare the body as text (body) or as bytes (body_bytes)"
        if sum(value is not None for value in (spec.base64, spec.copy_, spec.sha256)) > 1:
            yield at, "more than one of base64, copy and sha256", "give the bytes one way"
        if spec == BodyBytes():
            yield at, "body_bytes expects nothing", "give base64, copy, sha256 or size"
        yield from _bytes_sources(spec, at, ctx)


def _step_shape(case: CliCase | HttpCase, ctx: CaseContext) -> Iterator[Finding]:
    """An HTTP step sends a ``request`` or ``concurrent`` requests; a concurrent step neither polls nor
    captures, and each of its requests has its own ``expect``."""
    for index, step in enumerate(case.steps if isinstance(case, HttpCase) else ()):
        if (step.request is None) == (step.concurrent is None):
            yield ("steps", index), "a step needs exactly one of request and concurrent", \
                "give request: {...}, or concurrent: {requests: [...]} to send several at once"
        elif step.concurrent is not None and (step.poll or step.capture or step.expect != HttpExpectation()):
            yield ("steps", index, "concurrent"), "a concurrent step has poll, capture or expect of its own", \
                "put each expect under its request in concurrent.requests; capture in a later step"


CASE_CHECKS: list[Callable[[CliCase | HttpCase, CaseContext], Iterator[Finding]]] = [
    _inline_and_steps, _run_without_args, _input_paths, _stdins, _output_names, _absences_possible, _expected_files,
    _outputs_well_formed,
    _captures_well_formed, _placeholders, _captures_defined, _server_known, _request_body, _body_bytes, _step_shape,
]
