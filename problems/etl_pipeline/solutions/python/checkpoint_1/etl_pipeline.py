"""ETL pipeline normalizer: reads a JSON request on stdin, prints the canonical steps or an error as JSON."""

from __future__ import annotations

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
BINARY = {"||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"}
UNARY = {"!", "-"}
OPERANDS = {"number", "string", "name"}
"""Token kinds that stand for a value (`true`, `false` and `null` are names here: nothing is evaluated yet)."""


class ExpressionSyntaxError(Exception):
    """The expression text does not parse; the message says where."""


def tokenize(text: str) -> list[tuple[str, Any]]:
    """The tokens of ``text`` as (kind, text) pairs, kind "operand" or "op", ending with ("end", None)."""
    tokens, position = [], 0
    while text[position:].strip():
        match = TOKEN.match(text, position)
        if match is None:
            raise ExpressionSyntaxError(f"unexpected character {text[position:].strip()[0]!r}")
        position = match.end()
        tokens.append(read_token(match.lastgroup, match.group(match.lastgroup)))
    tokens.append(("end", None))
    return tokens


def read_token(kind: str, text: str) -> tuple[str, str]:
    if kind == "string":
        try:
            json.loads(text)
        except json.JSONDecodeError as error:
            raise ExpressionSyntaxError(f"bad string literal {text}: {error.msg}") from error
    if kind == "name" and text in WORD_OPERATORS:
        return "op", WORD_OPERATORS[text]
    return ("operand" if kind in OPERANDS else kind), text


class Recognizer:
    """Checks the tokens against the grammar without building a tree (nothing is evaluated at this
    version): operands joined by binary operators, each operand after any unary operators, parentheses
    nesting. Precedence decides only how an expression groups, never whether it parses."""

    def __init__(self, text: str):
        self.tokens = tokenize(text)
        self.position = 0

    def peek(self) -> tuple[str, Any]:
        return self.tokens[self.position]

    def take(self) -> tuple[str, Any]:
        self.position += 1
        return self.tokens[self.position - 1]

    def check(self) -> None:
        """Raise ExpressionSyntaxError unless the whole text is one expression."""
        self.expression()
        if self.peek()[0] != "end":
            raise ExpressionSyntaxError(f"unexpected {self.peek()[1]!r}")

    def expression(self) -> None:
        self.operand()
        while self.peek()[0] == "op" and self.peek()[1] in BINARY:
            self.take()
            self.operand()

    def operand(self) -> None:
        kind, value = self.take()
        while kind == "op" and value in UNARY:
            kind, value = self.take()
        if (kind, value) == ("op", "("):
            self.expression()
            if self.take() != ("op", ")"):
                raise ExpressionSyntaxError("missing ')'")
        elif kind != "operand":
            raise ExpressionSyntaxError("unexpected end of expression" if kind == "end" else f"unexpected {value!r}")


def check_expression(text: str, path: str) -> None:
    """Raise a BAD_EXPR error at ``path`` when ``text`` does not parse."""
    try:
        Recognizer(text).check()
    except ExpressionSyntaxError as error:
        raise EtlError("BAD_EXPR", f"bad expression {text!r}: {error}", path) from error


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
    check_expression(where, f"{path}.where")
    return {"where": where}


def normalize_map(step: dict, path: str) -> dict:
    alias = required_text(step, "as", path)
    expr = required_text(step, "expr", path)
    check_expression(expr, f"{path}.expr")
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


# ---------------------------------------------------------------- request shape and columns


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


def follow_select(step: dict, columns: list[str], path: str) -> list[str]:
    for index, column in enumerate(step["columns"]):
        if column not in columns:
            raise EtlError("MISSING_COLUMN", f"column '{column}' not found", f"{path}.columns[{index}]")
    return list(step["columns"])


def follow_rename(step: dict, columns: list[str], path: str) -> list[str]:
    for source in step["mapping"]:
        if source not in columns:
            raise EtlError("MISSING_COLUMN", f"column '{source}' not found", f"{path}.mapping.{source}")
    kept = [column for column in columns if column not in step["mapping"]]
    return kept + list(step["mapping"].values())


COLUMN_EFFECTS = {
    "select": follow_select,
    "rename": follow_rename,
    "map": lambda step, columns, path: [*columns, step["as"]],
}


def check_columns(steps: list[dict], columns: list[str], path: str) -> None:
    """Follow the column names through the steps; MISSING_COLUMN for a select column or rename source absent."""
    for index, step in enumerate(steps):
        effect = COLUMN_EFFECTS.get(step["op"])
        if effect:
            columns = effect(step, columns, f"{path}[{index}]")


def handle(request: Any) -> dict:
    """The response to one request; raises EtlError."""
    check_shape(request)
    steps = normalize_steps(request["pipeline"]["steps"], "pipeline.steps")
    if request["dataset"]:
        check_columns(steps, list(request["dataset"][0]), "pipeline.steps")
    return {"status": "ok", "normalized": {"steps": steps}}


def main() -> int:
    try:
        try:
            request = json.loads(sys.stdin.read())
        except json.JSONDecodeError as error:
            raise schema_error(f"standard input is not JSON: {error}", "") from error
        response, code = handle(request), 0
    except EtlError as error:
        response, code = error.to_json(), 1
    print(json.dumps(response))
    return code


if __name__ == "__main__":
    sys.exit(main())
