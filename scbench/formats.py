"""Output formats: how raw output text is read into a value (one small parser each).

Shared by the compiler (expected values kept in files) and the grader (actual outputs).
Every parser takes the text and returns the parsed value or raises ``ValueError`` (a
:class:`LimitError` for a value nested deeper than :data:`MAX_DEPTH` or a YAML text that
expands past :data:`MAX_NODES`: outputs and authors' files alike are read in bounded time).
Nothing is read leniently: JSON with a duplicate key or ``NaN`` / ``Infinity`` is not JSON, and
YAML is read as the JSON value it stands for: without implicit timestamps (``2024-01-02`` stays the
string it is in JSON), keys as strings, no binary or set. TOML is read by ``tomllib`` with its dates and
times as their RFC 3339 text; INI by ``configparser`` (strict, no interpolation, keys as written) as
``{section: {key: text}}``, a ``DEFAULT`` section being a section like any other. A markdown table (GFM, read by
markdown-it-py) is a list of rows, each an object of header -> cell text, its divider row skipped; ``fields_table``
is one such table after ``Key: value`` lines, read as ``{"fields": {key: value}, "table": [rows]}``. The cells of
tables (csv, tsv, markdown) are text; :func:`typed` reads them as the column types an expectation declares.
"""

from __future__ import annotations

import configparser
import csv
import datetime
import io
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from typing import Any

import yaml

MAX_DEPTH = 100
"""Deepest nesting of lists and objects a parsed value (or an author's document) may have."""

MAX_NODES = 1_000_000
"""Most values a YAML text may expand to (aliases counted at their full size)."""


class LimitError(ValueError):
    """A text over one of the limits above; ``line`` (1-based) is where it crossed it."""

    def __init__(self, message: str, line: int = 1):
        super().__init__(message)
        self.line = line


class TooDeep(LimitError):
    """Nested deeper than :data:`MAX_DEPTH`."""

    def __init__(self, line: int = 1, where: str = ""):
        super().__init__(f"{where}nested deeper than {MAX_DEPTH} levels", line)


class TooLarge(LimitError):
    """More values than allowed."""


class _Budget:
    """Depth and expanded size of a YAML event stream, counted without building anything."""

    def __init__(self, max_nodes: int):
        self.max_nodes = max_nodes
        self.count = 0
        self.sizes: dict[str, int] = {}
        self.opened: list[tuple[str | None, int]] = []

    def scalar(self, event: yaml.ScalarEvent) -> None:
        self.count += 1
        if event.anchor:
            self.sizes[event.anchor] = 1

    def start(self, event: yaml.CollectionStartEvent) -> None:
        self.count += 1
        self.opened.append((event.anchor, self.count))
        if len(self.opened) > MAX_DEPTH:
            raise TooDeep(event.start_mark.line + 1)

    def end(self, event: yaml.CollectionEndEvent) -> None:
        anchor, start = self.opened.pop()
        if anchor:
            self.sizes[anchor] = self.count - start + 1

    def alias(self, event: yaml.AliasEvent) -> None:
        self.count += self.sizes.get(event.anchor, 1)

    def other(self, event: yaml.Event) -> None:
        pass

    def check(self, event: yaml.Event) -> None:
        if self.count > self.max_nodes:
            raise TooLarge(f"more than {self.max_nodes:,} values (YAML aliases expanded)", event.start_mark.line + 1)


EVENTS = {yaml.ScalarEvent: _Budget.scalar, yaml.MappingStartEvent: _Budget.start,
          yaml.SequenceStartEvent: _Budget.start, yaml.MappingEndEvent: _Budget.end,
          yaml.SequenceEndEvent: _Budget.end, yaml.AliasEvent: _Budget.alias}


def check_yaml(text: str, max_nodes: int = MAX_NODES) -> None:
    """Raise :class:`LimitError` if the YAML ``text`` nests deeper than :data:`MAX_DEPTH` or
    expands (aliases at their full size, as in a "billion laughs" document) to more than
    ``max_nodes`` values; only the event stream is read, so time and memory stay bounded.
    Raises ``yaml.YAMLError`` for bad syntax."""
    budget = _Budget(max_nodes)
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        EVENTS.get(type(event), _Budget.other)(budget, event)
        budget.check(event)


def check_value(value: Any, max_nodes: int = MAX_NODES) -> Any:
    """``value``, after raising :class:`LimitError` if its lists and objects nest deeper than
    :data:`MAX_DEPTH` or it holds more than ``max_nodes`` values (counted without recursion)."""
    stack, count = [(value, 0)], 0
    while stack:
        item, depth = stack.pop()
        count += 1
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None and depth >= MAX_DEPTH:
            raise TooDeep()
        if count > max_nodes:
            raise TooLarge(f"more than {max_nodes:,} values")
        stack.extend((child, depth + 1) for child in children or ())
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    twice = next((key for index, key in enumerate(keys) if key in keys[:index]), None)
    if twice is not None:
        raise ValueError(f"duplicate key {json.dumps(twice, ensure_ascii=False)} in an object")
    return dict(pairs)


def _not_a_number(word: str) -> Any:
    raise ValueError(f"{word} is not a JSON number")


def _strict_json(text: str) -> Any:
    """``json.loads`` without Python's leniencies: a duplicate key or ``NaN`` / ``Infinity`` raises ``ValueError``."""
    return check_value(json.loads(text, object_pairs_hook=_object, parse_constant=_not_a_number))


def _jsonl(text: str) -> list[Any]:
    values = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                values.append(_strict_json(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"line {number}: {error.msg} at column {error.colno}") from error
            except (RecursionError, TooDeep) as error:
                raise TooDeep(number, f"line {number}: ") from error
            except ValueError as error:
                raise ValueError(f"line {number}: {error}") from error
    return values


def _json(text: str) -> Any:
    try:
        return _strict_json(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} at line {error.lineno} column {error.colno}") from error
    except RecursionError as error:
        raise TooDeep() from error


class JsonLoader(yaml.CSafeLoader):
    """YAML's safe loader without implicit timestamps: every value is a JSON value."""

    yaml_implicit_resolvers = {first: [(tag, pattern) for tag, pattern in resolvers
                                       if tag != "tag:yaml.org,2002:timestamp"]
                               for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()}


JsonLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.constructor.SafeConstructor.construct_scalar)


JSON_SCALARS = (str, int, float, bool, type(None))
NOT_JSON = {bytes: "binary data (!!binary)", set: "a set (!!set)"}
"""What YAML can hold and JSON cannot, by Python type, as a message names it."""


def _as_json(value: Any) -> Any:
    """A YAML value as the JSON value it stands for: object keys that are not strings written as JSON
    writes them (``1`` -> ``"1"``, ``true`` -> ``"true"``); raises ``ValueError`` for what JSON cannot
    hold (``!!binary``, ``!!set``). ``value`` is at most :data:`MAX_DEPTH` deep (:func:`check_yaml`)."""
    if isinstance(value, dict):
        return {key if isinstance(key, str) else json.dumps(_as_json(key)): _as_json(child)
                for key, child in value.items()}
    if isinstance(value, list):
        return [_as_json(child) for child in value]
    if not isinstance(value, JSON_SCALARS):
        raise ValueError(f"{NOT_JSON.get(type(value), type(value).__name__)} is not a JSON value")
    return value


def _yaml(text: str) -> Any:
    try:
        check_yaml(text)
        return _as_json(yaml.load(text, Loader=JsonLoader))
    except yaml.YAMLError as error:
        raise ValueError(str(error).replace("\n", " ")) from error


def _toml_value(value: Any) -> Any:
    """A ``tomllib`` value with every date, time and date-time as its ``isoformat()`` text."""
    if isinstance(value, dict):
        return {key: _toml_value(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_toml_value(child) for child in value]
    return value.isoformat() if isinstance(value, datetime.date | datetime.time) else value


def _toml(text: str) -> dict[str, Any]:
    try:
        return _toml_value(check_value(tomllib.loads(text)))
    except RecursionError as error:
        raise TooDeep() from error


NO_SECTION = "\n"
"""configparser's name for its section of defaults, which no header can spell: ``[DEFAULT]`` is a section."""


def ini_parser() -> configparser.ConfigParser:
    """The INI reader and writer of outputs: strict (a section or a key given twice is an error), no
    interpolation, keys kept as written, no section of defaults inherited by the others."""
    parser = configparser.ConfigParser(interpolation=None, strict=True, default_section=NO_SECTION)
    parser.optionxform = str
    return parser


INI_ERRORS: dict[type, Callable[[Any], str]] = {
    configparser.DuplicateOptionError: lambda error: f"line {error.lineno}: duplicate key "
                                                     f"{json.dumps(error.option)} in section [{error.section}]",
    configparser.DuplicateSectionError: lambda error: f"line {error.lineno}: duplicate section [{error.section}]",
    configparser.MissingSectionHeaderError: lambda error: f"line {error.lineno}: {error.line!r} comes before "
                                                          "any [section] header",
    configparser.ParsingError: lambda error: "; ".join(f"line {number}: cannot parse {line}"
                                                        for number, line in error.errors),
}
"""configparser's error -> its message as a grader reports it (others: configparser's own, on one line)."""


def _ini(text: str) -> dict[str, dict[str, str]]:
    parser = ini_parser()
    try:
        parser.read_string(text)
    except configparser.Error as error:
        raise ValueError(INI_ERRORS.get(type(error), lambda e: " ".join(str(e).split()))(error)) from error
    return {section: dict(parser[section]) for section in parser.sections()}


def _outside(lines: list[str], first: int) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of the lines that are not blank, numbered from ``first`` (1-based)."""
    return ((number, line) for number, line in enumerate(lines, first) if line.strip())


def _cells(tokens: list) -> list[list[str]]:
    """The cell texts of each row of the markdown-it ``tokens`` of one table, the header row first."""
    rows: list[list[str]] = []
    for before, token in zip(tokens, tokens[1:], strict=False):
        if before.type == "tr_open":
            rows.append([])
        if before.type in ("th_open", "td_open"):
            rows[-1].append(token.content)
    return rows


def _table(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """The lines before the one markdown table of ``text``, and its rows (the header row's cells as keys).
    Raises ``ValueError`` for no table or several, a repeated header, or text after the table."""
    from markdown_it import MarkdownIt  # loaded by the suites that read tables only

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    starts = [token.map for token in tokens if token.type == "table_open"]
    if len(starts) != 1:
        raise ValueError(f"expected one markdown table (a header row, a divider row such as | --- |, then rows), "
                         f"found {len(starts)}")
    (start, end), lines = starts[0], text.split("\n")
    header, *rows = _cells(tokens)
    twice = next((name for index, name in enumerate(header) if name in header[:index]), None)
    if twice is not None:
        raise ValueError(f"line {start + 1}: column {twice!r} is named twice in the header")
    for number, line in _outside(lines[end:], end + 1):
        raise ValueError(f"line {number}: text after the table: {line!r}")
    return lines[:start], [dict(zip(header, row, strict=True)) for row in rows]


def _markdown_table(text: str) -> list[dict[str, str]]:
    before, rows = _table(text)
    for number, line in _outside(before, 1):
        raise ValueError(f"line {number}: text before the table: {line!r} (for Key: value lines, format: fields_table)")
    return rows


FIELD = re.compile(r"(?P<key>[^:]+?)\s*:\s*(?P<value>.*)")


def _fields_table(text: str) -> dict[str, Any]:
    before, rows = _table(text)
    fields: dict[str, str] = {}
    for number, line in _outside(before, 1):
        found = FIELD.fullmatch(line.strip())
        if found is None:
            raise ValueError(f"line {number}: not a Key: value line: {line!r}")
        if found["key"] in fields:
            raise ValueError(f"line {number}: key {found['key']!r} is given twice")
        fields[found["key"]] = found["value"]
    return {"fields": fields, "table": rows}


PARSERS: dict[str, Callable[[str], Any]] = {
    "text": str,
    "lines": str.splitlines,
    "json": _json,
    "jsonl": _jsonl,
    "yaml": _yaml,
    "csv": lambda text: list(csv.DictReader(io.StringIO(text))),
    "tsv": lambda text: list(csv.DictReader(io.StringIO(text), delimiter="\t")),
    "markdown_table": _markdown_table,
    "fields_table": _fields_table,
    "toml": _toml,
    "ini": _ini,
}
"""Format name (``OutputExpectation.format``) -> parser."""

NOT_LISTS = frozenset({"text", "toml", "ini", "fields_table"})
"""Formats whose parsed value is never a list (a text, or a document that is a table)."""

STRUCTURED = frozenset(PARSERS) - {"text"}
"""Formats whose values are compared structurally rather than as one text."""

TABLES = frozenset({"csv", "tsv", "markdown_table", "fields_table"})
"""Formats whose cells are text that :func:`typed` can read as numbers, booleans and nulls."""

INTEGER = re.compile(r"[+-]?[0-9]+")
DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A number as it is written in a text: sign, digits, decimal point, exponent (a typed cell, a number in a line)."""
BOOLEANS = {"true": True, "false": False}
NULLS = frozenset({"", "null"})
"""Cell texts (stripped, lower-cased) that are null in a typed column."""


def _integer(cell: str) -> Any:
    return int(cell) if INTEGER.fullmatch(cell) else cell


def _decimal(cell: str) -> Any:
    return float(cell) if DECIMAL.fullmatch(cell) else cell


def _inferred(cell: str) -> Any:
    for read in (_integer, _decimal, CELL_TYPES["bool"]):
        if (value := read(cell)) is not cell:
            return value
    return cell


CELL_TYPES: dict[str, Callable[[str], Any]] = {
    "int": _integer,
    "float": _decimal,
    "number": lambda cell: _integer(cell) if INTEGER.fullmatch(cell) else _decimal(cell),
    "bool": lambda cell: BOOLEANS.get(cell.lower(), cell),
    "infer": _inferred,
}
"""Column type -> how a cell (stripped, not null) is read; a cell that is not of the type stays its text."""


def _cell(cell: str, kind: str) -> Any:
    if kind == "text":
        return cell
    stripped = cell.strip()
    return None if stripped.lower() in NULLS else CELL_TYPES[kind](stripped)


def typed(value: Any, cells: dict[str, str]) -> Any:
    """``value`` (a parsed table, or an expected one) with every string under an object key read as the
    type ``cells`` gives that key (``"*"``: every other key; none: ``text``, as written), recursively:
    in a typed column an empty cell or ``null`` (any case) is null, ``int`` / ``float`` / ``number`` /
    ``bool`` cells their value, ``infer`` whichever of those the text spells; a cell that is not of its
    column's type stays its text (and so differs from any expected number)."""
    if not cells or not isinstance(value, dict | list):
        return value
    if isinstance(value, list):
        return [typed(item, cells) for item in value]
    return {key: _cell(item, cells.get(key, cells.get("*", "text"))) if isinstance(item, str) else typed(item, cells)
            for key, item in value.items()}
