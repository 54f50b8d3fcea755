"""Read an author's file: text within limits, YAML or strict JSON, with the line of every node.

Hostile input stays cheap: a file over :data:`MAX_BYTES` is not read, a YAML document is
measured on its event stream (depth, and size with aliases expanded) before any node is built,
and a JSON document is measured before its lines are looked up. Every way a file can be
unreadable is one located :class:`Diagnostic` with a fix, never an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scbench.formats import MAX_DEPTH, LimitError, TooDeep, TooLarge, check_value, check_yaml
from scbench.problem.diagnostics import Diagnostic, where_of

MAX_BYTES = 8 * 1024 * 1024
"""Largest file the compiler reads (a solution's output is cut at the same size)."""

MAX_DOCUMENT_NODES = 100_000
"""Most values one config or case file may hold, aliases expanded (the shipped ones hold a few thousand)."""

LIMIT_HINTS = {
    TooDeep: f"nest at most {MAX_DEPTH} levels",
    TooLarge: "keep large expected values in expected-output files (stdout: {format: json, file: ...}) and large "
              "inputs under data/; do not nest YAML aliases inside aliases",
}


@dataclass(frozen=True)
class Document:
    """A parsed document: ``data`` plus ``lines`` mapping each node's path to its 1-based line."""

    data: Any
    lines: dict[tuple, int] = field(default_factory=dict)

    def line_of(self, path: tuple) -> int:
        """The line of the deepest node on ``path`` that exists (1 for the document root)."""
        for end in range(len(path), -1, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return 1


class Unreadable(Exception):
    """Why a file cannot be read: ``message`` at ``line`` (1-based), and how to fix it."""

    def __init__(self, message: str, line: int, hint: str):
        super().__init__(message)
        self.message, self.line, self.hint = message, line, hint

    @classmethod
    def over_limit(cls, error: LimitError) -> Unreadable:
        return cls(str(error), error.line, LIMIT_HINTS[type(error)])


def read_text(path: Path, what: str = "a file") -> str:
    """The UTF-8 text of ``path``; raises :class:`Unreadable` for a file over :data:`MAX_BYTES`
    (``what`` names the kind of file in the message) or one that is not UTF-8, and ``OSError``
    if it cannot be read."""
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise Unreadable(f"the file is {size / 2**20:.1f} MiB; {what} may have at most {MAX_BYTES // 2**20} MiB", 1,
                         LIMIT_HINTS[TooLarge])
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Unreadable(f"not UTF-8 text: {error.reason} at byte {error.start}",
                         data.count(b"\n", 0, error.start) + 1, "save the file as UTF-8") from None


def _walk(node: yaml.Node, path: tuple, lines: dict[tuple, int], duplicates: list[tuple[tuple, int]]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.SequenceNode):
        for index, child in enumerate(node.value):
            _walk(child, (*path, index), lines, duplicates)
    elif isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, child in node.value:
            if key.value in seen:
                duplicates.append(((*path, key.value), key.start_mark.line + 1))
            seen.add(key.value)
            _walk(child, (*path, key.value), lines, duplicates)


def _compose(text: str) -> tuple[yaml.Node | None, Any]:
    """The node tree and the data of a YAML text; raises ``yaml.MarkedYAMLError``."""
    loader = yaml.CSafeLoader(text)
    try:
        node = loader.get_single_node()
        return node, loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


@dataclass(frozen=True)
class _Syntax:
    """A YAML syntax error as the explainers see it: the parser's error, the offending line's text
    and the character at the error (``""`` past the end)."""

    error: yaml.MarkedYAMLError
    line: str
    char: str

    @property
    def at(self) -> int:
        """The 1-based line of the error."""
        return self.error.problem_mark.line + 1

    @property
    def opened(self) -> int:
        """The 1-based line where the construct being parsed began (a quote, a bracket, a block)."""
        return (self.error.context_mark or self.error.problem_mark).line + 1


def _unclosed_quote(syntax: _Syntax) -> Unreadable | None:
    if syntax.error.context != "while scanning a quoted scalar":
        return None
    return Unreadable(f"a quoted string opened at line {syntax.opened} is never closed", syntax.opened,
                      'close the quote on that line; inside "...", write a quote as \\", inside \'...\' as \'\'')


def _bad_character(syntax: _Syntax) -> Unreadable | None:
    if "cannot start any token" not in str(syntax.error.problem):
        return None
    column = syntax.error.problem_mark.column + 1
    if syntax.char == "\t":
        return Unreadable(f"a tab at column {column}: YAML indents with spaces only", syntax.at,
                          "replace the tab with spaces")
    return Unreadable(f"{syntax.char!r} at column {column} cannot start an unquoted value", syntax.at,
                      f'quote the value: "{syntax.line.strip().partition(": ")[2] or syntax.line.strip()}"')


def _colon_in_value(syntax: _Syntax) -> Unreadable | None:
    if not str(syntax.error.problem).startswith("mapping values are not allowed"):
        return None
    before = syntax.line[:syntax.error.problem_mark.column]
    if ": " in before:
        return Unreadable("an unquoted value holds ': '", syntax.at,
                          f'quote the value: "{before.partition(": ")[2]}{syntax.line[len(before):].rstrip()}"')
    return Unreadable("this line is indented deeper than the keys around it (a key cannot start here)", syntax.at,
                      "line the key up with the keys of its mapping, or quote a value that holds ': '")


def _misaligned(syntax: _Syntax) -> Unreadable | None:
    if str(syntax.error.problem) not in ("did not find expected key", "did not find expected '-' indicator"):
        return None
    indent = len(syntax.line) - len(syntax.line.lstrip(" "))
    if syntax.error.problem_mark.column > indent:
        return Unreadable(f"unexpected {syntax.char!r} after a value at column {syntax.error.problem_mark.column + 1}",
                          syntax.at, "remove it, or quote the whole value")
    return Unreadable(f"this line is indented differently from the block that starts at line {syntax.opened}",
                      syntax.at, "indent it like its siblings: the keys of one mapping, and the '-' items of one "
                                 "list, start in the same column")


FLOW_ENDS = {"while parsing a flow sequence": ("[", "]"), "while parsing a flow mapping": ("{", "}")}


def _unclosed_flow(syntax: _Syntax) -> Unreadable | None:
    if syntax.error.context not in FLOW_ENDS:
        return None
    start, end = FLOW_ENDS[syntax.error.context]
    return Unreadable(f"the {start} opened at line {syntax.opened} is not closed where expected: a missing {end!r} "
                      f"or ','", syntax.opened,
                      f"close it with {end}, separate items with ', ', and quote items holding ': ', '#' or {end}")


ANCHOR = re.compile(r"&([^\s,\[\]{}]+)")


def _duplicate_anchor(syntax: _Syntax) -> Unreadable | None:
    if syntax.error.problem != "second occurrence":
        return None
    name = ANCHOR.search(syntax.line, syntax.error.problem_mark.column).group(1)
    return Unreadable(f"the anchor &{name} is defined again (first at line {syntax.opened}); a YAML file names "
                      f"each anchor once", syntax.at,
                      f"give this one a name of its own (&{name}_2) and write *{name}_2 where its value is meant")


EXPLAINERS: list[Callable[[_Syntax], Unreadable | None]] = [_unclosed_quote, _bad_character, _colon_in_value,
                                                            _misaligned, _unclosed_flow, _duplicate_anchor]
"""YAML syntax errors explained: each says what is wrong, where, and how to write it instead."""


def _syntax(error: yaml.MarkedYAMLError, text: str) -> Unreadable:
    mark = error.problem_mark or error.context_mark
    if error.problem == "exceeded maximum nesting depth":
        return Unreadable.over_limit(TooDeep(mark.line + 1))
    if error.problem_mark is not None:
        line = (text.splitlines()[mark.line:mark.line + 1] or [""])[0]
        syntax = _Syntax(error, line, line[mark.column:mark.column + 1])
        explained = next(filter(None, (explain(syntax) for explain in EXPLAINERS)), None)
        if explained is not None:
            return explained
    return Unreadable(f"not valid YAML/JSON: {error.problem or error.context}", mark.line + 1 if mark else 1,
                      "fix the syntax at that line (quote strings containing ': ' or '#')")


def _yaml(text: str) -> tuple[Any, yaml.Node | None]:
    try:
        check_yaml(text, MAX_DOCUMENT_NODES)
        node, data = _compose(text)
    except LimitError as error:
        raise Unreadable.over_limit(error) from None
    except yaml.MarkedYAMLError as error:
        raise _syntax(error, text) from None
    return data, node


def _json(text: str) -> tuple[Any, yaml.Node | None]:
    """Strict JSON (no trailing commas, comments or YAML syntax), lines looked up through YAML."""
    try:
        data = check_value(json.loads(text), MAX_DOCUMENT_NODES)
    except json.JSONDecodeError as error:
        raise Unreadable(f"not valid JSON: {error.msg} at column {error.colno}", error.lineno,
                         "fix the syntax at that line (a .json case file is strict JSON: no trailing commas or "
                         "comments; name it .yaml for YAML)") from None
    except RecursionError:
        raise Unreadable.over_limit(TooDeep()) from None
    except LimitError as error:
        raise Unreadable.over_limit(error) from None
    try:
        node = _compose(text)[0]
    except yaml.YAMLError:
        node = None
    return data, node


PARSERS = {".json": _json}
"""File suffix -> document parser (YAML for any other suffix)."""


def read_document(path: Path, shown_as: str) -> tuple[Document | None, list[Diagnostic]]:
    """Parse ``path`` (strict JSON for ``.json``, YAML 1.1 otherwise) into a :class:`Document`.

    Returns ``(None, [diagnostic])`` when the file is unreadable (over a limit, not UTF-8, bad
    syntax, empty), and the document with one diagnostic per duplicated mapping key otherwise.
    ``shown_as`` is the name used in diagnostics. Raises ``OSError`` if the file cannot be read.
    """
    try:
        data, node = PARSERS.get(path.suffix, _yaml)(read_text(path, "a config or case file"))
    except Unreadable as problem:
        return None, [Diagnostic(shown_as, problem.line, "", problem.message, problem.hint)]
    if data is None:
        return None, [Diagnostic(shown_as, 1, "", "the file is empty", "write the document or delete the file")]
    lines: dict[tuple, int] = {}
    duplicates: list[tuple[tuple, int]] = []
    if node is not None:
        _walk(node, (), lines, duplicates)
    return Document(data, lines), [
        Diagnostic(shown_as, line, where_of(key[:-1]), f"duplicate key {key[-1]!r}",
                   "keep one of the two entries; the later one would silently win")
        for key, line in duplicates
    ]
