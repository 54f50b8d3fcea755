"""ETL pipeline: reads a JSON request on stdin, prints its canonical steps (or, with --execute, the rows the
steps produce from the dataset) or an error, as JSON."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any


class EtlError(Exception):
    """A reported failure: its code, a human message (without the prefix) and the path of the culprit."""

    def __init__(self, code: str, message: str, path: str):
        super().__init__(message)
        self.code, self.message, self.path = code, message, path

    def to_json(self) -> dict:
        return {"status": "error", "error_code": self.code, "message": f"ETL_ERROR: {self.message}", "path": self.path}


def schema_error(message: str, path: str) -> EtlError:
    return EtlError("SCHEMA_VALIDATION_FAILED", message, path)


# ---------------------------------------------------------------- expressions

TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r'|(?P<string>"(?:[^"\\]|\\.)*")'
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>&&|\|\||==|!=|<=|>=|[-+*/<>!()]))"
)
WORD_OPERATORS = {"and": "&&", "or": "||", "not": "!"}
CONSTANTS = {"true": True, "false": False, "null": None}
BINARY_LEVELS = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6}
UNARY = {"!", "-"}


class ExpressionSyntaxError(Exception):
    """The expression text does not parse; the message says where."""


def tokenize(text: str) -> list[tuple[str, Any]]:
    """The tokens of ``text`` as (kind, value) pairs, ending with ("end", None)."""
    tokens, position = [], 0
    while text[position:].strip():
        match = TOKEN.match(text, position)
        if match is None:
            raise ExpressionSyntaxError(f"unexpected character {text[position:].strip()[0]!r}")
        position = match.end()
        tokens.append(read_token(match.lastgroup, match.group(match.lastgroup)))
    tokens.append(("end", None))
    return tokens


def read_token(kind: str, text: str) -> tuple[str, Any]:
    if kind == "number":
        return "literal", float(text) if any(c in text for c in ".eE") else int(text)
    if kind == "string":
        try:
            return "literal", json.loads(text)
        except json.JSONDecodeError as error:
            raise ExpressionSyntaxError(f"bad string literal {text}: {error.msg}") from error
    if kind == "name" and text in CONSTANTS:
        return "literal", CONSTANTS[text]
    if kind == "name" and text in WORD_OPERATORS:
        return "op", WORD_OPERATORS[text]
    return kind, text


class Parser:
    """Precedence climbing over the tokens; nodes are tuples ("literal", v), ("field", name),
    ("unary", op, node) and ("binary", op, left, right)."""

    def __init__(self, text: str):
        self.tokens = tokenize(text)
        self.position = 0

    def peek(self) -> tuple[str, Any]:
        return self.tokens[self.position]

    def take(self) -> tuple[str, Any]:
        self.position += 1
        return self.tokens[self.position - 1]

    def parse(self) -> tuple:
        node = self.binary(1)
        if self.peek()[0] != "end":
            raise ExpressionSyntaxError(f"unexpected {self.peek()[1]!r}")
        return node

    def binary(self, level: int) -> tuple:
        node = self.unary()
        while self.peek()[0] == "op" and BINARY_LEVELS.get(self.peek()[1], 0) >= level:
            operator = self.take()[1]
            node = ("binary", operator, node, self.binary(BINARY_LEVELS[operator] + 1))
        return node

    def unary(self) -> tuple:
        kind, value = self.take()
        if kind == "op" and value in UNARY:
            return ("unary", value, self.unary())
        if kind == "op" and value == "(":
            node = self.binary(1)
            if self.take() != ("op", ")"):
                raise ExpressionSyntaxError("missing ')'")
            return node
        if kind == "literal":
            return ("literal", value)
        if kind == "name":
            return ("field", value)
        raise ExpressionSyntaxError("unexpected end of expression" if kind == "end" else f"unexpected {value!r}")


def parse_expression(text: str, path: str) -> tuple:
    """The syntax tree of ``text``; a BAD_EXPR error at ``path`` when it does not parse."""
    try:
        return Parser(text).parse()
    except ExpressionSyntaxError as error:
        raise EtlError("BAD_EXPR", f"bad expression {text!r}: {error}", path) from error


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def arithmetic(operation):
    """A binary arithmetic operator: null unless both operands are numbers."""
    return lambda left, right: operation(left, right) if is_number(left) and is_number(right) else None


ORDERED_KINDS = {"number", "str", "bool"}


def kind(value: Any) -> str:
    return "number" if is_number(value) else type(value).__name__


def comparable(left: Any, right: Any) -> bool:
    """Two numbers, two strings or two booleans; null and every other pair never compare."""
    return kind(left) == kind(right) and kind(left) in ORDERED_KINDS


def comparison(operation):
    return lambda left, right: comparable(left, right) and operation(left, right)


ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b if b != 0 else None,
}
COMPARISONS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
STRICT_BINARY = {
    **{op: arithmetic(operation) for op, operation in ARITHMETIC.items()},
    **{op: comparison(operation) for op, operation in COMPARISONS.items()},
}
UNARY_OPERATIONS = {
    "!": lambda value: value is not True,
    "-": lambda value: -value if is_number(value) else None,
}


def evaluate(node: tuple, row: dict) -> Any:
    """The value of a syntax tree on one row (never fails: bad operands give null or false)."""
    return EVALUATORS[node[0]](node, row)


def evaluate_binary(node: tuple, row: dict) -> Any:
    _, operator, left, right = node
    if operator == "&&":
        return evaluate(left, row) is True and evaluate(right, row) is True
    if operator == "||":
        return evaluate(left, row) is True or evaluate(right, row) is True
    return STRICT_BINARY[operator](evaluate(left, row), evaluate(right, row))


EVALUATORS = {
    "literal": lambda node, row: node[1],
    "field": lambda node, row: row.get(node[1]),
    "unary": lambda node, row: UNARY_OPERATIONS[node[1]](evaluate(node[2], row)),
    "binary": evaluate_binary,
}


# ---------------------------------------------------------------- normalization


def required_text(step: dict, field: str, path: str) -> str:
    """The trimmed string ``step[field]``; SCHEMA_VALIDATION_FAILED when missing, not a string or blank."""
    value = step.get(field)
    if not isinstance(value, str) or not value.strip():
        raise schema_error(f"'{field}' must be a non-empty string", f"{path}.{field}")
    return value.strip()


def normalize_select(step: dict, path: str) -> dict:
    columns = step.get("columns")
    if not isinstance(columns, list) or not columns:
        raise schema_error("'columns' must be a non-empty array of strings", f"{path}.columns")
    for index, column in enumerate(columns):
        if not isinstance(column, str) or not column.strip():
            raise schema_error("a column must be a non-empty string", f"{path}.columns[{index}]")
    if len(set(columns)) != len(columns):
        raise schema_error("'columns' names a column twice", f"{path}.columns")
    return {"columns": list(columns)}


def normalize_filter(step: dict, path: str) -> dict:
    where = required_text(step, "where", path)
    parse_expression(where, f"{path}.where")
    return {"where": where}


def normalize_map(step: dict, path: str) -> dict:
    alias = required_text(step, "as", path)
    expr = required_text(step, "expr", path)
    parse_expression(expr, f"{path}.expr")
    return {"as": alias, "expr": expr}


def rename_pair(step: dict, path: str) -> dict:
    """The from/to form as a one-entry mapping, both names trimmed."""
    source, target = (required_text(step, key, path) for key in ("from", "to"))
    return {source: target}


def rename_mapping(step: dict, path: str) -> dict:
    """The mapping form, kept exactly; every target a non-blank string."""
    mapping = step["mapping"]
    if not isinstance(mapping, dict) or not mapping:
        raise schema_error("'mapping' must be a non-empty object", f"{path}.mapping")
    for source, target in mapping.items():
        if not isinstance(target, str) or not target.strip():
            raise schema_error("a mapping target must be a non-empty string", f"{path}.mapping.{source}")
    return dict(mapping)


RENAME_FORMS = {("from", "to"): rename_pair, ("mapping",): rename_mapping}


def normalize_rename(step: dict, path: str) -> dict:
    forms = [form for keys, form in RENAME_FORMS.items() if any(key in step for key in keys)]
    if len(forms) != 1:
        raise schema_error("'rename' takes either 'from'/'to' or 'mapping'", path)
    return {"mapping": forms[0](step, path)}


def normalize_limit(step: dict, path: str) -> dict:
    n = step.get("n")
    if type(n) is not int or n < 0:
        raise schema_error("'n' must be an integer >= 0", f"{path}.n")
    return {"n": n}


NORMALIZERS = {
    "select": normalize_select,
    "filter": normalize_filter,
    "map": normalize_map,
    "rename": normalize_rename,
    "limit": normalize_limit,
}


def normalize_step(step: Any, path: str) -> dict:
    """The canonical form of one step: op first, then its fields in alphabetical order."""
    if not isinstance(step, dict):
        raise schema_error("a step must be an object", path)
    op = step.get("op")
    if not isinstance(op, str) or not op.strip():
        raise schema_error("'op' must be a non-empty string", f"{path}.op")
    op = op.strip().lower()
    if op not in NORMALIZERS:
        raise EtlError("UNKNOWN_OP", f"unsupported op '{op}'", f"{path}.op")
    fields = NORMALIZERS[op](step, path)
    return {"op": op, **dict(sorted(fields.items()))}


def normalize_steps(steps: list, path: str) -> list[dict]:
    return [normalize_step(step, f"{path}[{index}]") for index, step in enumerate(steps)]


# ---------------------------------------------------------------- request shape


def check_shape(request: Any) -> None:
    """The request's overall shape: an object with pipeline.steps an array and dataset an array of objects."""
    if not isinstance(request, dict):
        raise schema_error("the request must be a JSON object", "")
    pipeline = request.get("pipeline")
    if not isinstance(pipeline, dict):
        raise schema_error("'pipeline' must be an object", "pipeline")
    if not isinstance(pipeline.get("steps"), list):
        raise schema_error("'pipeline.steps' must be an array", "pipeline.steps")
    for index, step in enumerate(pipeline["steps"]):
        if not isinstance(step, dict):
            raise schema_error("a step must be an object", f"pipeline.steps[{index}]")
        if not isinstance(step.get("op"), str):
            raise schema_error("a step needs a string 'op'", f"pipeline.steps[{index}].op")
    if not isinstance(request.get("dataset"), list):
        raise schema_error("'dataset' must be an array", "dataset")
    for index, row in enumerate(request["dataset"]):
        if not isinstance(row, dict):
            raise schema_error("a row must be an object", f"dataset[{index}]")


# ---------------------------------------------------------------- execution


def run_select(step: dict, rows: list[dict], path: str) -> list[dict]:
    for row in rows:
        for index, column in enumerate(step["columns"]):
            if column not in row:
                raise EtlError("MISSING_COLUMN", f"column '{column}' not found in a row", f"{path}.columns[{index}]")
    return [{column: row[column] for column in step["columns"]} for row in rows]


def run_filter(step: dict, rows: list[dict], path: str) -> list[dict]:
    condition = parse_expression(step["where"], f"{path}.where")
    return [row for row in rows if evaluate(condition, row) is True]


def run_map(step: dict, rows: list[dict], path: str) -> list[dict]:
    expression = parse_expression(step["expr"], f"{path}.expr")
    return [{**row, step["as"]: evaluate(expression, row)} for row in rows]


def rename_row(row: dict, mapping: dict, path: str) -> dict:
    missing = [source for source in mapping if source not in row]
    if missing:
        raise EtlError("MISSING_COLUMN", f"column '{missing[0]}' not found in a row", f"{path}.mapping.{missing[0]}")
    renamed = dict(row)
    for source, target in mapping.items():
        renamed[target] = row[source]
    targets = set(mapping.values())
    return {key: value for key, value in renamed.items() if key in targets or key not in mapping}


def run_rename(step: dict, rows: list[dict], path: str) -> list[dict]:
    return [rename_row(row, step["mapping"], path) for row in rows]


RUNNERS = {
    "select": run_select,
    "filter": run_filter,
    "map": run_map,
    "rename": run_rename,
    "limit": lambda step, rows, path: rows[: step["n"]],
}


def run_steps(steps: list[dict], rows: list[dict], path: str) -> list[dict]:
    """The rows the normalized steps make of ``rows``; MISSING_COLUMN when a row lacks a column a step needs."""
    for index, step in enumerate(steps):
        rows = RUNNERS[step["op"]](step, rows, f"{path}[{index}]")
    return rows


def handle(request: Any, execute: bool) -> dict:
    """The response to one request; raises EtlError."""
    check_shape(request)
    steps = normalize_steps(request["pipeline"]["steps"], "pipeline.steps")
    dataset = request["dataset"]
    if not execute:
        return {"status": "ok", "normalized": {"steps": steps}}
    rows = run_steps(steps, dataset, "pipeline.steps")
    return {"status": "ok", "data": rows, "metrics": {"rows_in": len(dataset), "rows_out": len(rows)}}


def main() -> int:
    parser = argparse.ArgumentParser(description="Validate, normalize and optionally execute an ETL pipeline.")
    parser.add_argument("--execute", action="store_true", help="run the steps over the dataset")
    execute = parser.parse_args().execute
    try:
        try:
            request = json.loads(sys.stdin.read())
        except json.JSONDecodeError as error:
            raise schema_error(f"standard input is not JSON: {error}", "") from error
        response, code = handle(request, execute), 0
    except EtlError as error:
        response, code = error.to_json(), 1
    print(json.dumps(response))
    return code


if __name__ == "__main__":
    sys.exit(main())
