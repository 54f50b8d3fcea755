"""Reference for metric_transform_lang checkpoint 1: one pipeline of filter/apply/group_by/window/aggregate
statements over a CSV of sales events, printed as deterministic JSON."""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

KINDS = {1: "bad_dsl", 2: "type_error", 3: "bad_io", 4: "runtime_error"}
BASE_TYPES = {"timestamp": "timestamp", "location": "string", "item": "string", "price": "number",
              "quantity": "number", "unit": "string", "category": "string"}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
UNITS = {"m": 60, "h": 3600, "d": 86400}
TOKEN = re.compile(r"\s*(?:(?P<num>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<str>'[^']*')|"
                   r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op><=|>=|==|!=|[<>()&|!])|(?P<bad>\S))")


class MtlError(Exception):
    """An error with its exit code (1 bad_dsl, 2 type_error, 3 bad_io, 4 runtime_error)."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------ expressions

@dataclass
class Expr:
    kind: str            # lit, col, cmp, and, or, not, in
    value: object = None
    args: list = field(default_factory=list)


class ExprParser:
    """Recursive descent over tokens: or := and ('|' and)*; and := not ('&' not)*; not := '!' not | cmp."""

    def __init__(self, text: str):
        self.tokens = []
        for match in TOKEN.finditer(text):
            if match.group("bad"):
                raise MtlError(1, f"unexpected character {match.group('bad')!r}")
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind)))
        self.tokens.append(("end", None))
        self.at = 0

    def peek(self):
        return self.tokens[self.at]

    def take(self):
        token = self.tokens[self.at]
        self.at += 1
        return token

    def parse(self) -> Expr:
        expr = self.disjunction()
        if self.peek()[0] != "end":
            raise MtlError(1, f"unexpected {self.peek()[1]!r} in expression")
        return expr

    def binary(self, operator: str, kind: str, operand) -> Expr:
        expr = operand()
        while self.peek() == ("op", operator):
            self.take()
            expr = Expr(kind, args=[expr, operand()])
        return expr

    def disjunction(self) -> Expr:
        return self.binary("|", "or", self.conjunction)

    def conjunction(self) -> Expr:
        return self.binary("&", "and", self.negation)

    def negation(self) -> Expr:
        if self.peek() == ("op", "!"):
            self.take()
            return Expr("not", args=[self.negation()])
        return self.comparison()

    def comparison(self) -> Expr:
        left = self.primary()
        kind, text = self.peek()
        if kind == "name" and text.lower() == "in":
            self.take()
            right = self.primary()
            if not (left.kind == "lit" and isinstance(left.value, str)) or right.kind != "col":
                raise MtlError(1, "'in' takes a string literal on the left and a column on the right")
            return Expr("in", args=[left, right])
        if kind == "op" and text in ("<", "<=", ">", ">=", "==", "!="):
            self.take()
            return Expr("cmp", text, [left, self.primary()])
        return left

    def primary(self) -> Expr:
        kind, text = self.take()
        if kind == "num":
            return Expr("lit", float(text))
        if kind == "str":
            return Expr("lit", text[1:-1])
        if kind == "name" and text.lower() in ("true", "false"):
            return Expr("lit", text.lower() == "true")
        if kind == "name" and text.lower() != "in":
            return Expr("col", text)
        if (kind, text) == ("op", "("):
            expr = self.disjunction()
            if self.take() != ("op", ")"):
                raise MtlError(1, "missing ')'")
            return expr
        raise MtlError(1, f"unexpected {text!r} in expression")


# --------------------------------------------------------------------- program

@dataclass
class Program:
    steps: list = field(default_factory=list)       # ("filter", Expr) | ("apply", fn, column, digits, new)
    group_by: list | None = None
    window: int | None = None                         # seconds
    aggregates: list | None = None                    # (fn, column or None, alias)


def statements(source: str) -> list[str]:
    """Non-empty, non-comment lines; an indented line continues an aggregate statement only."""
    found: list[str] = []
    for line in source.splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if line[:1].isspace() and found:
            if not found[-1].startswith("aggregate"):
                raise MtlError(1, "only an aggregate statement continues on indented lines")
            found[-1] += " " + text
        else:
            found.append(text)
    return found


def inside(text: str, keyword: str) -> str:
    if not (text.startswith(keyword + "(") and text.endswith(")")) or not text[len(keyword) + 1:-1].strip():
        raise MtlError(1, f"{keyword} needs (...) with something inside")
    return text[len(keyword) + 1:-1].strip()


def name(text: str) -> str:
    if not NAME.match(text.strip()):
        raise MtlError(1, f"{text.strip()!r} is not a column name")
    return text.strip()


def parse_filter(text: str, program: Program) -> None:
    program.steps.append(("filter", ExprParser(inside(text, "filter")).parse()))


def parse_apply(text: str, program: Program) -> None:
    parts = inside(text, "apply").rsplit(",", 1)
    match = re.fullmatch(r"(len|day|month|year|round)\((.*)\)", parts[0].strip())
    if len(parts) != 2 or not match:
        raise MtlError(1, "apply takes a transform and a new column name")
    function, arguments = match.group(1), [part.strip() for part in match.group(2).split(",")]
    digits = 0
    if function == "round" and len(arguments) == 2:
        if not re.fullmatch(r"[+-]?\d+", arguments[1]):
            raise MtlError(1, "round's digits must be an integer literal")
        digits = int(arguments.pop())
    if len(arguments) != 1:
        raise MtlError(1, f"{function} takes one column")
    program.steps.append(("apply", function, name(arguments[0]), digits, name(parts[1])))


def parse_group_by(text: str, program: Program) -> None:
    if program.group_by is not None:
        raise MtlError(1, "group_by given twice")
    body = inside(text, "group_by")
    columns = body[1:-1].split(",") if body.startswith("[") and body.endswith("]") else [body]
    program.group_by = [name(column) for column in columns]
    program.group_at = len(program.steps)


def parse_window(text: str, program: Program) -> None:
    if program.window is not None:
        raise MtlError(1, "window given twice")
    match = re.fullmatch(r"(\d+)([mhd])", inside(text, "window"))
    if not match or int(match.group(1)) == 0:
        raise MtlError(1, "window takes a positive duration such as 10m, 1h or 7d")
    program.window = int(match.group(1)) * UNITS[match.group(2)]


def parse_aggregate(text: str, program: Program) -> None:
    if program.aggregates is not None:
        raise MtlError(1, "aggregate given twice")
    program.aggregates = []
    for entry in text[len("aggregate"):].split(","):
        match = re.fullmatch(r"\s*(sum|average|median|count|std|var|min|max)\(\s*([^()]*?)\s*\)\s+as\s+(\w+)\s*",
                             entry)
        if not match or (match.group(1) == "count") != (match.group(2) == "*"):
            raise MtlError(1, f"bad aggregate entry {entry.strip()!r}")
        function, column, alias = match.groups()
        if alias in {a for _, _, a in program.aggregates}:
            raise MtlError(1, f"alias {alias} given twice")
        program.aggregates.append((function, None if column == "*" else name(column), alias))


STATEMENTS = {"filter": parse_filter, "apply": parse_apply, "group_by": parse_group_by, "window": parse_window,
              "aggregate": parse_aggregate}


def parse_program(source: str) -> Program:
    program = Program()
    for text in statements(source):
        keyword = re.match(r"[a-z_]*", text).group(0)
        if keyword not in STATEMENTS:
            raise MtlError(1, f"unknown statement {text!r}")
        if program.aggregates is not None and keyword != "aggregate":
            raise MtlError(1, "aggregate must be the last statement")
        STATEMENTS[keyword](text, program)
    if program.aggregates is None:
        raise MtlError(1, "an aggregate statement is required")
    return program


# ----------------------------------------------------------------------- types

def expr_type(expr: Expr, env: dict) -> str:
    if expr.kind == "lit":
        return {bool: "bool", str: "string"}.get(type(expr.value), "number")
    if expr.kind == "col":
        if expr.value not in env:
            raise MtlError(2, f"unknown column {expr.value}")
        return env[expr.value]
    if expr.kind == "in":
        if expr_type(expr.args[1], env) != "string":
            raise MtlError(2, "'in' needs a string column")
        return "bool"
    kinds = [expr_type(arg, env) for arg in expr.args]
    if expr.kind == "cmp":
        if kinds[0] != kinds[1] or (kinds[0] == "bool" and expr.value not in ("==", "!=")):
            raise MtlError(2, f"cannot compare {kinds[0]} {expr.value} {kinds[1]}")
    elif any(kind != "bool" for kind in kinds):
        raise MtlError(2, f"{expr.kind} needs booleans")
    return "bool"


TRANSFORM_INPUT = {"len": "string", "day": "timestamp", "month": "timestamp", "year": "timestamp", "round": "number"}


def check_types(program: Program, env: dict) -> None:
    env = dict(env)
    for position, step in enumerate(program.steps):
        if getattr(program, "group_at", None) == position:
            check_columns(program.group_by, env)
        if step[0] == "filter":
            if expr_type(step[1], env) != "bool":
                raise MtlError(2, "filter needs a boolean expression")
        else:
            _, function, column, _, new = step
            if env.get(column) != TRANSFORM_INPUT[function]:
                raise MtlError(2, f"{function} needs a {TRANSFORM_INPUT[function]} column, not {env.get(column)}")
            env[new] = "number"
    if program.group_by is not None:
        check_columns(program.group_by, env)
    if env.get("timestamp") != "timestamp":
        raise MtlError(2, "timestamp must stay a timestamp")
    for function, column, alias in program.aggregates:
        if column is not None and env.get(column) != "number":
            raise MtlError(2, f"{alias}: {function} needs a numeric column")


def check_columns(columns: list, env: dict) -> None:
    for column in columns:
        if column not in env:
            raise MtlError(2, f"group_by column {column} is not defined")


# ------------------------------------------------------------------------ data

def parse_time(text: str, fmt: str | None, zone) -> datetime:
    try:
        if fmt:
            moment = datetime.strptime(text, fmt)
        else:
            moment = datetime.fromisoformat(re.sub(r"([+-]\d\d)(\d\d)$", r"\1:\2", text.strip()).replace("Z", "+00:00"))
    except ValueError:
        raise MtlError(4, f"bad timestamp {text!r}") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=zone)).astimezone(UTC)


def number(text: str, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise MtlError(4, f"{column} value {text!r} is not a number") from None
    if not math.isfinite(value):
        raise MtlError(4, f"{column} value {text!r} is not finite")
    return value


def looks_numeric(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def extra_type(values: list[str]) -> str:
    """An extra column is bool when every value is true/false (any case), number when every value is a finite
    number, else string; an empty value makes it a string."""
    cleaned = [value.strip() for value in values]
    if all(value.lower() in ("true", "false") for value in cleaned):
        return "bool"
    if all(looks_numeric(value) for value in cleaned):
        return "number"
    return "string"


CONVERT = {"bool": lambda text, _: text.strip().lower() == "true", "number": number, "string": lambda text, _: text}


def load(path: str, fmt: str | None, zone) -> tuple[list[dict], dict]:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            raw = list(reader)
    except (OSError, UnicodeDecodeError) as error:
        raise MtlError(3, f"cannot read {path}: {error}") from error
    missing = sorted(set(BASE_TYPES) - set(header))
    if missing:
        raise MtlError(3, f"the CSV lacks columns {', '.join(missing)}")
    extras = [column for column in header if column not in BASE_TYPES]
    types = {**{column: extra_type([row[column] or "" for row in raw]) for column in extras}, **BASE_TYPES}
    rows = []
    for row in raw:
        converted = {column: CONVERT[kind](row[column] or "", column) for column, kind in types.items()
                     if kind != "timestamp"}
        converted["timestamp"] = parse_time(row["timestamp"] or "", fmt, zone)
        rows.append(converted)
    return rows, types


# ------------------------------------------------------------------- execution

COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
           "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def evaluate(expr: Expr, row: dict):
    kind = expr.kind
    if kind == "lit":
        return expr.value
    if kind == "col":
        return row[expr.value]
    if kind == "in":
        return expr.args[0].value in row[expr.args[1].value]
    values = [evaluate(arg, row) for arg in expr.args]
    if kind == "cmp":
        return COMPARE[expr.value](*values)
    if kind == "not":
        return not values[0]
    return all(values) if kind == "and" else any(values)


def round_away(value: float, digits: int) -> float:
    scaled = value * 10 ** digits
    return math.copysign(math.floor(abs(scaled) + 0.5), scaled) / 10 ** digits


TRANSFORMS = {"len": len, "day": lambda t: t.day, "month": lambda t: t.month, "year": lambda t: t.year}


def transformed(row: dict, program: Program) -> dict | None:
    row = dict(row)
    for step in program.steps:
        if step[0] == "filter":
            if not evaluate(step[1], row):
                return None
            continue
        _, function, column, digits, new = step
        row[new] = round_away(row[column], digits) if function == "round" else TRANSFORMS[function](row[column])
    return row


def median(values: list[float]) -> float:
    ordered, middle = sorted(values), len(values) // 2
    return ordered[middle] if len(values) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def variance(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return sum((value - mean) ** 2 for value in values) / len(values)


AGGREGATES = {"sum": math.fsum, "average": lambda v: math.fsum(v) / len(v), "median": median, "min": min, "max": max,
              "var": variance, "std": lambda v: math.sqrt(variance(v))}


def aggregate(rows: list[dict], aggregates: list) -> dict:
    result = {}
    for function, column, alias in sorted(aggregates, key=lambda entry: entry[2]):
        if function == "count":
            result[alias] = len(rows)
            continue
        values = [float(row[column]) for row in rows]
        value = AGGREGATES[function](values) if values else None
        if value is not None and not math.isfinite(value):
            raise MtlError(4, f"{alias} is not finite")
        result[alias] = value
    return result


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def output_value(value):
    return iso(value) if isinstance(value, datetime) else value


def run(program: Program, rows: list[dict]):
    kept = [row for row in (transformed(row, program) for row in rows) if row is not None]
    if program.group_by is None and program.window is None:
        return aggregate(kept, program.aggregates)
    groups: dict[tuple, list] = {}
    for row in kept:
        start = None
        if program.window:
            seconds = int((row["timestamp"] - EPOCH).total_seconds()) // program.window * program.window
            start = EPOCH + timedelta(seconds=seconds)
        groups.setdefault((start, *(row[c] for c in program.group_by or [])), []).append(row)
    results = []
    for key in sorted(groups, key=lambda key: key if program.window else key[1:]):
        head = {"window_start": iso(key[0]), "window_end": iso(key[0] + timedelta(seconds=program.window))} \
            if program.window else {}
        values = zip(program.group_by or [], key[1:], strict=True)
        head.update({column: output_value(value) for column, value in values})
        results.append({**head, **aggregate(groups[key], program.aggregates)})
    return results


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


def main() -> int:
    parser = argparse.ArgumentParser(prog="mtl")
    parser.add_argument("--csv", required=True)
    parser.add_argument("--dsl", required=True)
    parser.add_argument("--out")
    parser.add_argument("--tz", default="UTC")
    parser.add_argument("--timestamp-format")
    args = parser.parse_args()
    try:
        program = parse_program(read_dsl(args.dsl))
        rows, types = load(args.csv, args.timestamp_format, zone(args.tz))
        check_types(program, types)
        write(run(program, rows), args.out)
    except MtlError as error:
        sys.stderr.write(f"ERROR:{KINDS[error.code]}:{error}\n")
        return error.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
