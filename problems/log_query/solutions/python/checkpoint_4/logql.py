#!/usr/bin/env python3
"""LogQL: filter, conflate (join), project and aggregate NDJSON logs bound to aliases with a small SQL-like
query, with canonical labels over differently named fields; print the rows as a JSON array."""

from __future__ import annotations

import argparse
import json
import operator
import re
import sys
from dataclasses import dataclass, field, replace
from functools import reduce

KEYWORDS = {"SELECT", "FROM", "WHERE", "AND", "OR", "AS", "GROUP", "BY",
            "CONFLATE", "UPON", "INTERSECTING", "PRESERVING", "LEFT", "RIGHT", "BOTH",
            "GLOSS", "STRICT", "DEFAULT", "CANON"}
LITERALS = {"TRUE": True, "FALSE": False, "NULL": None}
LOG_FILE_ALIAS = "logs"
TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"\\]|\\["\\])*")
  | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?![0-9A-Za-z_.]))
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=|>=|!=|=|<|>)
  | (?P<punct>:=|[,.*(){}|])
""", re.VERBOSE)
ALIAS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FUNCTIONS = {"COUNT": "COUNT", "SUM": "SUM", "AVG": "AVG", "AVERAGE": "AVG", "MIN": "MIN", "MAX": "MAX",
             "UNIQUE": "UNIQUE"}
"""Aggregate names as written (any case) -> the name in output keys."""
PRESERVED = {"LEFT", "RIGHT", "BOTH"}
"""The words after PRESERVING: which unmatched rows a conflation keeps."""
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


def require(condition: bool, message: str) -> None:
    if not condition:
        raise QueryError("E_SEMANTIC", message)


# ------------------------------------------------------------------ tokens

@dataclass
class Token:
    kind: str  # literal, keyword, word, op, punct, end
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
class Scope:
    """The aliases a query binds; ``strict`` when every field must name its alias (CONFLATE present)."""

    anchor: str
    aliases: tuple[str, ...]
    strict: bool
    labels: dict[str, Label | None]  # None: declared, but not usable here

    def resolve(self, ref: Field) -> Field:
        if ref.alias:
            self.known(ref.alias)
            return ref
        head, *rest = ref.path
        if rest and head in self.aliases:
            return replace(ref, alias=head, path=tuple(rest))
        require(not self.strict, f"field {ref.text} must be qualified with one of the aliases "
                f"{', '.join(self.aliases)} where they are conflated")
        return replace(ref, alias=self.anchor)

    def known(self, alias: str) -> str:
        require(alias in self.aliases, f"unknown alias {alias!r} in this query")
        return alias

    def label(self, name: str) -> Label:
        require(name in self.labels, f"CANON.{name} is not declared by GLOSS")
        found = self.labels[name]
        require(found is not None, f"CANON.{name} reads sources other than {self.anchor}: not allowed in WHERE")
        return found


@dataclass
class Field:
    path: tuple[str, ...]
    text: str = field(compare=False)  # as written
    alias: str | None = None

    def bind(self, scope: Scope) -> Field:
        return scope.resolve(self)

    def get(self, row: dict) -> object:
        return lookup(row.get(self.alias), self.path)


@dataclass
class Canon:
    """``CANON.name`` as written; bound, it becomes its label."""

    name: str

    @property
    def text(self) -> str:
        return f"CANON.{self.name}"

    def bind(self, scope: Scope) -> Label:
        return scope.label(self.name)


@dataclass
class Label:
    """A declared canonical label: the first non-null candidate of a row, else the default."""

    name: str
    candidates: tuple[Field, ...]
    default: object
    strict: bool

    @property
    def text(self) -> str:
        return f"CANON.{self.name}"

    def get(self, row: dict) -> object:
        found = [item for item in (ref.get(row) for ref in self.candidates) if item is not None]
        if self.strict and len({signature(item) for item in found}) > 1:
            raise QueryError("E_RUNTIME", f"conflict in {self.text}")
        return found[0] if found else self.default


@dataclass
class Star:
    alias: str
    text: str

    def bind(self, scope: Scope) -> Star:
        scope.known(self.alias)
        return self


@dataclass
class Aggregate:
    function: str
    field: Field | None  # None: COUNT(*)

    @property
    def text(self) -> str:
        return f"{self.function}({self.field.text if self.field else '*'})"

    def bind(self, scope: Scope) -> Aggregate:
        return replace(self, field=self.field and self.field.bind(scope))


@dataclass
class Gloss:
    strict: bool
    declarations: tuple[tuple[str, tuple[Field, ...], object], ...]  # name, candidates, default

    def labels(self, scope: Scope) -> dict[str, Label]:
        names = duplicated([name for name, _, _ in self.declarations])
        require(not names, f"CANON label declared twice: {names}")
        for _, candidates, _ in self.declarations:
            for ref in candidates:
                scope.known(ref.alias)
        return {name: Label(name, candidates, default, self.strict) for name, candidates, default in self.declarations}


@dataclass
class Item:
    expr: Field | Aggregate | Star
    name: str  # the output key

    def bind(self, scope: Scope) -> Item:
        return replace(self, expr=self.expr.bind(scope))


@dataclass
class Compare:
    field: Field | Label
    op: str
    literal: object

    def bind(self, scope: Scope) -> Compare:
        return replace(self, field=self.field.bind(scope))


@dataclass
class Logical:
    op: str
    left: Compare | Logical
    right: Compare | Logical

    def bind(self, scope: Scope) -> Logical:
        return replace(self, left=self.left.bind(scope), right=self.right.bind(scope))


@dataclass
class Conflate:
    flavor: str  # INTERSECTING, LEFT, RIGHT, BOTH
    alias: str
    pairs: tuple[tuple[Field | Canon, Field | Canon], ...]  # qualified fields or labels that must be equal

    def bind(self, scope: Scope) -> Conflate:
        return replace(self, pairs=tuple((left.bind(scope), right.bind(scope)) for left, right in self.pairs))


@dataclass
class Query:
    items: tuple[Item, ...] | None  # None: SELECT *
    anchor: str
    where: Compare | Logical | None
    gloss: Gloss | None
    joins: tuple[Conflate, ...]
    group_by: tuple[Field | Label, ...]

    @property
    def aggregated(self) -> bool:
        return any(isinstance(item.expr, Aggregate) for item in self.items or ())

    @property
    def aliases(self) -> tuple[str, ...]:
        return (self.anchor, *(join.alias for join in self.joins))


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
        anchor = self.take("word").text
        clauses = {"WHERE": None, "GLOSS": None}
        while self.peek().kind == "keyword" and clauses.get(self.peek().text, 0) is None:
            word = self.take("keyword").text
            clauses[word] = self.or_expr() if word == "WHERE" else self.gloss()
        joins = []
        while self.accept("keyword", "CONFLATE"):
            joins.append(self.conflate())
        group_by = self.comma_list(self.ref) if self.accept("keyword", "GROUP") and self.take("keyword", "BY") else ()
        self.take("end")
        return bind(Query(items, anchor, clauses["WHERE"], clauses["GLOSS"], tuple(joins), group_by))

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
        if self.peek().kind == "word" and self.following().text == "." and self.tokens[self.index + 2].text == "*":
            alias = self.take("word").text
            self.index += 2
            return Item(Star(alias, f"{alias}.*"), f"{alias}.*")
        function = self.function()
        expr = self.aggregate(function) if function else self.ref()
        name = self.take("word").text if self.accept("keyword", "AS") else expr.text
        return Item(expr, name)

    def aggregate(self, function: str) -> Aggregate:
        self.index += 2
        star = function == "COUNT" and self.accept("punct", "*")
        ref = None if star else self.ref()
        self.take("punct", ")")
        return Aggregate(function, ref)

    def ref(self) -> Field | Canon:
        """A field, or ``CANON.name``."""
        if not self.accept("keyword", "CANON"):
            return self.field()
        self.take("punct", ".")
        return Canon(self.take("word").text)

    def gloss(self) -> Gloss:
        strict = self.accept("keyword", "STRICT")
        self.take("punct", "{")
        declarations = self.comma_list(self.declaration)
        self.take("punct", "}")
        return Gloss(strict, declarations)

    def declaration(self) -> tuple[str, tuple[Field, ...], object]:
        name = self.take("word").text
        self.take("punct", ":=")
        candidates = [self.qualified()]
        while self.accept("punct", "|"):
            candidates.append(self.qualified())
        default = self.take("literal").value if self.accept("keyword", "DEFAULT") else None
        return name, tuple(candidates), default

    def field(self) -> Field:
        path = [self.take("word").text]
        while self.accept("punct", "."):
            path.append(self.take("word").text)
        return Field(tuple(path), ".".join(path))

    def qualified(self) -> Field:
        ref = self.field()
        if len(ref.path) < 2:
            raise QueryError("E_PARSE", f"expected alias.field, found {ref.text!r}")
        return replace(ref, alias=ref.path[0], path=ref.path[1:])

    def conflate(self) -> Conflate:
        flavor = "INTERSECTING"
        if self.accept("keyword", "PRESERVING"):
            flavor = self.take("keyword").text
            if flavor not in PRESERVED:
                raise QueryError("E_PARSE", f"expected LEFT, RIGHT or BOTH after PRESERVING, found {flavor}")
        else:
            self.accept("keyword", "INTERSECTING")
        alias = self.take("word").text
        self.take("keyword", "UPON")
        pairs = [self.equality()]
        while self.accept("keyword", "AND"):
            pairs.append(self.equality())
        return Conflate(flavor, alias, tuple(pairs))

    def side(self) -> Field | Canon:
        return self.ref() if self.peek().text == "CANON" else self.qualified()

    def equality(self) -> tuple[Field | Canon, Field | Canon]:
        left = self.side()
        self.take("op", "=")
        return left, self.side()

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
        ref = self.ref()
        op = self.take("op").text
        return Compare(ref, op, self.take("literal").value)


# ------------------------------------------------------------------ semantic rules

def duplicated(texts: list) -> str:
    return ", ".join(sorted({str(text) for text in texts if texts.count(text) > 1}))


def check_join(join: Conflate, earlier: tuple[str, ...]) -> None:
    require(join.alias not in earlier, f"alias {join.alias!r} is conflated twice")
    for left, right in join.pairs:
        sides = [ref.alias for ref in (left, right) if isinstance(ref, Field)]
        require(set(sides) <= {*earlier, join.alias} and len(set(sides)) == len(sides)
                and (not sides or join.alias in sides),
                f"UPON {left.text} = {right.text} must compare {join.alias} with an earlier alias")


def anchored(label: Label, anchor: str) -> Label | None:
    return label if all(ref.alias == anchor for ref in label.candidates) else None


def bind(query: Query) -> Query:
    """Qualify every field with its alias, every CANON reference with its label, and check the query's rules."""
    for index, join in enumerate(query.joins):
        check_join(join, query.aliases[:index + 1])
    scope = Scope(query.anchor, query.aliases, bool(query.joins), {})
    labels = query.gloss.labels(scope) if query.gloss else {}
    scope = replace(scope, labels=labels)
    where_scope = Scope(query.anchor, (query.anchor,), scope.strict,
                        {name: anchored(label, query.anchor) for name, label in labels.items()})
    bound = replace(query, items=query.items and tuple(item.bind(scope) for item in query.items),
                    where=query.where and query.where.bind(where_scope),
                    joins=tuple(join.bind(scope) for join in query.joins),
                    group_by=tuple(ref.bind(scope) for ref in query.group_by))
    check(bound)
    return bound


def check_names(query: Query) -> None:
    items = query.items or ()
    names = duplicated([item.name for item in items])
    require(not names, f"duplicate output key: {names}")
    stars = tuple(f"{item.expr.alias}." for item in items if isinstance(item.expr, Star))
    clashing = [item.name for item in items if not isinstance(item.expr, Star) and item.name.startswith(stars)]
    require(not clashing, f"duplicate output key: {', '.join(clashing)} is also part of its alias's .*")


def check(query: Query) -> None:
    """The rules a well-formed query must also follow."""
    check_names(query)
    grouped = [ref.text for ref in query.group_by if query.group_by.count(ref) > 1]
    require(not grouped, f"duplicate field in GROUP BY: {', '.join(grouped)}")
    require(query.items is not None or not query.joins, "SELECT * cannot be used with CONFLATE; use alias.*")
    items = query.items or ()
    plain = [item.expr for item in items if not isinstance(item.expr, Aggregate)]
    if not query.aggregated:
        require(not query.group_by, "GROUP BY needs an aggregate in SELECT")
        fields = duplicated([ref.text for ref in plain])
        require(not fields, f"duplicate field in SELECT: {fields}")
        return
    require(query.items is not None, "SELECT * cannot be used with aggregates")
    require(bool(query.group_by) or not plain, "without GROUP BY, every selected item must be an aggregate")
    missing = [ref.text for ref in plain if ref not in query.group_by]
    require(not missing, f"selected items must appear in GROUP BY: {', '.join(missing)}")


# ------------------------------------------------------------------ values

def lookup(record: object, path: tuple[str, ...]) -> object:
    """The value at a dotted path; null when a part is missing or the value on the way is not an object."""
    for part in path:
        record = record.get(part) if isinstance(record, dict) else None
    return record


def kind_of(item: object) -> str:
    if item is None or isinstance(item, (bool, str)):
        return type(item).__name__
    return "number" if isinstance(item, (int, float)) else "container"


def compare(left: object, op: str, right: object) -> bool:
    """Same-type comparison: objects and arrays never compare, ordering only for numbers and strings,
    ``!=`` is the negation of ``=``."""
    kinds = {kind_of(left), kind_of(right)}
    if op in ORDERED:
        return kinds in ({"number"}, {"str"}) and ORDERED[op](left, right)
    return "container" not in kinds and (len(kinds) == 1 and left == right) == (op == "=")


def signature(item: object) -> object:
    """A hashable key equal for deeply equal values (object key order ignored, 1 equal to 1.0, true not 1)."""
    if isinstance(item, dict):
        return "object", tuple(sorted((key, signature(member)) for key, member in item.items()))
    if isinstance(item, list):
        return "array", tuple(map(signature, item))
    return kind_of(item), item


def matches(expr, row: dict) -> bool:
    if isinstance(expr, Logical):
        if expr.op == "AND":
            return matches(expr.left, row) and matches(expr.right, row)
        return matches(expr.left, row) or matches(expr.right, row)
    return compare(expr.field.get(row), expr.op, expr.literal)


# ------------------------------------------------------------------ conflation

@dataclass
class Source:
    records: list[dict]
    keys: tuple[str, ...]  # every top-level key, in first-seen order


def accepts(join: Conflate, row: dict) -> bool:
    """Every UPON equality holds: same type and deeply equal, null (or missing) equal to null."""
    return all(signature(left.get(row)) == signature(right.get(row)) for left, right in join.pairs)


def joined(join: Conflate, rows: list[dict], source: Source) -> list[dict]:
    """Each row with every record of ``source`` its UPON accepts, in file order; PRESERVING keeps unmatched
    rows (null-padded) in place and appends the records no row matched."""
    out, matched = [], set()
    for row in rows:
        found = [index for index, record in enumerate(source.records) if accepts(join, {**row, join.alias: record})]
        matched.update(found)
        out += [{**row, join.alias: source.records[index]} for index in found]
        if not found and join.flavor in ("LEFT", "BOTH"):
            out.append({**row, join.alias: None})
    if join.flavor in ("RIGHT", "BOTH"):
        out += [{join.alias: record}
                for index, record in enumerate(source.records) if index not in matched]
    return out


# ------------------------------------------------------------------ aggregation

def unique(values: list) -> list:
    seen = {}
    for item in values:
        seen.setdefault(signature(item), item)
    return list(seen.values())


def numbers(values: list) -> list:
    return [item for item in values if kind_of(item) == "number"]


def total(values: list) -> object:
    found = numbers(values)
    return reduce(operator.add, found) if found else None


def average(values: list) -> object:
    found = numbers(values)
    return reduce(operator.add, found, 0.0) / len(found) if found else None


def extreme(pick):
    """MIN or MAX: over the numbers when there are any, else over the strings, else null."""
    def over(values: list) -> object:
        found = numbers(values) or [item for item in values if isinstance(item, str)]
        return pick(found) if found else None
    return over


AGGREGATES = {
    "COUNT": lambda values: sum(item is not None for item in values),
    "SUM": total,
    "AVG": average,
    "MIN": extreme(min),
    "MAX": extreme(max),
    "UNIQUE": unique,
}


def group_value(ref: Field, row: dict) -> object:
    found = ref.get(row)
    return None if kind_of(found) == "container" else found


def aggregate(call: Aggregate, rows: list[dict]) -> object:
    values = rows if call.field is None else [call.field.get(row) for row in rows]
    return AGGREGATES[call.function](values)


def output_row(query: Query, key: tuple, rows: list[dict]) -> dict:
    return {item.name: aggregate(item.expr, rows) if isinstance(item.expr, Aggregate)
            else key[query.group_by.index(item.expr)] for item in query.items}


def grouped(query: Query, rows: list[dict]) -> list[dict]:
    """One output row per group, groups in first-seen order; one row for a global aggregate."""
    if not query.group_by:
        return [output_row(query, (), rows)]
    groups: dict[object, tuple[tuple, list[dict]]] = {}
    for row in rows:
        key = tuple(group_value(ref, row) for ref in query.group_by)
        groups.setdefault(signature(list(key)), (key, []))[1].append(row)
    return [output_row(query, key, members) for key, members in groups.values()]


def project(query: Query, row: dict, sources: dict[str, Source]) -> dict:
    if query.items is None:
        return row.get(query.anchor)
    out = {}
    for item in query.items:
        if isinstance(item.expr, Star):
            record = row.get(item.expr.alias) or {}
            out.update({f"{item.expr.alias}.{key}": record.get(key) for key in sources[item.expr.alias].keys})
        else:
            out[item.name] = item.expr.get(row)
    return out


def execute(query: Query, sources: dict[str, Source]) -> list:
    for alias in query.aliases:
        require(alias in sources, f"alias {alias!r} is not bound by --source or --log-file")
    rows = [row for row in ({query.anchor: record} for record in sources[query.anchor].records)
            if query.where is None or matches(query.where, row)]
    for join in query.joins:
        rows = joined(join, rows, sources[join.alias])
    if query.aggregated:
        return grouped(query, rows)
    return [project(query, row, sources) for row in rows]


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


def read_source(path: str) -> Source:
    """The records of an NDJSON file, in order, blank lines skipped."""
    try:
        with open(path, encoding="utf-8") as handle:
            records = [parse_record(line) for line in handle if line.strip()]
    except (OSError, UnicodeDecodeError) as error:
        raise QueryError("E_IO", f"cannot read {path}: {error}") from error
    return Source(records, tuple(dict.fromkeys(key for record in records for key in record)))


def bindings(args: argparse.Namespace) -> dict[str, str]:
    """alias -> path from ``--log-file`` and every ``--source alias=path``."""
    pairs = [(LOG_FILE_ALIAS, args.log_file)] if args.log_file else []
    for binding in args.source:
        alias, equals, path = binding.partition("=")
        require(bool(equals and path) and ALIAS.fullmatch(alias), f"--source {binding!r} is not alias=path")
        pairs.append((alias, path))
    bound: dict[str, str] = {}
    for alias, path in pairs:
        require(bound.setdefault(alias, path) == path, f"alias {alias!r} is bound to two files")
    require(bool(bound), "give --log-file or at least one --source")
    return bound


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
    parser.add_argument("--log-file")
    parser.add_argument("--source", action="append", default=[])
    parser.add_argument("--query", required=True)
    parser.add_argument("--output")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    """Run the command line; on a QueryError exit 1 with its JSON line on standard error."""
    try:
        args = parse_args(argv)
        bound = bindings(args)
        query = Parser(args.query).query()
        write(execute(query, {alias: read_source(path) for alias, path in bound.items()}), args.output)
    except QueryError as error:
        sys.exit(json.dumps({"error": f"LOGQL_ERROR: {error}", "code": error.code}))


if __name__ == "__main__":
    main(sys.argv[1:])
