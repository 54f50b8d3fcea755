"""Reference for metric_transform_lang checkpoint 5: checkpoint 4's tool, plus a mandatory version header
(``mtl_version MAJOR.MINOR``) gating the features of each part, a resumable state per pipeline
(``--state-dir``, ``--resume``: file fingerprints, DSL and config digests, watermarks) and a metadata
document of the run (``--meta-out``); exit code 6 for version and resume errors."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import glob
import gzip
import hashlib
import json
import math
import operator
import os
import re
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import jsonschema
import xxhash
import yaml

KINDS = {1: "bad_dsl", 2: "type_error", 3: "bad_io", 4: "runtime_error", 5: "config_error", 6: "artifact_error"}
RUNTIME = "1.5.0"
SUPPORTED = (1, 5)
LEGACY_TYPES = {"timestamp": "timestamp", "location": "string", "item": "string", "price": "float",
                "quantity": "float", "unit": "string", "category": "string"}
TYPES = ("string", "int", "float", "bool", "timestamp")
NUMERIC = ("int", "float")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
UNITS = {"m": 60, "h": 3600, "d": 86400}
KEYWORDS = ("filter", "apply", "group_by", "window", "calc", "aggregate", "schema", "pipeline", "params", "}")
TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|"
                   r"(?P<str>'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")|"
                   r"(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)|(?P<op><=|>=|==|!=|[<>()&|!,+\-*/])|(?P<bad>\S))")
WORDS = {"true": True, "false": False, "null": None}


class MtlError(Exception):
    """An error with its exit code (1 bad_dsl, 2 type_error, 3 bad_io, 4 runtime_error, 5 config_error,
    6 artifact_error)."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------ expressions

@dataclass
class Expr:
    kind: str            # lit, col, bin, neg, cmp, and, or, not, in, call, cast
    value: object = None
    args: list = field(default_factory=list)


def string_value(text: str) -> str:
    quote, body = text[0], text[1:-1]
    return re.sub(r"\\(.)|" + quote * 2, lambda m: m.group(1) or quote, body)


def number_value(text: str) -> int | float:
    return float(text) if re.search(r"[.eE]", text) else int(text)


class ExprParser:
    """or := and ('|' and)*; and := cmp ('&' cmp)*; cmp := sum [('in' | relop) sum];
    sum := product (('+'|'-') product)*; product := unary (('*'|'/') unary)*; unary := ('!'|'-') unary | primary."""

    def __init__(self, text: str):
        self.tokens = []
        for match in TOKEN.finditer(text):
            if match.group("bad"):
                raise MtlError(1, f"unexpected character {match.group('bad')!r}")
            self.tokens.append((match.lastgroup, match.group(match.lastgroup)))
        self.tokens.append(("end", None))
        self.at = 0

    def peek(self):
        return self.tokens[self.at]

    def take(self):
        self.at += 1
        return self.tokens[self.at - 1]

    def expect(self, token) -> None:
        if self.take() != token:
            raise MtlError(1, f"expected {token[1]!r}")

    def parse(self) -> Expr:
        expr = self.disjunction()
        if self.peek()[0] != "end":
            raise MtlError(1, f"unexpected {self.peek()[1]!r} in expression")
        return expr

    def chain(self, operators: dict, operand) -> Expr:
        expr = operand()
        while self.peek()[0] == "op" and self.peek()[1] in operators:
            operator = self.take()[1]
            expr = Expr(operators[operator], operator, [expr, operand()])
        return expr

    def disjunction(self) -> Expr:
        return self.chain({"|": "or"}, self.conjunction)

    def conjunction(self) -> Expr:
        return self.chain({"&": "and"}, self.comparison)

    def comparison(self) -> Expr:
        left = self.sum()
        kind, text = self.peek()
        if kind == "name" and text.lower() == "in":
            self.take()
            right = self.sum()
            if not (left.kind == "lit" and isinstance(left.value, str)) or right.kind != "col":
                raise MtlError(1, "'in' takes a string literal on the left and a column on the right")
            return Expr("in", args=[left, right])
        if kind == "op" and text in ("<", "<=", ">", ">=", "==", "!="):
            self.take()
            return Expr("cmp", text, [left, self.sum()])
        return left

    def sum(self) -> Expr:
        return self.chain({"+": "bin", "-": "bin"}, self.product)

    def product(self) -> Expr:
        return self.chain({"*": "bin", "/": "bin"}, self.unary)

    def unary(self) -> Expr:
        if self.peek() in (("op", "!"), ("op", "-")):
            kind = "not" if self.take()[1] == "!" else "neg"
            return Expr(kind, args=[self.unary()])
        return self.primary()

    def primary(self) -> Expr:
        kind, text = self.take()
        if kind == "num":
            return Expr("lit", number_value(text))
        if kind == "str":
            return Expr("lit", string_value(text))
        if kind == "name" and text.lower() in WORDS:
            return Expr("lit", WORDS[text.lower()])
        if kind == "name" and text.lower() not in ("in", "as"):
            return self.call(text) if self.peek() == ("op", "(") else Expr("col", text)
        if (kind, text) == ("op", "("):
            expr = self.disjunction()
            self.expect(("op", ")"))
            return expr
        raise MtlError(1, f"unexpected {text!r} in expression")

    def call(self, function: str) -> Expr:
        self.take()
        if function.lower() == "cast":
            inner = self.disjunction()
            kind, text = self.take()
            target = self.take()
            if kind != "name" or text.lower() != "as" or target[0] != "name" or target[1].lower() not in TYPES:
                raise MtlError(1, "cast is cast(<expr> as <type>)")
            self.expect(("op", ")"))
            return Expr("cast", target[1].lower(), [inner])
        args = []
        while self.peek() != ("op", ")"):
            args.append(self.disjunction())
            if self.peek() != ("op", ")"):
                self.expect(("op", ","))
        self.take()
        return Expr("call", function.lower(), args)


def parse_expr(text: str) -> Expr:
    return ExprParser(text).parse()


# --------------------------------------------------------------------- program

@dataclass
class Param:
    name: str
    type: str
    default: object = None
    has_default: bool = False


@dataclass
class Pipeline:
    name: str = "pipeline"                          # a program without blocks is named pipeline
    schema: str | None = None                       # None: a program without blocks (checkpoint 1 form)
    params: list = field(default_factory=list)
    steps: list = field(default_factory=list)       # ("filter", e) | ("apply", e, name) | ("calc", name, e, type)
    group_by: list | None = None
    group_at: int = 0
    window: int | None = None
    window_at: int = 0
    aggregates: list | None = None                  # (fn, column or None, alias)
    aggregate_at: int = 0
    post: list = field(default_factory=list)        # (name, expr, type)
    sources: dict | None = None                     # alias -> source name of the ingest config
    scoped: dict = field(default_factory=dict)      # alias -> Pipeline holding its `with` block's steps
    joins: list = field(default_factory=list)       # Join, in order


@dataclass
class Join:
    """``join <left> with <right> on (<on>) [within <seconds>] type <kind> project {...} [as <name>]``."""

    left: str
    right: str
    on: Expr
    within: int | None
    kind: str
    project: list                                    # (expr, column name)
    name: str | None


@dataclass
class Schema:
    name: str
    base: str | None
    fields: list                                     # (name, type, expr or None)


def statements(text: str) -> list[str]:
    """Non-empty, non-comment lines; an indented line not starting with a keyword continues an aggregate."""
    found: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        continues = found and found[-1].startswith("aggregate") and line[:1].isspace()
        if continues and not stripped.lower().startswith(KEYWORDS):
            found[-1] += " " + stripped
        else:
            found.append(stripped)
    return found


def inside(text: str, keyword: str) -> str:
    if not (text.startswith(keyword + "(") and text.endswith(")")) or not text[len(keyword) + 1:-1].strip():
        raise MtlError(1, f"{keyword} needs (...) with something inside")
    return text[len(keyword) + 1:-1].strip()


def name(text: str) -> str:
    if not NAME.match(text.strip()):
        raise MtlError(1, f"{text.strip()!r} is not a name")
    return text.strip()


def type_name(text: str) -> str:
    if text.strip().lower() not in TYPES:
        raise MtlError(1, f"unknown type {text.strip()!r}")
    return text.strip().lower()


def split_top(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def open_block(pipeline: Pipeline) -> None:
    if pipeline.aggregates is not None:
        raise MtlError(1, "only post_agg calcs may follow aggregate")


def parse_filter(text: str, pipeline: Pipeline) -> None:
    open_block(pipeline)
    pipeline.steps.append(("filter", parse_expr(inside(text, "filter"))))


def parse_apply(text: str, pipeline: Pipeline) -> None:
    open_block(pipeline)
    parts = split_top(inside(text, "apply"))
    if len(parts) != 2:
        raise MtlError(1, "apply takes an expression and a new column name")
    pipeline.steps.append(("apply", parse_expr(parts[0]), name(parts[1])))


def parse_group_by(text: str, pipeline: Pipeline) -> None:
    open_block(pipeline)
    if pipeline.group_by is not None:
        raise MtlError(1, "group_by given twice")
    body = inside(text, "group_by")
    columns = body[1:-1].split(",") if body.startswith("[") and body.endswith("]") else [body]
    pipeline.group_by = [name(re.sub(r"^(['\"])(.*)\1$", r"\2", column.strip())) for column in columns]
    pipeline.group_at = len(pipeline.steps)


def parse_window(text: str, pipeline: Pipeline) -> None:
    open_block(pipeline)
    if pipeline.window is not None:
        raise MtlError(1, "window given twice")
    match = re.fullmatch(r"(\d+)([mhd])", inside(text, "window"))
    if not match or int(match.group(1)) == 0:
        raise MtlError(1, "window takes a positive duration such as 10m, 1h or 7d")
    pipeline.window = int(match.group(1)) * UNITS[match.group(2)]
    pipeline.window_at = len(pipeline.steps)


def parse_aggregate(text: str, pipeline: Pipeline) -> None:
    if pipeline.aggregates is not None:
        raise MtlError(1, "aggregate given twice")
    pipeline.aggregates = []
    pipeline.aggregate_at = len(pipeline.steps)
    for entry in split_top(text[len("aggregate"):]):
        match = re.fullmatch(r"\s*(sum|average|median|count|std|var|min|max)\(\s*([^()]*?)\s*\)\s+as\s+(\w+)\s*",
                             entry)
        if not match or (match.group(2) == "*") > (match.group(1) == "count"):
            raise MtlError(1, f"bad aggregate entry {entry.strip()!r}")
        function, column, alias = match.groups()
        if alias in {a for _, _, a in pipeline.aggregates}:
            raise MtlError(1, f"alias {alias} given twice")
        pipeline.aggregates.append((function, None if column == "*" else name(column), alias))


def parse_calc(text: str, pipeline: Pipeline) -> None:
    match = re.fullmatch(r"calc\s+(.*?)=(.*):([^:]*)@stage\(\s*(\w*)\s*\)", text, re.S)
    if not match or match.group(4) not in ("pre", "post_agg"):
        raise MtlError(1, "calc is calc <name> = <expr> : <type> @stage(pre|post_agg)")
    calc_name, expr, kind = name(match.group(1)), parse_expr(match.group(2)), type_name(match.group(3))
    if match.group(4) == "post_agg":
        if pipeline.aggregates is None:
            raise MtlError(1, "a post_agg calc comes after aggregate")
        pipeline.post.append((calc_name, expr, kind))
        return
    open_block(pipeline)
    pipeline.steps.append(("calc", calc_name, expr, kind))


STATEMENTS = {"filter": parse_filter, "apply": parse_apply, "group_by": parse_group_by, "window": parse_window,
              "aggregate": parse_aggregate, "calc": parse_calc}


def parse_statements(lines: list[str], pipeline: Pipeline) -> Pipeline:
    for text in lines:
        keyword = re.match(r"[a-z_]*", text).group(0)
        if keyword not in STATEMENTS:
            raise MtlError(1, f"unknown statement {text!r}")
        STATEMENTS[keyword](text, pipeline)
    if pipeline.aggregates is None:
        raise MtlError(1, "an aggregate statement is required")
    return pipeline


def block(source: str, start: int, pair: str = "{}") -> tuple[str, int]:
    """The text inside the ``pair`` (braces by default) opening at or after ``start`` and the position after it."""
    opening = source.find(pair[0], start)
    if opening < 0 or source[start:opening].strip():
        raise MtlError(1, f"expected '{pair[0]}'")
    depth = 0
    for position in range(opening, len(source)):
        depth += {pair[0]: 1, pair[1]: -1}.get(source[position], 0)
        if depth == 0:
            return source[opening + 1:position], position + 1
    raise MtlError(1, f"missing '{pair[1]}'")


def parse_schema_body(body: str, schema: str) -> list:
    fields = []
    for line in body.splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        match = re.fullmatch(r"([^:=]*):([^=]*)(?:=(.*))?", text)
        if not match:
            raise MtlError(1, f"bad field {text!r} in schema {schema}")
        expr = match.group(3)
        if expr is not None and not expr.strip():
            raise MtlError(1, f"empty expression in schema {schema}")
        fields.append((name(match.group(1)), type_name(match.group(2)), parse_expr(expr) if expr else None))
    if not fields:
        raise MtlError(1, f"schema {schema} has no field")
    return fields


def default_value(text: str, kind: str, param: str):
    literal = parse_expr(text)
    value = literal.value
    if literal.kind != "lit" or value is None:
        raise MtlError(1, f"the default of {param} must be a literal")
    accepted = {"string": isinstance(value, str), "int": type(value) is int, "bool": isinstance(value, bool),
                "float": type(value) in (int, float), "timestamp": isinstance(value, str)}
    if not accepted[kind]:
        raise MtlError(1, f"the default of {param} is not a {kind}")
    if kind == "timestamp":
        try:
            return iso_time(value)
        except ValueError:
            raise MtlError(1, f"the default of {param} is not a timestamp") from None
    return float(value) if kind == "float" else value


def parse_params(body: str) -> list[Param]:
    params: list[Param] = []
    for line in body.splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        left, _, default = text.partition("=")
        param_name, _, kind = left.partition(":")
        param = Param(name(param_name), type_name(kind) if kind.strip() else "string")
        if default.strip():
            param.default, param.has_default = default_value(default.strip(), param.type, param.name), True
        if param.name in {p.name for p in params}:
            raise MtlError(1, f"parameter {param.name} given twice")
        params.append(param)
    return params


def parse_pipeline_body(body: str, pipeline_name: str, schema: str) -> Pipeline:
    pipeline = Pipeline(name=pipeline_name, schema=schema)
    rest = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))
    if re.match(r"\s*params\b", rest):
        params_body, end = block(rest, rest.index("params") + len("params"))
        pipeline.params, rest = parse_params(params_body), rest[end:]
    rest = parse_sources_part(rest, pipeline)
    return parse_statements(statements(rest), pipeline)


def parse_sources(rest: str, match, pipeline: Pipeline) -> int:
    if pipeline.sources is not None:
        raise MtlError(1, "sources given twice")
    body, end = block(rest, match.end())
    pipeline.sources = {}
    for entry in filter(None, (text.strip() for text in re.split(r"[,\n]", body))):
        binding = re.fullmatch(r"(\w+)\s+as\s+(\w+)", entry)
        if not binding or binding.group(2) in pipeline.sources:
            raise MtlError(1, f"bad source binding {entry!r}")
        pipeline.sources[binding.group(2)] = binding.group(1)
    return end


def parse_with(rest: str, match, pipeline: Pipeline) -> int:
    alias = match.group(2)
    if alias not in (pipeline.sources or {}) or alias in pipeline.scoped:
        raise MtlError(1, f"with {alias}: not a source alias, or given twice")
    body, end = block(rest, match.end())
    scoped = Pipeline()
    for text in statements(body):
        if "@stage(post_agg)" in text.replace(" ", ""):
            raise MtlError(2, f"with {alias}: a post_agg calc is not allowed there")
        keyword = re.match(r"[a-z_]*", text).group(0)
        if keyword not in ("calc", "filter"):
            raise MtlError(1, f"with {alias}: only pre calcs and filters, not {text!r}")
        STATEMENTS[keyword](text, scoped)
    pipeline.scoped[alias] = scoped
    return end


JOIN_TAIL = re.compile(r"\s*(?:within\s+(\d+)([mhd])\s+)?type\s+(inner|left|right|full)\s+project\b")


def parse_project(body: str) -> list[tuple]:
    """(expression, column) of each ``<expr> as <name>`` entry of a project block; raises 1."""
    project: list[tuple] = []
    for entry in split_top(body):
        item = re.fullmatch(r"\s*(.+?)\s+as\s+(\w+)\s*", entry, re.S)
        if not item or item.group(2) in {column for _, column in project}:
            raise MtlError(1, f"bad or repeated project entry {entry.strip()!r}")
        project.append((parse_expr(item.group(1)), item.group(2)))
    return project


def parse_join(rest: str, match, pipeline: Pipeline) -> int:
    known = {*(pipeline.sources or {}), *(join.name for join in pipeline.joins), *(["_"] if pipeline.joins else [])}
    left, right = match.group(3), match.group(4)
    if not {left, right} <= known:
        raise MtlError(2, f"join {left} with {right}: declare both in sources (or name an earlier join)")
    on, end = block(rest, match.end(), "()")
    tail = JOIN_TAIL.match(rest, end)
    if not tail:
        raise MtlError(1, "a join is: on (...) [within <duration>] type inner|left|right|full project { ... }")
    body, end = block(rest, tail.end())
    project = parse_project(body)
    named = re.compile(r"\s*as\s+(\w+)").match(rest, end)
    within = int(tail.group(1)) * UNITS[tail.group(2)] if tail.group(1) else None
    pipeline.joins.append(Join(left, right, parse_expr(on), within, tail.group(3), project,
                               named.group(1) if named else None))
    return named.end() if named else end


SOURCE_PARTS = re.compile(r"\s*(?:(sources)\b|with\s+(\w+)\b|join\s+(\w+)\s+with\s+(\w+)\s+on\b)")


def parse_sources_part(rest: str, pipeline: Pipeline) -> str:
    """``rest`` after the leading ``sources``, ``with`` and ``join`` parts, which go into ``pipeline``."""
    while match := SOURCE_PARTS.match(rest):
        handler = parse_sources if match.group(1) else parse_with if match.group(2) else parse_join
        rest = rest[handler(rest, match, pipeline):]
    if (pipeline.sources is None) != (not pipeline.joins):
        raise MtlError(1, "sources need at least one join, and a join needs sources")
    return rest


def parse_blocks(source: str) -> tuple[dict, Pipeline]:
    schemas: dict[str, Schema] = {}
    pipeline = None
    position = 0
    header = re.compile(r"(?:\s*#[^\n]*\n|\s)*(?:(schema)\s+(\w+)(?:\s+extends\s+(\w+))?|(pipeline)\s+(\w+)\s+using\s+"
                        r"(\w+)|(\S[^\n]*))", re.I)
    while source[position:].strip() and not all(
            line.strip().startswith("#") for line in source[position:].splitlines() if line.strip()):
        match = header.match(source, position)
        if match.group(7) is not None:
            raise MtlError(1, f"unexpected {match.group(7).strip()!r}")
        body, position = block(source, match.end())
        if match.group(1):
            if match.group(2) in schemas:
                raise MtlError(1, f"schema {match.group(2)} given twice")
            schemas[match.group(2)] = Schema(match.group(2), match.group(3), parse_schema_body(body, match.group(2)))
        elif pipeline is not None:
            raise MtlError(1, "one pipeline block only")
        else:
            pipeline = parse_pipeline_body(body, match.group(5), match.group(6))
    if pipeline is None:
        raise MtlError(1, "a pipeline block is required")
    return schemas, pipeline


def parse_program(source: str) -> tuple[dict, Pipeline]:
    code = "\n".join(line.split("#", 1)[0] for line in source.splitlines())
    if re.search(r"\b(schema|pipeline)\b", code, re.I):
        return parse_blocks(source)
    return {}, parse_statements(statements(source), Pipeline())


# --------------------------------------------------------------------- version

def version_header(source: str) -> tuple[tuple[int, int], str]:
    """The declared (major, minor) and the program with its header line blanked: the header is the first
    line that is neither blank nor a ``#`` comment; raises 6 (missing, malformed, major above 1)."""
    lines = source.split("\n")
    for index, line in enumerate(lines):
        if not line.strip() or line.strip().startswith("#"):
            continue
        match = re.fullmatch(r"mtl_version\s+(\d+)\.(\d+)", line.strip(), re.I)
        if not match:
            raise MtlError(6, "the program must start with a version header: mtl_version <major>.<minor>")
        version = (int(match.group(1)), int(match.group(2)))
        if version[0] > SUPPORTED[0]:
            raise MtlError(6, f"mtl_version {version[0]}.{version[1]}: major version {version[0]} is not supported")
        return version, "\n".join([*lines[:index], "", *lines[index + 1:]])
    raise MtlError(6, "the program has no version header: mtl_version <major>.<minor>")


def calls(expr: Expr):
    """The names of the functions ``expr`` calls, nested calls included."""
    if expr.kind == "call":
        yield expr.value
    for child in expr.args:
        if isinstance(child, Expr):
            yield from calls(child)


def expressions(schemas: dict, pipeline: Pipeline):
    """Every expression of the program: schema fields, statements (of ``with`` blocks too), post_agg calcs,
    join conditions and projections."""
    yield from (expr for schema in schemas.values() for _, _, expr in schema.fields if expr is not None)
    for scoped in (pipeline, *pipeline.scoped.values()):
        yield from (part for step in scoped.steps for part in step if isinstance(part, Expr))
    yield from (expr for _, expr, _ in pipeline.post)
    for join in pipeline.joins:
        yield join.on
        yield from (expr for expr, _ in join.project)


GATES = (
    ((1, 2), "schema inheritance", lambda schemas, pipeline: any(s.base for s in schemas.values())),
    ((1, 2), "params", lambda schemas, pipeline: bool(pipeline.params)),
    ((1, 2), "calc", lambda schemas, pipeline: bool(pipeline.post) or any(
        step[0] == "calc" for scoped in (pipeline, *pipeline.scoped.values()) for step in scoped.steps)),
    ((1, 2), "lag and lead", lambda schemas, pipeline: any(
        name_ in ("lag", "lead") for expr in expressions(schemas, pipeline) for name_ in calls(expr))),
    ((1, 3), "count(column)", lambda schemas, pipeline: any(
        function == "count" and column for function, column, _ in pipeline.aggregates or [])),
    ((1, 4), "sources and joins", lambda schemas, pipeline: pipeline.sources is not None),
)
"""(first version, feature, whether a program uses it) of every feature newer than mtl_version 1.0."""


def check_gates(version: tuple[int, int], schemas: dict, pipeline: Pipeline) -> None:
    """Raise 1 for the first feature the program uses that its declared version does not have."""
    for needed, feature, used in GATES:
        if version < needed and used(schemas, pipeline):
            raise MtlError(1, f"{feature} needs mtl_version {needed[0]}.{needed[1]} (the program declares "
                              f"{version[0]}.{version[1]})")


# ----------------------------------------------------------------------- types

def widens(old: str, new: str) -> bool:
    return old == new or (old, new) == ("int", "float")


CASTS = {"string": TYPES, "float": NUMERIC, "int": NUMERIC, "bool": ("bool", "string"),
         "timestamp": ("timestamp", "string")}


@dataclass
class Scope:
    """What an expression is typed against: columns, parameters, stage (schema, pre or post) and the code of
    an unknown column (1 in a schema, 2 elsewhere)."""

    env: dict
    params: dict
    stage: str
    missing: int = 2


def check_numeric_args(scope: Scope, expr: Expr) -> list:
    kinds = [infer(arg, scope) for arg in expr.args]
    if None in kinds:
        raise MtlError(2, "arithmetic on null")
    if any(kind not in NUMERIC for kind in kinds):
        raise MtlError(2, "arithmetic needs numbers")
    return kinds


def infer_bin(expr: Expr, scope: Scope) -> str:
    kinds = check_numeric_args(scope, expr)
    return "float" if expr.value == "/" or "float" in kinds else "int"


def infer_cmp(expr: Expr, scope: Scope) -> str:
    left, right = (infer(arg, scope) for arg in expr.args)
    if left is None or right is None:
        raise MtlError(2, "comparison with null")
    if left != right and not (left in NUMERIC and right in NUMERIC):
        raise MtlError(2, f"cannot compare {left} with {right}")
    if left == "bool" and expr.value not in ("==", "!="):
        raise MtlError(2, "booleans are only compared with == and !=")
    return "bool"


def infer_logic(expr: Expr, scope: Scope) -> str:
    if any(infer(arg, scope) != "bool" for arg in expr.args):
        raise MtlError(2, f"{expr.kind} needs booleans")
    return "bool"


def infer_col(expr: Expr, scope: Scope) -> str:
    if expr.value not in scope.env:
        raise MtlError(scope.missing, f"unknown column {expr.value}")
    return scope.env[expr.value]


def infer_in(expr: Expr, scope: Scope) -> str:
    if infer_col(expr.args[1], scope) != "string":
        raise MtlError(2, "'in' needs a string column")
    return "bool"


def infer_cast(expr: Expr, scope: Scope) -> str:
    source = infer(expr.args[0], scope)
    if source not in CASTS[expr.value]:
        raise MtlError(2, f"cannot cast {source} to {expr.value}")
    return expr.value


def literal_type(value) -> str | None:
    return None if value is None else {bool: "bool", int: "int", float: "float", str: "string"}[type(value)]


INFER = {"lit": lambda e, s: literal_type(e.value), "col": infer_col, "bin": infer_bin, "cmp": infer_cmp,
         "neg": lambda e, s: check_numeric_args(s, e)[0], "and": infer_logic, "or": infer_logic, "not": infer_logic,
         "in": infer_in, "cast": infer_cast, "call": lambda e, s: infer_call(e, s)}


def infer(expr: Expr, scope: Scope) -> str | None:
    """The type of ``expr`` (``None`` for the literal null); raises MtlError 1 or 2."""
    return INFER[expr.kind](expr, scope)


def arity(expr: Expr, counts: tuple) -> None:
    if len(expr.args) not in counts:
        raise MtlError(2, f"{expr.value} takes {' or '.join(map(str, counts))} arguments")


def call_coalesce(expr: Expr, scope: Scope) -> str:
    arity(expr, (2,))
    kinds = {infer(arg, scope) for arg in expr.args} - {None}
    if not kinds:
        raise MtlError(2, "coalesce of two nulls")
    if len(kinds) == 2 and not kinds <= set(NUMERIC):
        raise MtlError(2, "coalesce of different types")
    return kinds.pop() if len(kinds) == 1 else "float"


def call_text(expr: Expr, scope: Scope) -> str:
    arity(expr, (2,))
    if any(infer(arg, scope) != "string" for arg in expr.args):
        raise MtlError(2, f"{expr.value} takes strings")
    return "bool"


def call_round(expr: Expr, scope: Scope) -> str:
    arity(expr, (1, 2))
    if infer(expr.args[0], scope) not in NUMERIC or (len(expr.args) == 2 and infer(expr.args[1], scope) != "int"):
        raise MtlError(2, "round takes a number and an int")
    return "float"


def per_row(takes: str):
    def check(expr: Expr, scope: Scope) -> str:
        if scope.stage == "post":
            raise MtlError(2, f"{expr.value} is not available after aggregation")
        arity(expr, (1,))
        if infer(expr.args[0], scope) != takes:
            raise MtlError(2, f"{expr.value} takes a {takes}")
        return "int"
    return check


def param_type(name_: str, scope: Scope) -> str:
    if name_ not in scope.params:
        raise MtlError(1, f"unknown parameter {name_}")
    return scope.params[name_].type


def call_param(expr: Expr, scope: Scope) -> str:
    arity(expr, (1,))
    if scope.stage == "schema" or expr.args[0].kind != "lit" or not isinstance(expr.args[0].value, str):
        raise MtlError(2, "param takes a parameter name, outside schemas")
    return param_type(expr.args[0].value, scope)


def offset_of(expr: Expr, scope: Scope) -> int:
    if expr.kind == "lit" and type(expr.value) is int:
        return expr.value
    if expr.kind == "call" and expr.value == "param" and len(expr.args) == 1 and expr.args[0].kind == "lit" \
            and isinstance(expr.args[0].value, str):
        if param_type(expr.args[0].value, scope) != "int":
            raise MtlError(2, "an offset parameter must be an int")
        return scope.params[expr.args[0].value].value
    raise MtlError(2, "an offset is an int literal or an int parameter")


def call_shift(expr: Expr, scope: Scope) -> str:
    if scope.stage != "post":
        raise MtlError(2, f"{expr.value} is only for post_agg calcs")
    arity(expr, (2,))
    kind = infer(expr.args[0], scope)
    if offset_of(expr.args[1], scope) <= 0:
        raise MtlError(2, "an offset must be positive")
    return kind


CALLS = {"coalesce": call_coalesce, "starts_with": call_text, "ends_with": call_text, "contains": call_text,
         "round": call_round, "len": per_row("string"), "day": per_row("timestamp"), "month": per_row("timestamp"),
         "year": per_row("timestamp"), "param": call_param, "lag": call_shift, "lead": call_shift}


def infer_call(expr: Expr, scope: Scope) -> str:
    if expr.value not in CALLS:
        raise MtlError(2, f"unknown function {expr.value}")
    return CALLS[expr.value](expr, scope)


def assignable(declared: str, actual: str | None) -> bool:
    return actual is not None and widens(actual, declared)


def resolve_schema(schemas: dict, schema_name: str, columns: set | None, visiting: tuple = ()) -> dict:
    """Field name -> (type, expr or None), inherited fields first; raises 1 (unknown, cycle, forward reference)
    or 2 (illegal override, calc type, physical field not in the CSV)."""
    if schema_name not in schemas:
        raise MtlError(1, f"unknown schema {schema_name}")
    if schema_name in visiting:
        raise MtlError(1, f"schema {schema_name} extends itself")
    schema = schemas[schema_name]
    fields = dict(resolve_schema(schemas, schema.base, None, (*visiting, schema_name))) if schema.base else {}
    for field_name, kind, expr in schema.fields:
        if field_name in fields and not widens(fields[field_name][0], kind):
            raise MtlError(2, f"{field_name} cannot change from {fields[field_name][0]} to {kind}")
        if expr is not None and not assignable(kind, infer(expr, Scope({n: t for n, (t, _) in fields.items()},
                                                                        {}, "schema", 1))):
            raise MtlError(2, f"{field_name} is not a {kind}")
        fields[field_name] = (kind, expr)
    missing = [n for n, (_, expr) in fields.items() if expr is None and columns is not None and n not in columns]
    if missing:
        raise MtlError(2, f"the CSV lacks {', '.join(missing)}")
    return fields


def check_step(step: tuple, scope: Scope) -> None:
    if step[0] == "filter":
        if infer(step[1], scope) != "bool":
            raise MtlError(2, "filter needs a boolean")
    elif step[0] == "apply":
        kind = infer(step[1], scope)
        if kind is None:
            raise MtlError(2, "apply of null")
        scope.env[step[2]] = kind
    else:
        _, calc, expr, kind = step
        if calc in scope.env:
            raise MtlError(1, f"calc {calc} exists already")
        if not assignable(kind, infer(expr, scope)):
            raise MtlError(2, f"calc {calc} is not a {kind}")
        scope.env[calc] = kind


AGGREGATE_TAKES = {"count": TYPES}
AGGREGATE_GIVES = {"count": "int"}


def check_pipeline(pipeline: Pipeline, env: dict, params: dict) -> None:
    scope = Scope(dict(env), params, "pre")
    snapshots = [dict(scope.env)]
    for step in pipeline.steps:
        check_step(step, scope)
        snapshots.append(dict(scope.env))
    keys = {}
    for column in pipeline.group_by or []:
        if column not in snapshots[pipeline.group_at]:
            raise MtlError(2, f"group_by column {column} is not defined there")
        keys[column] = snapshots[pipeline.group_at][column]
    if pipeline.window and snapshots[pipeline.window_at].get("timestamp") != "timestamp":
        raise MtlError(2, "window needs the timestamp column")
    at_aggregate = snapshots[pipeline.aggregate_at]
    for function, column, alias in pipeline.aggregates:
        if column is not None and at_aggregate.get(column) not in AGGREGATE_TAKES.get(function, NUMERIC):
            raise MtlError(2, f"{alias}: {function} cannot take {column} there")
        keys[alias] = AGGREGATE_GIVES.get(function, "float")
    if scope.env.get("timestamp") != "timestamp":
        raise MtlError(2, "timestamp must stay a timestamp")
    check_post(pipeline, keys, params)


def check_post(pipeline: Pipeline, keys: dict, params: dict) -> None:
    post = Scope({**({"window_start": "timestamp", "window_end": "timestamp"} if pipeline.window else {}), **keys},
                 params, "post")
    for calc, expr, kind in pipeline.post:
        if calc in post.env:
            raise MtlError(1, f"post_agg calc {calc} repeats an output key")
        if not assignable(kind, infer(expr, post)):
            raise MtlError(2, f"calc {calc} is not a {kind}")
        post.env[calc] = kind


# ------------------------------------------------------------------ parameters

def iso_time(text: str) -> datetime:
    return datetime.fromisoformat(re.sub(r"([+-]\d\d)(\d\d)$", r"\1:\2", text.strip()).replace("Z", "+00:00"))


def bool_text(text: str) -> bool:
    if text.strip().lower() not in ("true", "false"):
        raise ValueError(text)
    return text.strip().lower() == "true"


def finite(text) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


PARAM_PARSERS = {"string": str.strip, "int": int, "float": finite, "bool": bool_text, "timestamp": iso_time}


def bind_params(declared: list[Param], given: list[str]) -> dict:
    """Parameter name -> Param with its ``value``; raises 1 (bad --param, unknown, missing) or 2 (unparsable)."""
    overrides = {}
    for entry in given:
        key, equals, value = entry.partition("=")
        if not equals or not key.strip():
            raise MtlError(1, f"--param {entry!r} is not key=value")
        overrides[key.strip()] = value
    known = {param.name: param for param in declared}
    for key in overrides:
        if key not in known:
            raise MtlError(1, f"unknown parameter {key}")
    for param in declared:
        if param.name in overrides:
            try:
                param.value = PARAM_PARSERS[param.type](overrides[param.name])
            except ValueError:
                raise MtlError(2, f"parameter {param.name} is not a {param.type}") from None
        elif param.has_default:
            param.value = param.default
        else:
            raise MtlError(1, f"parameter {param.name} has no value")
    return known


# ------------------------------------------------------------------------ data

def parse_time(text: str, fmt: str | None, zone) -> datetime:
    moment = datetime.strptime(text.strip(), fmt) if fmt else iso_time(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=zone)).astimezone(UTC)


class RowError(MtlError):
    """A bad record: its reason code (``PARSE_TYPE_MISMATCH``, ...) and exit code (4 for ``RUNTIME_ERROR``, else 2)."""

    def __init__(self, reason: str, message: str):
        super().__init__(4 if reason == "RUNTIME_ERROR" else 2, f"{reason}: {message}")
        self.reason = reason


@dataclass
class Record:
    """One data row as read: its values by column (``None`` for a null marker), where it comes from."""

    values: dict
    file: str
    line: int
    raw: str | None
    row_hash: str
    parquet: bool = False


class Tracker:
    """What a run meets: bad records (raised at once when strict, else kept for ``--bad-records-out``), the
    files it reads (source name, (path, format, gzipped), records read) and each source's latest timestamp."""

    def __init__(self, strict: bool):
        self.strict = strict
        self.entries: list[dict] = []
        self.files: list[tuple[str, tuple, int]] = []
        self.watermarks: dict[str, datetime | None] = {}

    def watermark(self, source: str, rows: list[tuple]) -> None:
        """Raise ``source``'s watermark to the latest timestamp of its (record, row) pairs."""
        moments = [row["timestamp"] for _, row in rows if isinstance(row.get("timestamp"), datetime)]
        known = [moment for moment in (self.watermarks.get(source), *moments) if moment is not None]
        self.watermarks[source] = max(known, default=None)

    def report(self, record: Record | None, error: RowError, moment: datetime | None = None) -> None:
        """Keep (or, when strict, raise) ``error`` about ``record`` (``None`` for a row made by a join)."""
        if self.strict:
            raise error
        where = {"file": record.file, "line": record.line} if record else {"file": None, "line": None}
        self.entries.append({**where, "reason_code": error.reason, "reason": str(error),
                             "raw": record and record.raw, "ts_iso": iso(moment) if moment else None,
                             "row_hash": record and record.row_hash})

    def write(self, path: str | None) -> None:
        if not path or not self.entries:
            return
        ordered_ = sorted(self.entries, key=lambda entry: (entry["file"] or "", entry["line"] or 0))
        lines = [json.dumps(entry) + "\n" for entry in ordered_]
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text("".join(lines), encoding="utf-8")
        except OSError as error:
            raise MtlError(3, f"cannot write {path}: {error}") from error


FORMATS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet"}


def classify(path: Path, forced: str) -> tuple[str, bool]:
    """(format, gzipped) of ``path`` from its extension, case-insensitive, else ``forced``; raises 3."""
    suffixes = [suffix.lower() for suffix in path.suffixes]
    gzipped = suffixes[-1:] == [".gz"]
    base = suffixes[:-1] if gzipped else suffixes
    kind = FORMATS.get(base[-1] if base else "", None if forced == "auto" else forced)
    if kind is None:
        raise MtlError(3, f"cannot tell the format of {path}: give --format")
    if kind == "parquet" and gzipped:
        raise MtlError(3, f"{path}: parquet cannot be gzipped")
    return kind, gzipped


def matches(pattern: str, recursive: bool) -> list[Path] | None:
    """The files one --input names (``None`` when it names nothing)."""
    found = [Path(p) for p in glob.glob(pattern, recursive=True)] if glob.has_magic(pattern) else [Path(pattern)]
    files: list[Path] = []
    named = False
    for path in found:
        if path.is_dir():
            files += [child for child in (path.rglob("*") if recursive else path.glob("*")) if child.is_file()]
        elif not path.is_file():
            continue
        else:
            files.append(path)
        named = True
    return files if named else None


def discover(patterns: list[str], recursive: bool, forced: str) -> list[tuple[str, str, bool]] | None:
    """(resolved path, format, gzipped) of every input file, once each, sorted by path (``None`` when no
    pattern names an existing file or directory); raises 3 for a file of unknown format."""
    found: dict[str, tuple] = {}
    named = False
    for pattern in patterns:
        files = matches(pattern, recursive)
        named = named or files is not None
        for path in files or []:
            found[str(path.resolve())] = classify(path.resolve(), forced)
    return [(path, *found[path]) for path in sorted(found)] if named else None


def text_records(path: str, kind: str, gzipped: bool, nulls: set, tracker: Tracker) -> tuple[list, list]:
    """The records and header of a CSV or TSV file; a short row is a bad record (MISSING_REQUIRED_FIELD)."""
    delimiter = "," if kind == "csv" else "\t"
    try:
        with (gzip.open if gzipped else open)(path, "rt", newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, delimiter=delimiter)
            header = list(reader.fieldnames or [])
            rows = list(reader)
    except (OSError, UnicodeDecodeError, EOFError) as error:
        raise MtlError(3, f"cannot read {path}: {error}") from error
    if not header:
        raise MtlError(3, f"{path} has no header row")
    records = [text_record(row, header, (path, line, delimiter), nulls, tracker)
               for line, row in enumerate(rows, start=2)]
    return [record for record in records if record is not None], header


def text_record(row: dict, header: list, where: tuple, nulls: set, tracker: Tracker) -> Record | None:
    """The record of one CSV/TSV row (null markers as ``None``), or ``None`` for a short row, reported."""
    path, line, delimiter = where
    cells = [row[column] or "" for column in header]
    record = Record({column: None if row[column] in nulls else row[column] for column in header}, path, line,
                    delimiter.join(cells), hashlib.sha256("\x1f".join(cells).encode()).hexdigest())
    short = [column for column in header if row[column] is None]
    if not short:
        return record
    tracker.report(record, RowError("MISSING_REQUIRED_FIELD", f"no value for {', '.join(short)}"))
    return None


def parquet_records(path: str) -> tuple[list, list]:
    """The records and columns of a Parquet file (needs pyarrow; without it error 3)."""
    try:
        from pyarrow import parquet
    except ImportError:
        raise MtlError(3, f"reading {path} needs pyarrow") from None
    table = parquet.read_table(path)
    records = [Record(row, path, line, None, hashlib.sha256("\x1f".join(
        "" if value is None else str(value) for value in row.values()).encode()).hexdigest(), True)
        for line, row in enumerate(table.to_pylist(), start=1)]
    return records, table.column_names


def marker_list(given: list[str]) -> list[str]:
    """The empty field, then ``given`` (surrounding spaces removed) in order, or the default markers when none
    is given."""
    markers = [marker.strip() for marker in given if marker.strip()]
    return ["", *(markers or ("null", "NULL", "NaN"))]


def null_markers(given: list[str]) -> set:
    return set(marker_list(given))


def read_files(files: list[tuple], nulls: set, where: tuple[str, Tracker]) -> tuple[list[Record], list]:
    """Every record of ``files`` ((path, format, gzipped) in order) of the source named in ``where``, and the
    union of their columns; the tracker of ``where`` notes each file and how many records it holds."""
    source, tracker = where
    records: list[Record] = []
    header: dict = {}
    for path, kind, gzipped in files:
        reported = len(tracker.entries)
        found, columns = parquet_records(path) if kind == "parquet" else \
            text_records(path, kind, gzipped, nulls, tracker)
        tracker.files.append((source, (path, kind, gzipped), len(found) + len(tracker.entries) - reported))
        records += found
        header.update(dict.fromkeys(columns))
    return records, list(header)


def read_inputs(args, tracker: Tracker) -> tuple[list[Record], list]:
    """Every record of every --input file in path order, and the union of their columns (first seen first)."""
    files = discover(args.input + ([args.csv] if args.csv else []), args.recursive, args.format)
    if files is None:
        raise MtlError(3, "no input file matches --input")
    return read_files(files, null_markers((args.nulls or "").split(",")), ("default", tracker))


def looks_numeric(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def extra_type(values: list) -> str:
    cleaned = [(value or "").strip() for value in values]
    if all(value.lower() in ("true", "false") for value in cleaned):
        return "bool"
    return "float" if all(looks_numeric(value) for value in cleaned) else "string"


def legacy_fields(records: list[Record], header: list) -> dict:
    """The fields of a program without blocks: the inputs' columns, typed as in checkpoint 1."""
    missing = sorted(set(LEGACY_TYPES) - set(header))
    if missing:
        raise MtlError(3, f"the input lacks columns {', '.join(missing)}")
    return {column: (LEGACY_TYPES.get(column) or extra_type([r.values[column] for r in records if column in r.values]),
                     None) for column in header}


def number(text) -> float | None:
    value = float(text)
    if math.isinf(value):
        raise ValueError(text)
    return None if math.isnan(value) else value


def parse_int(value) -> int:
    if isinstance(value, bool):
        raise ValueError(value)
    return int(str(value))


ROW_PARSERS = {"string": str, "int": parse_int, "float": number, "bool": lambda v: bool_text(str(v))}


def convert(value, kind: str, context: tuple, parquet: bool):
    """A field's value from its text (or Parquet value); ``None`` stays null; raises RowError."""
    if value is None:
        return None
    try:
        if isinstance(value, datetime):
            return (value if value.tzinfo else value.replace(tzinfo=context[1])).astimezone(UTC)
        return parse_time(value, *context) if kind == "timestamp" else ROW_PARSERS[kind](value)
    except (ValueError, AttributeError):
        reason = "PARQUET_TYPE_MISMATCH" if parquet else \
            "TIMESTAMP_PARSE_ERROR" if kind == "timestamp" else "PARSE_TYPE_MISMATCH"
        raise RowError(reason, f"{value!r} is not a {kind}") from None


# ------------------------------------------------------------------- execution

COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
           "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


@dataclass
class Context:
    """Where an expression is evaluated: the row, the sorted result rows and the row's index (post_agg), params."""

    row: dict
    params: dict
    rows: list | None = None
    index: int = 0


def run_bin(expr: Expr, ctx: Context):
    left, right = (evaluate(arg, ctx) for arg in expr.args)
    if left is None or right is None:
        return None
    if expr.value == "/" and right == 0:
        raise RowError("RUNTIME_ERROR", "division by zero")
    return {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
            "/": lambda: left / right}[expr.value]()


def run_cmp(expr: Expr, ctx: Context):
    left, right = (evaluate(arg, ctx) for arg in expr.args)
    return None if left is None or right is None else COMPARE[expr.value](left, right)


def run_and(expr: Expr, ctx: Context):
    values = [evaluate(arg, ctx) for arg in expr.args]
    return False if False in values else None if None in values else True


def run_or(expr: Expr, ctx: Context):
    values = [evaluate(arg, ctx) for arg in expr.args]
    return True if True in values else None if None in values else False


def run_not(expr: Expr, ctx: Context):
    value = evaluate(expr.args[0], ctx)
    return None if value is None else not value


def run_neg(expr: Expr, ctx: Context):
    value = evaluate(expr.args[0], ctx)
    return None if value is None else -value


def run_cast(expr: Expr, ctx: Context):
    value = evaluate(expr.args[0], ctx)
    if value is None:
        return None
    try:
        return CAST_TO[expr.value](value)
    except (ValueError, TypeError, OverflowError):
        raise RowError("RUNTIME_ERROR", f"cannot cast {value!r} to {expr.value}") from None


CAST_TO = {"string": str, "int": int, "float": finite,
           "bool": lambda v: v if isinstance(v, bool) else bool_text(v),
           "timestamp": lambda v: v if isinstance(v, datetime) else iso_time(v)}


def null_safe(function):
    """An evaluator of a call that gives null when an argument is null, else ``function(*arguments)``."""
    def run(expr: Expr, ctx: Context):
        values = [evaluate(arg, ctx) for arg in expr.args]
        return None if None in values else function(*values)
    return run


def rounded(value, digits: int = 0) -> float:
    scaled = float(value) * 10 ** digits
    return math.copysign(math.floor(abs(scaled) + 0.5), scaled) / 10 ** digits


def run_shift(expr: Expr, ctx: Context):
    offset = evaluate(expr.args[1], ctx)
    target = ctx.index - offset if expr.value == "lag" else ctx.index + offset
    if not 0 <= target < len(ctx.rows):
        return None
    return evaluate(expr.args[0], Context(ctx.rows[target], ctx.params, ctx.rows, target))


def run_coalesce(expr: Expr, ctx: Context):
    first = evaluate(expr.args[0], ctx)
    return evaluate(expr.args[1], ctx) if first is None else first


RUN_CALLS = {"coalesce": run_coalesce, "starts_with": null_safe(str.startswith), "ends_with": null_safe(str.endswith),
             "contains": null_safe(lambda haystack, needle: needle in haystack), "round": null_safe(rounded),
             "len": null_safe(len), "day": null_safe(lambda t: t.day), "month": null_safe(lambda t: t.month),
             "year": null_safe(lambda t: t.year), "param": lambda e, c: c.params[e.args[0].value].value,
             "lag": run_shift, "lead": run_shift}


def run_in(expr: Expr, ctx: Context):
    haystack = ctx.row[expr.args[1].value]
    return None if haystack is None else expr.args[0].value in haystack


RUN = {"lit": lambda e, c: e.value, "col": lambda e, c: c.row[e.value], "bin": run_bin, "cmp": run_cmp,
       "and": run_and, "or": run_or, "not": run_not, "neg": run_neg, "cast": run_cast, "in": run_in,
       "call": lambda e, c: RUN_CALLS[e.value](e, c)}


def evaluate(expr: Expr, ctx: Context):
    return RUN[expr.kind](expr, ctx)


def materialize(record: Record, fields: dict, params: dict, context: tuple) -> dict:
    """The record's schema fields, physical ones converted (absent: null), calculated ones computed."""
    row: dict = {}
    for field_name, (kind, expr) in fields.items():
        row[field_name] = convert(record.values.get(field_name), kind, context, record.parquet) if expr is None \
            else evaluate(expr, Context(row, params))
    return row


def transformed(row: dict, pipeline: Pipeline, params: dict) -> dict | None:
    """The row after the pre-aggregation steps, ``None`` when a filter is false or null."""
    row = dict(row)
    for step in pipeline.steps:
        if step[0] == "filter":
            if not evaluate(step[1], Context(row, params)):
                return None
        elif step[0] == "apply":
            row[step[2]] = evaluate(step[1], Context(row, params))
        else:
            row[step[1]] = evaluate(step[2], Context(row, params))
    return row


def window_start(row: dict, seconds: int) -> datetime:
    if row["timestamp"] is None:
        raise RowError("TIMESTAMP_PARSE_ERROR", "no timestamp to place the row in a window")
    return EPOCH + timedelta(seconds=int((row["timestamp"] - EPOCH).total_seconds()) // seconds * seconds)


def materialized(records: list[Record], fields: dict, params: dict, setup: tuple) -> list[tuple]:
    """(record, row of the schema's fields) of every record whose fields convert; bad ones go to the tracker."""
    context, tracker = setup
    rows = []
    for record in records:
        try:
            rows.append((record, materialize(record, fields, params, context)))
        except RowError as error:
            tracker.report(record, error)
    return rows


def kept_rows(rows: list[tuple], pipeline: Pipeline, params: dict, tracker: Tracker) -> list:
    """(window start or None, row) of every (record, row) that passes the statements; bad ones go to the
    tracker."""
    kept = []
    for record, row in rows:
        try:
            final = transformed(row, pipeline, params)
            if final is not None:
                kept.append((window_start(final, pipeline.window) if pipeline.window else None, final))
        except RowError as error:
            tracker.report(record, error, row.get("timestamp"))
    return kept


def median(values: list[float]) -> float:
    ordered_, middle = sorted(values), len(values) // 2
    return ordered_[middle] if len(values) % 2 else (ordered_[middle - 1] + ordered_[middle]) / 2


def variance(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return sum((value - mean) ** 2 for value in values) / len(values)


AGGREGATES = {"sum": math.fsum, "average": lambda v: math.fsum(v) / len(v), "median": median, "min": min, "max": max,
              "var": variance, "std": lambda v: math.sqrt(variance(v))}


def aggregate(rows: list[dict], aggregates: list) -> dict:
    """Each alias's value over the rows' non-null values (``count(*)`` counts rows; no value gives null)."""
    result = {}
    for function, column, alias in aggregates:
        values = [row[column] for row in rows if row[column] is not None] if column else rows
        if function == "count":
            result[alias] = len(values)
            continue
        value = AGGREGATES[function]([float(v) for v in values]) if values else None
        if value is not None and not math.isfinite(value):
            raise MtlError(4, f"{alias} is not finite")
        result[alias] = value
    return result


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def output_value(value):
    return iso(value) if isinstance(value, datetime) else value


def null_first(key: tuple) -> tuple:
    return tuple((value is not None, value) for value in key)


def grouped(pipeline: Pipeline, kept: list[tuple]) -> list[dict]:
    """One result row per window and group, in output order (null keys first), before post_agg calcs."""
    if pipeline.group_by is None and pipeline.window is None:
        return [aggregate([row for _, row in kept], pipeline.aggregates)]
    groups: dict[tuple, list] = {}
    for start, row in kept:
        groups.setdefault((start, *(row[c] for c in pipeline.group_by or [])), []).append(row)
    results = []
    for key in sorted(groups, key=lambda key: null_first(key if pipeline.window else key[1:])):
        head = {"window_start": key[0], "window_end": key[0] + timedelta(seconds=pipeline.window)} \
            if pipeline.window else {}
        head.update(dict(zip(pipeline.group_by or [], key[1:], strict=True)))
        results.append({**head, **aggregate(groups[key], pipeline.aggregates)})
    return results


def ordered(row: dict, pipeline: Pipeline) -> dict:
    """Window bounds, group keys, aggregates by alias, post_agg calcs by name; timestamps as UTC text."""
    keys = [*(["window_start", "window_end"] if pipeline.window else []), *(pipeline.group_by or []),
            *sorted(alias for _, _, alias in pipeline.aggregates), *sorted(calc for calc, _, _ in pipeline.post)]
    return {key: output_value(row[key]) for key in keys}


def run(pipeline: Pipeline, kept: list[tuple], params: dict):
    results = grouped(pipeline, kept)
    for calc, expr, _ in pipeline.post:
        for index, row in enumerate(results):
            row[calc] = evaluate(expr, Context(row, params, results, index))
    shaped = [ordered(row, pipeline) for row in results]
    return shaped if pipeline.group_by is not None or pipeline.window is not None else shaped[0]


# ----------------------------------------------------------- sources and joins

CONFIG_SCHEMA = {
    "type": "object", "required": ["sources"], "properties": {"sources": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["name", "inputs", "schema"], "additionalProperties": False, "properties": {
            "name": {"type": "string", "minLength": 1},
            "inputs": {"type": "array", "minItems": 1, "items": {"type": "string"}},
            "recursive": {"type": "boolean"}, "format": {"enum": ["auto", "csv", "tsv", "parquet"]},
            "schema": {"type": "string"}, "precedence": {"type": "integer"}, "tz": {"type": "string"},
            "nulls": {"type": "array", "items": {"type": "string"}},
            "required": {"type": "array", "items": {"type": "string"}},
            "mapping": {"type": "object", "additionalProperties": False, "properties": {
                "drop": {"type": "array", "items": {"type": "string"}},
                "rename": {"type": "object", "additionalProperties": {"type": "string"}},
                "cast": {"type": "object", "additionalProperties": {"enum": list(TYPES)}},
                "defaults": {"type": "object"}}}}}}}}
"""What an ingest config must look like (anything else is error 5)."""


def load_config(path: str, schemas: dict) -> dict:
    """Source name -> source of the ingest config at ``path``; raises 3 (unreadable) or 5 (malformed, a name
    given twice, a schema the program does not define)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MtlError(3, f"cannot read the ingest config {path}: {error}") from error
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        raise MtlError(5, f"the ingest config {path} is neither YAML nor JSON") from None
    try:
        jsonschema.validate(document, CONFIG_SCHEMA)
    except jsonschema.ValidationError as error:
        raise MtlError(5, f"ingest config {path}: {error.message} at {error.json_path}") from None
    config = {source["name"]: source for source in document["sources"]}
    if len(config) < len(document["sources"]):
        raise MtlError(5, "a source name is given twice in the ingest config")
    for source in config.values():
        if source["schema"] not in schemas:
            raise MtlError(5, f"source {source['name']}: the program defines no schema {source['schema']}")
    return config


def assign_files(config: dict) -> dict:
    """Source name -> its files ((path, format, gzipped), by path): a file matched by several sources goes to
    the lowest precedence; raises 3 (no source naming anything) or 5 (a tie)."""
    claims: dict[str, list] = {}
    named = [discover(source["inputs"], source.get("recursive", True), source.get("format", "auto"))
             for source in config.values()]
    if all(found is None for found in named):
        raise MtlError(3, "no source of the ingest config names an existing file")
    for name, source, files in zip(config, config.values(), named, strict=True):
        for found in files or []:
            claims.setdefault(found[0], []).append((source.get("precedence", 100), name, found))
    files: dict = {name: [] for name in config}
    for path in sorted(claims):
        _, name, found = owner(path, claims[path])
        files[name].append(found)
    return files


def owner(path: str, claims: list[tuple]) -> tuple:
    """The (precedence, source name, file) of ``claims`` with the lowest precedence; raises 5 on a tie."""
    ranked = sorted(claims, key=operator.itemgetter(0))
    if len(ranked) > 1 and ranked[0][0] == ranked[1][0]:
        raise MtlError(5, f"{path} matches {ranked[0][1]} and {ranked[1][1]} of equal precedence")
    return ranked[0]


def mapped(record: Record, source: dict, context: tuple) -> Record:
    """The record after the source's mapping (drop, rename, cast, defaults) with its required fields checked;
    raises RowError."""
    mapping = source.get("mapping", {})
    values = {mapping.get("rename", {}).get(key, key): value for key, value in record.values.items()
              if key not in mapping.get("drop", [])}
    try:
        for column, kind in mapping.get("cast", {}).items():
            values[column] = convert(values.get(column), kind, context, record.parquet)
    except RowError as error:
        raise RowError("MAPPING_ERROR", str(error)) from None
    for column, default in mapping.get("defaults", {}).items():
        values[column] = default if values.get(column) is None else values[column]
    missing = [column for column in source.get("required", []) if values.get(column) is None]
    if missing:
        raise RowError("MISSING_REQUIRED_FIELD", f"no value for {', '.join(missing)}")
    return dataclasses.replace(record, values=values)


def mapped_header(header: list, source: dict) -> list:
    mapping = source.get("mapping", {})
    kept = [mapping.get("rename", {}).get(column, column) for column in header if column not in mapping.get("drop", [])]
    return list(dict.fromkeys([*kept, *mapping.get("cast", {}), *mapping.get("defaults", {})]))


def source_records(source: dict, files: list, args, tracker: Tracker) -> tuple[list[Record], list, tuple]:
    """The good records of one source after its mapping, its columns after the mapping, and its reading
    context (timestamp format, time zone): its own null markers and time zone where it gives them."""
    nulls = {"", *source["nulls"]} if "nulls" in source else null_markers((args.nulls or "").split(","))
    context = (args.timestamp_format, zone(source.get("tz", args.tz)))
    raw, header = read_files(files, nulls, (source["name"], tracker))
    records = []
    for record in raw:
        try:
            records.append(mapped(record, source, context))
        except RowError as error:
            tracker.report(record, error)
    return records, mapped_header(header, source), context


def qualified(alias: str, env: dict) -> dict:
    return {f"{alias}.{column}": value for column, value in env.items()}


def complete_timestamp(join: Join, left: dict, right: dict) -> None:
    """Project the left side's timestamp when the projection has none and only the left side has one."""
    if "timestamp" in {column for _, column in join.project}:
        return
    if left.get("timestamp") != "timestamp" or "timestamp" in right:
        raise MtlError(2, f"join {join.left} with {join.right}: project a timestamp (ambiguous or missing)")
    join.project.append((Expr("col", f"{join.left}.timestamp"), "timestamp"))


def check_join(join: Join, relations: dict, params: dict) -> dict:
    """The column types of the join's projection; raises 1 or 2."""
    left, right = relations[join.left], relations[join.right]
    scope = Scope({**qualified(join.left, left), **qualified(join.right, right)}, params, "pre")
    if infer(join.on, scope) != "bool":
        raise MtlError(2, f"join {join.left} with {join.right}: the on condition is not a boolean")
    if join.within and not left.get("timestamp") == right.get("timestamp") == "timestamp":
        raise MtlError(1, "within needs a timestamp on both sides")
    complete_timestamp(join, left, right)
    env = {column: infer(expr, scope) for expr, column in join.project}
    if None in env.values():
        raise MtlError(2, "a projected column cannot be the null literal")
    return env


def check_sources(pipeline: Pipeline, fields: dict, params: dict) -> dict:
    """The column types after the last join, given each alias's schema fields; raises 1 or 2."""
    relations = {}
    for alias in pipeline.sources:
        scope = Scope({name_: kind for name_, (kind, _) in fields[alias].items()}, params, "pre")
        for step in pipeline.scoped.get(alias, Pipeline()).steps:
            check_step(step, scope)
        relations[alias] = scope.env
    for join in pipeline.joins:
        relations["_"] = check_join(join, relations, params)
        relations[join.name or "_"] = relations["_"]
    return relations["_"]


def within(join: Join, left: dict, right: dict) -> bool:
    moments = left.get("timestamp"), right.get("timestamp")
    return join.within is None or (None not in moments and abs(moments[0] - moments[1]).total_seconds() <= join.within)


def matching(join: Join, left: dict, right: dict, params: dict) -> bool:
    """Whether the rows are within the join's time band and its condition is true (not false or null)."""
    return within(join, left, right) and evaluate(
        join.on, Context({**qualified(join.left, left), **qualified(join.right, right)}, params)) is True


def pairs(join: Join, left: list[dict], right: list[dict], params: dict) -> list[tuple]:
    """(left row or None, right row or None) of the join, per its kind: matches in left order, then the
    unmatched left rows (left, full) at their place, then the unmatched right rows (right, full)."""
    found, used = [], set()
    for row in left:
        matches = [index for index, other in enumerate(right) if matching(join, row, other, params)]
        found += [(row, right[index]) for index in matches] or ([(row, None)] if join.kind in ("left", "full") else [])
        used.update(matches)
    unmatched = [(None, other) for index, other in enumerate(right) if index not in used]
    return found + (unmatched if join.kind in ("right", "full") else [])


def run_join(join: Join, relations: dict, envs: dict, params: dict) -> list[dict]:
    """The projected rows of ``join`` over the rows of ``relations`` (``envs``: their column types)."""
    empty = {side: dict.fromkeys(envs[side]) for side in (join.left, join.right)}
    rows = []
    for left, right in pairs(join, relations[join.left], relations[join.right], params):
        row = {**qualified(join.left, left or empty[join.left]), **qualified(join.right, right or empty[join.right])}
        projected = {column: evaluate(expr, Context(row, params)) for expr, column in join.project}
        if projected["timestamp"] is None:
            projected["timestamp"] = (left or {}).get("timestamp") or (right or {}).get("timestamp")
        rows.append(projected)
    return rows


def joined_rows(pipeline: Pipeline, sources: dict, envs: dict, params: dict, tracker: Tracker) -> list[dict]:
    """The rows after the last join: each alias's rows through its ``with`` block, then the joins in order."""
    relations = {alias: [row for _, row in kept_rows(sources[alias], pipeline.scoped.get(alias, Pipeline()),
                                                      params, tracker)] for alias in pipeline.sources}
    for join in pipeline.joins:
        relations["_"] = run_join(join, relations, envs, params)
        relations[join.name or "_"] = relations["_"]
        envs["_"] = envs[join.name or "_"] = {column: None for _, column in join.project}
    return relations["_"]


def joined_input(args, schemas: dict, pipeline: Pipeline, setup: tuple) -> tuple[dict, list[tuple]]:
    """The parameters and the (None, row) pairs after the joins of a pipeline reading sources."""
    config, tracker = setup
    if config is None:
        raise MtlError(5, "a pipeline with sources needs --ingest-config")
    unknown = sorted(set(pipeline.sources.values()) - set(config))
    if unknown:
        raise MtlError(5, f"the ingest config has no source {', '.join(unknown)}")
    files = assign_files(config)
    params = bind_params(pipeline.params, args.param)
    resolve_schema(schemas, pipeline.schema, None)
    fields = {alias: resolve_schema(schemas, config[name]["schema"], None) for alias, name in pipeline.sources.items()}
    check_pipeline(pipeline, check_sources(pipeline, fields, params), params)
    read = {name: source_records(config[name], files[name], args, tracker) for name in set(pipeline.sources.values())}
    sources = {alias: materialized(read[name][0], fields[alias], params, (read[name][2], tracker))
               for alias, name in pipeline.sources.items()}
    for alias, name_ in pipeline.sources.items():
        tracker.watermark(name_, sources[alias])
    envs = {alias: fields[alias] for alias in pipeline.sources}
    return params, [(None, row) for row in joined_rows(pipeline, sources, envs, params, tracker)]


def plain_parts(args, tracker: Tracker) -> tuple[list[tuple], list]:
    """([(source name, records, context)], columns) of the --input files (source ``default``)."""
    records, header = read_inputs(args, tracker)
    return [("default", records, (args.timestamp_format, zone(args.tz)))], header


def config_parts(args, config: dict, tracker: Tracker) -> tuple[list[tuple], list]:
    """([(source name, records, context)] per source in config order, union of their columns) of every source
    of ``config``."""
    files = assign_files(config)
    read = {name: source_records(config[name], files[name], args, tracker) for name in config}
    return [(name, records, context) for name, (records, _, context) in read.items()], \
        list(dict.fromkeys(column for _, columns, _ in read.values() for column in columns))


def single_input(args, schemas: dict, pipeline: Pipeline, setup: tuple) -> tuple[dict, list[tuple]]:
    """The parameters and the (record, row) pairs of a pipeline without sources: the rows of every source of
    the ingest config when one is given (in config order), else of --input as in checkpoint 3."""
    config, tracker = setup
    parts, header = plain_parts(args, tracker) if config is None else config_parts(args, config, tracker)
    everything = [record for _, records, _ in parts for record in records]
    fields = legacy_fields(everything, header) if pipeline.schema is None else None
    params = bind_params(pipeline.params, args.param)
    if fields is None:
        fields = resolve_schema(schemas, pipeline.schema, set(header) if args.strict else None)
    check_pipeline(pipeline, {n: kind for n, (kind, _) in fields.items()}, params)
    rows = {name_: materialized(records, fields, params, (context, tracker)) for name_, records, context in parts}
    for name_, found in rows.items():
        tracker.watermark(name_, found)
    return params, [pair for found in rows.values() for pair in found]


# -------------------------------------------------------------- state and metadata

def fingerprint(path: str, gzipped: bool, scheme: str) -> dict:
    """How the state knows a file: its mtime (ms) and size, or the XXH64 of its content (decompressed)."""
    stat = os.stat(path)
    if scheme == "mtime_size":
        return {"scheme": scheme, "mtime_epoch_ms": stat.st_mtime_ns // 1_000_000, "size_bytes": stat.st_size}
    with (gzip.open if gzipped else open)(path, "rb") as handle:
        return {"scheme": scheme, "hash_hex": xxhash.xxh64_hexdigest(handle.read()), "size_bytes": stat.st_size}


def digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def state_file(args, pipeline: Pipeline) -> Path | None:
    """Where the pipeline's state lives (``None`` without --state-dir); raises 6 for --resume without
    --state-dir and for a --state-dir that is not a directory."""
    if args.state_dir is None:
        if args.resume:
            raise MtlError(6, "--resume needs --state-dir")
        return None
    if Path(args.state_dir).exists() and not Path(args.state_dir).is_dir():
        raise MtlError(6, f"--state-dir {args.state_dir} is not a directory")
    return Path(args.state_dir) / f"{pipeline.name}.state.json"


STATE_SCHEMA = {"type": "object", "required": ["pipeline", "dsl_sha256", "ingest_config_sha256", "created_at",
                                               "last_run"]}
"""The least a state file must hold to resume from it."""


def resumed_state(path: Path | None, digests: tuple, resume: bool) -> dict | None:
    """The state a --resume continues (``None`` for a fresh run); raises 6 when it is missing, malformed or
    made for another program or ingest config (``digests``: the current DSL and config SHA-256)."""
    if not resume:
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(state, STATE_SCHEMA)
    except FileNotFoundError:
        raise MtlError(6, f"no state to resume at {path}") from None
    except (OSError, ValueError, jsonschema.ValidationError) as error:
        raise MtlError(6, f"the state {path} is malformed: {error}") from None
    if (state["dsl_sha256"], state["ingest_config_sha256"]) != digests:
        raise MtlError(6, "breaking change: the program or the ingest config differs from the state's run")
    return state


def atomic_json(path: Path, document: dict) -> None:
    """Write ``document`` to ``path`` through a temporary file renamed over it; raises 3 (6 for the state)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False, encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
    os.replace(handle.name, path)


def file_entries(tracker: Tracker, scheme: str) -> list[tuple[str, dict]]:
    """(source, entry) of every file read, sorted by path: path, fingerprint, format and row counts."""
    bad: dict[str, int] = {}
    for entry in tracker.entries:
        bad[entry["file"]] = bad.get(entry["file"], 0) + 1
    found = []
    for source, (path, kind, gzipped), read in sorted(tracker.files, key=lambda item: item[1][0]):
        found.append((source, {"path": path, "fingerprint": fingerprint(path, gzipped, scheme), "format": kind,
                               "rows_read": read, "rows_valid": read - bad.get(path, 0), "rows_bad": bad.get(path, 0)}))
    return found


def state_document(run: dict, previous: dict | None, files: list[tuple[str, dict]], tracker: Tracker) -> dict:
    """The state a successful run leaves: digests, files done, each source's latest timestamp."""
    return {"pipeline": run["pipeline"].name, "dsl_version": run["version"], "dsl_sha256": run["digests"][0],
            "ingest_config_sha256": run["digests"][1],
            "created_at": previous["created_at"] if previous else run["completed_at"],
            "last_run": {"run_id": run["id"], "completed_at": run["completed_at"],
                         "files": [{"source": source, "path": entry["path"], "fingerprint": entry["fingerprint"],
                                    "status": "done"} for source, entry in files],
                         "watermarks": {source: {"max_timestamp_utc": moment and iso(moment)}
                                        for source, moment in sorted(tracker.watermarks.items())}}}


def duration_text(seconds: int) -> str:
    unit = next(unit for unit in ("d", "h", "m") if seconds % UNITS[unit] == 0)
    return f"{seconds // UNITS[unit]}{unit}"


def conjuncts(expr: Expr) -> list[str]:
    """The text of each operand of a join condition's top-level ``&``: ``A.x==B.y`` for an equality of two
    columns, else the expression's kind and operands."""
    if expr.kind == "and":
        return [text for part in expr.args for text in conjuncts(part)]
    if expr.kind == "cmp" and all(part.kind == "col" for part in expr.args):
        return [f"{expr.args[0].value}{expr.value}{expr.args[1].value}"]
    return [json.dumps(dataclasses.asdict(expr), default=str)]


def pipeline_meta(pipeline: Pipeline) -> dict:
    return {"name": pipeline.name, "schema": pipeline.schema, "group_by": pipeline.group_by or [],
            "window": pipeline.window and {"duration": duration_text(pipeline.window), "aligned_to_epoch": True},
            "aggregates": sorted(alias for _, _, alias in pipeline.aggregates),
            "post_agg_calcs": sorted(calc for calc, _, _ in pipeline.post),
            "joins": [{"left": join.left, "right": join.right, "type": join.kind,
                       "temporal_within": join.within and duration_text(join.within), "on_keys": conjuncts(join.on)}
                      for join in pipeline.joins]}


BAD_REASONS = ("PARSE_TYPE_MISMATCH", "TIMESTAMP_PARSE_ERROR", "RUNTIME_ERROR", "TYPE_ERROR",
               "MISSING_REQUIRED_FIELD", "PARQUET_TYPE_MISMATCH")
"""The reason codes the metadata counts (MAPPING_ERROR rows count only in their file's rows_bad)."""


def metadata(run: dict, args, files: list[tuple[str, dict]], result) -> dict:
    """The metadata document of a successful run (``run``: what the run knows of itself)."""
    pipeline, tracker = run["pipeline"], run["tracker"]
    sources: dict[str, list] = {}
    for source, entry in files:
        sources.setdefault(source, []).append(entry)
    rows = len(result) if isinstance(result, list) else 1
    primary = "window_start" if pipeline.window else (pipeline.group_by or [None])[0]
    return {
        "run": {"run_id": run["id"], "started_at": run["started_at"], "completed_at": run["completed_at"],
                "duration_ms": run["duration_ms"], "resume": args.resume},
        "versions": {"mtl_runtime": RUNTIME, "dsl_version": run["version"], "dsl_sha256": run["digests"][0],
                     "ingest_config_sha256": run["digests"][1]},
        "inputs": {"sources": [{"name": name_, "files": sources[name_]} for name_ in sorted(sources)],
                   "params": {key: output_value(param.value) for key, param in run["params"].items()}, "tz": args.tz,
                   "timestamp_format": args.timestamp_format,
                   "null_markers": marker_list((args.nulls or "").split(","))},
        "pipeline": pipeline_meta(pipeline),
        "udfs": [],
        "quality": {"strict": args.strict, "bad_record_counts": {reason: sum(
            entry["reason_code"] == reason for entry in tracker.entries) for reason in BAD_REASONS}},
        "output": {"shape": "array" if isinstance(result, list) else "object", "row_count": rows,
                   "ordering": {"primary": primary, "secondary": pipeline.group_by or []},
                   "key_ordering": {"window_keys_first": pipeline.window is not None, "aggregate_aliases_lex": True,
                                    "post_agg_calcs_lex": True}},
    }


# ------------------------------------------------------------------------- CLI

def read_dsl(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise MtlError(3, f"cannot read {path}: {error}") from error


def zone(name_: str):
    try:
        return ZoneInfo(name_)
    except (ValueError, KeyError, OSError):
        raise MtlError(3, f"unknown time zone {name_!r}") from None


def write(result, out: str | None) -> None:
    text = json.dumps(result) + "\n"
    if not out or out == "-":
        sys.stdout.write(text)
        return
    try:
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise MtlError(3, f"cannot write {out}: {error}") from error


def now() -> datetime:
    return datetime.now(UTC)


def read_config_text(path: str | None) -> str | None:
    try:
        return None if path is None else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MtlError(3, f"cannot read the ingest config {path}: {error}") from error


def finish(run_: dict, args, result) -> None:
    """Write the result, then the metadata and the state of the successful run ``run_``."""
    write(result, args.out)
    files = file_entries(run_["tracker"], args.fingerprint)
    completed = now()
    run_.update(completed_at=iso(completed), duration_ms=int((completed - run_["start"]).total_seconds() * 1000))
    if args.meta_out:
        try:
            atomic_json(Path(args.meta_out), metadata(run_, args, files, result))
        except OSError as error:
            raise MtlError(3, f"cannot write {args.meta_out}: {error}") from error
    if run_["state"] is not None:
        try:
            atomic_json(run_["state"], state_document(run_, run_["previous"], files, run_["tracker"]))
        except OSError as error:
            raise MtlError(6, f"cannot write the state {run_['state']}: {error}") from error


def execute(args) -> None:
    zone(args.tz)
    if not args.input and not args.csv and not args.ingest_config:
        raise MtlError(3, "give at least one --input, or --ingest-config")
    start, source = now(), read_dsl(args.dsl)
    version, code = version_header(source)
    schemas, pipeline = parse_program(code)
    check_gates(version, schemas, pipeline)
    config_text = read_config_text(args.ingest_config)
    config = load_config(args.ingest_config, schemas) if args.ingest_config else None
    digests = (digest(source), digest(config_text))
    state = state_file(args, pipeline)
    previous = resumed_state(state, digests, args.resume)
    tracker = Tracker(args.strict)
    params, rows = (single_input if pipeline.sources is None else joined_input)(args, schemas, pipeline,
                                                                                (config, tracker))
    result = run(pipeline, kept_rows(rows, pipeline, params, tracker), params)
    tracker.write(args.bad_records_out)
    finish({"id": str(uuid.uuid4()), "start": start, "started_at": iso(start), "pipeline": pipeline,
            "tracker": tracker, "params": params, "version": f"{version[0]}.{version[1]}", "digests": digests,
            "state": state, "previous": previous}, args, result)
    if version < SUPPORTED:
        sys.stderr.write(f"WARNING:the program declares mtl_version {version[0]}.{version[1]}; this runtime is "
                         f"{SUPPORTED[0]}.{SUPPORTED[1]} and keeps the declared version's behaviour\n")


def main() -> int:
    parser = argparse.ArgumentParser(prog="mtl")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--csv")
    parser.add_argument("--dsl", required=True)
    parser.add_argument("--out")
    parser.add_argument("--tz", default="UTC")
    parser.add_argument("--timestamp-format")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--param", action="append", default=[])
    parser.add_argument("--recursive", action="store_true")
    parser.add_argument("--format", default="auto", choices=["auto", "csv", "tsv", "parquet"])
    parser.add_argument("--nulls")
    parser.add_argument("--bad-records-out")
    parser.add_argument("--ingest-config")
    parser.add_argument("--meta-out")
    parser.add_argument("--state-dir")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--fingerprint", default="mtime_size", choices=["mtime_size", "xxhash64"])
    parser.add_argument("--checkpoint-granularity", default="file", choices=["file", "rowgroup", "line"])
    parser.add_argument("--udf", action="append", default=[])
    args = parser.parse_args()
    try:
        execute(args)
    except MtlError as error:
        sys.stderr.write(f"ERROR:{KINDS[error.code]}:{error}\n")
        return error.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
