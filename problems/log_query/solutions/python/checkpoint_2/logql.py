#!/usr/bin/env python3
"""LogQL: filter, project and aggregate an NDJSON log with a small SQL-like query; print the rows as a JSON
array."""

from __future__ import annotations

import argparse
import json
import operator
import re
import sys
from dataclasses import dataclass
from functools import reduce

KEYWORDS = {"SELECT", "FROM", "WHERE", "AND", "OR", "AS", "GROUP", "BY"}
LITERALS = {"TRUE": True, "FALSE": False, "NULL": None}
TABLE = "logs"
TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"\\]|\\["\\])*")
  | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?![0-9A-Za-z_.]))
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=|>=|!=|=|<|>)
  | (?P<punct>[,.*()])
""", re.VERBOSE)
FUNCTIONS = {"COUNT": "COUNT", "SUM": "SUM", "AVG": "AVG", "AVERAGE": "AVG", "MIN": "MIN", "MAX": "MAX",
             "UNIQUE": "UNIQUE"}
"""Aggregate names as written (any case) -> the name in output keys."""
ORDERED = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class QueryError(Exception):
    """Any failure: its machine code (E_PARSE, E_SEMANTIC, E_IO, E_RUNTIME) and a message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad command line as a QueryError instead of exiting."""

    def error(self, message: str):
        raise QueryError("E_SEMANTIC", message)


# ------------------------------------------------------------------ tokens

@dataclass
class Token:
    kind: str  # string, number, literal, keyword, word, op, punct, end
    text: str
    value: object = None


def word_token(text: str) -> Token:
    upper = text.upper()
    if upper in LITERALS:
        return Token("literal", text, LITERALS[upper])
    if upper in KEYWORDS:
        return Token("keyword", upper)
    return Token("word", text)


def make_token(kind: str, text: str) -> Token:
    if kind == "word":
        return word_token(text)
    if kind == "string":
        return Token("literal", text, re.sub(r"\\(.)", r"\1", text[1:-1]))
    if kind == "number":
        return Token("literal", text, float(text) if "." in text else int(text))
    return Token(kind, text)


def tokenize(query: str) -> list[Token]:
    tokens, position = [], 0
    while position < len(query):
        found = TOKEN.match(query, position)
        if not found:
            raise QueryError("E_PARSE", f"unexpected character {query[position]!r} at {position}")
        if found.lastgroup != "space":
            tokens.append(make_token(found.lastgroup, found.group()))
        position = found.end()
    return [*tokens, Token("end", "end of query")]


# ------------------------------------------------------------------ syntax

@dataclass
class Field:
    path: tuple[str, ...]

    @property
    def text(self) -> str:
        return ".".join(self.path)


@dataclass
class Aggregate:
    function: str
    field: Field | None  # None: COUNT(*)

    @property
    def text(self) -> str:
        return f"{self.function}({self.field.text if self.field else '*'})"


@dataclass
class Item:
    expr: Field | Aggregate
    name: str  # the output key


@dataclass
class Compare:
    field: Field
    op: str
    literal: object


@dataclass
class Logical:
    op: str
    left: object
    right: object


@dataclass
class Query:
    items: tuple[Item, ...] | None  # None: SELECT *
    where: object
    group_by: tuple[Field, ...]

    @property
    def aggregated(self) -> bool:
        return any(isinstance(item.expr, Aggregate) for item in self.items or ())


class Parser:
    """Recursive descent over the token list."""

    def __init__(self, query: str) -> None:
        self.tokens = tokenize(query)
        self.index = 0

    def peek(self) -> Token:
        return self.tokens[self.index]

    def take(self, kind: str, text: str | None = None) -> Token:
        token = self.peek()
        if token.kind != kind or text not in (None, token.text):
            raise QueryError("E_PARSE", f"unexpected {token.text!r}")
        self.index += 1
        return token

    def accept(self, kind: str, text: str) -> bool:
        token = self.peek()
        found = token.kind == kind and token.text == text
        self.index += found
        return found

    def following(self) -> Token:
        return self.tokens[self.index + 1]

    def query(self) -> Query:
        self.take("keyword", "SELECT")
        items = None if self.accept("punct", "*") else self.comma_list(self.item)
        self.take("keyword", "FROM")
        table = self.take("word").text
        where = self.or_expr() if self.accept("keyword", "WHERE") else None
        group_by = self.comma_list(self.field) if self.accept("keyword", "GROUP") and self.take("keyword", "BY") else ()
        self.take("end")
        if table != TABLE:
            raise QueryError("E_SEMANTIC", f"unknown table {table!r}: the only table is {TABLE}")
        query = Query(items, where, group_by)
        check(query)
        return query

    def comma_list(self, parse) -> tuple:
        found = [parse()]
        while self.accept("punct", ","):
            found.append(parse())
        return tuple(found)

    def function(self) -> str | None:
        """The aggregate's name when the next two tokens open an aggregate call."""
        token = self.peek()
        return FUNCTIONS.get(token.text.upper()) if token.kind == "word" and self.following().text == "(" else None

    def item(self) -> Item:
        function = self.function()
        expr = self.aggregate(function) if function else self.field()
        name = self.take("word").text if self.accept("keyword", "AS") else expr.text
        return Item(expr, name)

    def aggregate(self, function: str) -> Aggregate:
        self.index += 2
        star = function == "COUNT" and self.accept("punct", "*")
        field = None if star else self.field()
        self.take("punct", ")")
        return Aggregate(function, field)

    def field(self) -> Field:
        path = [self.take("word").text]
        while self.accept("punct", "."):
            path.append(self.take("word").text)
        return Field(tuple(path))

    def or_expr(self):
        expr = self.and_expr()
        while self.accept("keyword", "OR"):
            expr = Logical("OR", expr, self.and_expr())
        return expr

    def and_expr(self):
        expr = self.primary()
        while self.accept("keyword", "AND"):
            expr = Logical("AND", expr, self.primary())
        return expr

    def primary(self):
        if self.accept("punct", "("):
            expr = self.or_expr()
            self.take("punct", ")")
            return expr
        field = self.field()
        op = self.take("op").text
        return Compare(field, op, self.take("literal").value)


def duplicated(texts: list[str]) -> str:
    return ", ".join(sorted({text for text in texts if texts.count(text) > 1}))


def require(condition: bool, message: str) -> None:
    if not condition:
        raise QueryError("E_SEMANTIC", message)


def check(query: Query) -> None:
    """The rules a well-formed query must also follow."""
    items = query.items or ()
    names = duplicated([item.name for item in items])
    require(not names, f"duplicate output key: {names}")
    grouped = duplicated([field.text for field in query.group_by])
    require(not grouped, f"duplicate field in GROUP BY: {grouped}")
    plain = [item.expr for item in items if isinstance(item.expr, Field)]
    if not query.aggregated:
        require(not query.group_by, "GROUP BY needs an aggregate in SELECT")
        fields = duplicated([field.text for field in plain])
        require(not fields, f"duplicate field in SELECT: {fields}")
        return
    require(query.items is not None, "SELECT * cannot be used with aggregates")
    require(bool(query.group_by) or not plain, "without GROUP BY, every selected item must be an aggregate")
    missing = [field.text for field in plain if field not in query.group_by]
    require(not missing, f"selected fields must appear in GROUP BY: {', '.join(missing)}")


# ------------------------------------------------------------------ evaluation

def lookup(record: object, path: tuple[str, ...]) -> object:
    """The value at a dotted path; null when a part is missing or the value on the way is not an object."""
    for part in path:
        record = record.get(part) if isinstance(record, dict) else None
    return record


def kind_of(value: object) -> str:
    if value is None or isinstance(value, (bool, str)):
        return type(value).__name__
    return "number" if isinstance(value, (int, float)) else "container"


def compare(left: object, op: str, right: object) -> bool:
    """Same-type comparison: objects and arrays never compare, ordering only for numbers and strings,
    ``!=`` is the negation of ``=``."""
    kinds = {kind_of(left), kind_of(right)}
    if op in ORDERED:
        return kinds in ({"number"}, {"str"}) and ORDERED[op](left, right)
    return "container" not in kinds and (len(kinds) == 1 and left == right) == (op == "=")


def matches(expr, record: dict) -> bool:
    if isinstance(expr, Logical):
        if expr.op == "AND":
            return matches(expr.left, record) and matches(expr.right, record)
        return matches(expr.left, record) or matches(expr.right, record)
    return compare(lookup(record, expr.field.path), expr.op, expr.literal)


def project(query: Query, record: dict) -> dict:
    if query.items is None:
        return record
    return {item.name: lookup(record, item.expr.path) for item in query.items}


def signature(value: object) -> object:
    """A hashable key equal for deeply equal values (object key order ignored, 1 equal to 1.0, true not 1)."""
    if isinstance(value, dict):
        return "object", tuple(sorted((key, signature(item)) for key, item in value.items()))
    if isinstance(value, list):
        return "array", tuple(map(signature, value))
    return kind_of(value), value


def unique(values: list) -> list:
    seen = {}
    for value in values:
        seen.setdefault(signature(value), value)
    return list(seen.values())


def numbers(values: list) -> list:
    return [value for value in values if kind_of(value) == "number"]


def total(values: list) -> object:
    found = numbers(values)
    return reduce(operator.add, found) if found else None


def average(values: list) -> object:
    found = numbers(values)
    return reduce(operator.add, found, 0.0) / len(found) if found else None


def extreme(pick):
    """MIN or MAX: over the numbers when there are any, else over the strings, else null."""
    def over(values: list) -> object:
        found = numbers(values) or [value for value in values if isinstance(value, str)]
        return pick(found) if found else None
    return over


AGGREGATES = {
    "COUNT": lambda values: sum(value is not None for value in values),
    "SUM": total,
    "AVG": average,
    "MIN": extreme(min),
    "MAX": extreme(max),
    "UNIQUE": unique,
}


def group_value(record: dict, field: Field) -> object:
    value = lookup(record, field.path)
    return None if kind_of(value) == "container" else value


def aggregate(aggregate: Aggregate, rows: list[dict]) -> object:
    values = rows if aggregate.field is None else [lookup(row, aggregate.field.path) for row in rows]
    return AGGREGATES[aggregate.function](values)


def output_row(query: Query, key: tuple, rows: list[dict]) -> dict:
    return {item.name: aggregate(item.expr, rows) if isinstance(item.expr, Aggregate)
            else key[query.group_by.index(item.expr)] for item in query.items}


def grouped(query: Query, rows: list[dict]) -> list[dict]:
    """One output row per group, groups in first-seen order; one row for a global aggregate."""
    if not query.group_by:
        return [output_row(query, (), rows)]
    groups: dict[object, tuple[tuple, list[dict]]] = {}
    for row in rows:
        key = tuple(group_value(row, field) for field in query.group_by)
        groups.setdefault(signature(list(key)), (key, []))[1].append(row)
    return [output_row(query, key, members) for key, members in groups.values()]


# ------------------------------------------------------------------ input and output

def reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def parse_record(line: str) -> dict:
    try:
        record = json.loads(line, parse_constant=reject_constant)
    except ValueError as error:
        raise QueryError("E_RUNTIME", f"not valid JSON: {line.strip()!r}: {error}") from error
    if not isinstance(record, dict):
        raise QueryError("E_RUNTIME", f"not a JSON object: {line.strip()!r}")
    return record


def records(path: str):
    """The records of an NDJSON file, in order, blank lines skipped."""
    try:
        with open(path, encoding="utf-8") as handle:
            yield from (parse_record(line) for line in handle if line.strip())
    except (OSError, UnicodeDecodeError) as error:
        raise QueryError("E_IO", f"cannot read {path}: {error}") from error


def run(args: argparse.Namespace) -> list:
    query = Parser(args.query).query()
    rows = [record for record in records(args.log_file) if query.where is None or matches(query.where, record)]
    if query.aggregated:
        return grouped(query, rows)
    return [project(query, row) for row in rows]


def write(rows: list, output: str | None) -> None:
    text = json.dumps(rows)
    if output is None:
        sys.stdout.write(text + "\n")
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise QueryError("E_IO", f"cannot write {output}: {error}") from error


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="logql", description=__doc__, allow_abbrev=False)
    parser.add_argument("--log-file", required=True)
    parser.add_argument("--query", required=True)
    parser.add_argument("--output")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    """Run the command line; on a QueryError exit 1 with its JSON line on standard error."""
    try:
        args = parse_args(argv)
        write(run(args), args.output)
    except QueryError as error:
        sys.exit(json.dumps({"error": f"LOGQL_ERROR: {error}", "code": error.code}))


if __name__ == "__main__":
    main(sys.argv[1:])
