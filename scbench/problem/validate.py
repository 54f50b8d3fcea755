"""Validate a document against its JSON Schema and translate every error into a Diagnostic.

JSON Schema errors are translated by validator kind through a table of formatters, each
returning ``(message, hint)``; unions (``anyOf``/``oneOf``) report the errors of the branch
the author most likely meant.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterator
from functools import cache

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from scbench.paths import SCHEMAS
from scbench.problem.diagnostics import Diagnostic, where_of
from scbench.problem.source import Document

SCHEMA_TYPES = {"object": "an object", "array": "a list", "string": "a string", "boolean": "a boolean",
                "integer": "an integer", "number": "a number", "null": "null"}
PYTHON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
                float: "number", type(None): "null"}


def _kind(value: object) -> str:
    return SCHEMA_TYPES[PYTHON_TYPES[type(value)]]


def _unknown_key(error: ValidationError) -> tuple[str, str]:
    allowed = sorted(error.schema.get("properties", {}))
    patterns = list(error.schema.get("patternProperties", {}))
    extra = sorted(key for key in set(error.instance) - set(allowed)
                   if not any(re.search(pattern, key) for pattern in patterns))
    guesses = [match for key in extra for match in difflib.get_close_matches(key, allowed, n=1)]
    shapes = [f"keys matching {pattern}" for pattern in patterns]
    hint = f"did you mean {', '.join(map(repr, guesses))}?" if guesses else f"allowed: {', '.join(allowed + shapes)}"
    return f"unknown key{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))}", hint


def _type(error: ValidationError) -> tuple[str, str]:
    expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    names = " or ".join(SCHEMA_TYPES[name] for name in expected)
    hint = f"write a list: [{error.instance}]" if expected == ["array"] and isinstance(error.instance, str) else ""
    return f"expected {names}, got {_kind(error.instance)} {json.dumps(error.instance)[:60]}", hint


def _choices(error: ValidationError) -> tuple[str, str]:
    allowed = error.validator_value if error.validator == "enum" else [error.validator_value]
    close = difflib.get_close_matches(str(error.instance), [str(a) for a in allowed], n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(map(json.dumps, allowed))}"
    return f"{json.dumps(error.instance)} is not allowed here", hint


FORMATTERS: dict[str, Callable[[ValidationError], tuple[str, str]]] = {
    "additionalProperties": _unknown_key,
    "required": lambda e: (e.message.replace(" is a required property", " is required"),
                           "add the key; see docs/case-format.md"),
    "type": _type,
    "enum": _choices,
    "const": _choices,
    "pattern": lambda e: (f"{e.instance!r} does not match {e.validator_value}",
                          "use letters, digits, '_', '.', '-'"),
    "minItems": lambda e: ("must not be empty", "add at least one entry"),
    "minProperties": lambda e: ("must not be empty", "add at least one entry"),
    "minLength": lambda e: ("must not be empty", "write a value"),
    "exclusiveMinimum": lambda e: (f"must be greater than {e.validator_value}, got {e.instance}", ""),
    "minimum": lambda e: (f"must be at least {e.validator_value}, got {e.instance}", ""),
}


def _branch_score(errors: list[ValidationError]) -> tuple[int, int]:
    """Lower is likelier: branches failing on their own type/const at the root come last."""
    shallow = sum(1 for e in errors if e.validator in ("type", "const") and not e.relative_path)
    return shallow, len(errors)


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        yield error
        return
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    best = min(branches.values(), key=_branch_score)
    for sub in best:
        yield from _leaves(sub)


@cache
def validator_for(stem: str) -> Draft202012Validator:
    """The validator of ``schemas/<stem>.schema.json``."""
    return Draft202012Validator(json.loads((SCHEMAS / f"{stem}.schema.json").read_text()))


def schema_diagnostics(document: Document, stem: str, shown_as: str) -> list[Diagnostic]:
    """Every schema error of ``document`` against schema ``stem``, located and explained."""
    found = []
    for error in validator_for(stem).iter_errors(document.data):
        for leaf in _leaves(error):
            path = tuple(leaf.absolute_path)
            message, hint = FORMATTERS.get(leaf.validator, lambda e: (e.message, ""))(leaf)
            found.append(Diagnostic(shown_as, document.line_of(path), where_of(path), message, hint))
    return sorted(set(found))
