#!/usr/bin/env python3
"""LogQL: filter and project an NDJSON log with a small SQL-like query; print the rows as a JSON array."""

from __future__ import annotations

import argparse
import json
import operator
import re
import sys
from dataclasses import dataclass

KEYWORDS = {"SELECT", "FROM", "WHERE", "AND", "OR"}
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
    fields: tuple[Field, ...] | None  # None: SELECT *
    where: object


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

    def query(self) -> Query:
        self.take("keyword", "SELECT")
        fields = None if self.accept("punct", "*") else self.field_list()
        self.take("keyword", "FROM")
        table = self.take("word").text
        where = self.or_expr() if self.accept("keyword", "WHERE") else None
        self.take("end")
        if table != TABLE:
            raise QueryError("E_SEMANTIC", f"unknown table {table!r}: the only table is {TABLE}")
        return Query(fields, where)

    def field_list(self) -> tuple[Field, ...]:
        fields = [self.field()]
        while self.accept("punct", ","):
            fields.append(self.field())
        texts = [field.text for field in fields]
        duplicates = sorted({text for text in texts if texts.count(text) > 1})
        if duplicates:
            raise QueryError("E_SEMANTIC", f"duplicate field in SELECT: {', '.join(duplicates)}")
        return tuple(fields)

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
    if query.fields is None:
        return record
    return {field.text: lookup(record, field.path) for field in query.fields}


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
    return [project(query, record) for record in records(args.log_file)
            if query.where is None or matches(query.where, record)]


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
