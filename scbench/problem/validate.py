"""Validate a document against its JSON Schema and translate every error into a Diagnostic.

JSON Schema errors are translated by validator kind through a table of formatters, each
returning ``(message, hint)``; unions (``anyOf``/``oneOf``) report the errors of the branch
the author most likely meant.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
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


NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10}
TYPE_EXAMPLES = {"object": "a mapping such as {key: value}", "array": "a list such as [a, b]",
                 "string": 'a string (quote it: "...")', "boolean": "true or false", "integer": "a whole number",
                 "number": "a number", "null": "null"}
PLAIN = re.compile(r"^[\w./-]+$")


def _kind(value: object) -> str:
    """``value``'s type in schema words; YAML's own timestamps (``2025-09-10T03:00:00Z`` unquoted) by name."""
    return SCHEMA_TYPES[PYTHON_TYPES[type(value)]] if type(value) in PYTHON_TYPES else "a YAML timestamp"


def _as_number(text: str) -> int | float | None:
    """The number a string spells (``"0"``, ``"zero"``, ``"1.5"``), or ``None``."""
    word = text.strip().lower()
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    try:
        return json.loads(word) if isinstance(json.loads(word), int | float) else None
    except ValueError:
        return None


def flow_list(items: list[str]) -> str:
    """``items`` as a YAML flow list, quoting only items that need it: ``[count, "{data}/a b"]``."""
    return "[" + ", ".join(item if PLAIN.match(item) else json.dumps(item) for item in items) + "]"


def _unknown(keys: set[str], allowed: list[str], patterns: list[str]) -> tuple[str, str]:
    extra = sorted(key for key in keys - set(allowed) if not any(re.search(pattern, key) for pattern in patterns))
    guesses = [match for key in extra for match in difflib.get_close_matches(key, allowed, n=1)]
    shapes = [f"keys matching {pattern}" for pattern in patterns]
    hint = f"did you mean {', '.join(map(repr, guesses))}?" if guesses else f"allowed: {', '.join(allowed + shapes)}"
    return f"unknown key{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))}", hint


def _unknown_key(error: ValidationError) -> tuple[str, str]:
    return _unknown(set(error.instance), sorted(error.schema.get("properties", {})),
                    list(error.schema.get("patternProperties", {})))


SHELL_LISTS = {"args"}
"""Keys whose list is a command line's words: a string given instead is split as a shell splits it."""


def _type(error: ValidationError) -> tuple[str, str]:
    expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    names = " or ".join(SCHEMA_TYPES[name] for name in expected)
    key = error.absolute_path[-1] if error.absolute_path else ""
    return f"expected {names}, got {_kind(error.instance)} {json.dumps(error.instance, default=str)[:60]}", \
        _type_hint(expected, error.instance, key)


def _list_hint(key: object, text: str) -> str:
    if key in SHELL_LISTS:
        return f"write a list: {flow_list(shlex.split(text) if _splits(text) else [text])}"
    return f"give a list: {key}: {flow_list([text])}"


def _type_hint(expected: list[str], instance: object, key: object) -> str:
    if expected == ["array"] and isinstance(instance, str):
        return _list_hint(key, instance)
    number = _as_number(instance) if isinstance(instance, str) and {"integer", "number"} & set(expected) else None
    if number is not None:
        return f"write {number} (a number, without quotes)"
    return "write " + " or ".join(TYPE_EXAMPLES[name] for name in expected)


def _splits(text: str) -> bool:
    try:
        return bool(shlex.split(text))
    except ValueError:
        return False


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
    "exclusiveMinimum": lambda e: (f"must be greater than {e.validator_value}, got {e.instance}",
                                   f"use a number greater than {e.validator_value}"),
    "minimum": lambda e: (f"must be at least {e.validator_value}, got {e.instance}",
                          f"use a number of at least {e.validator_value}"),
}
"""Validator kind -> ``(message, fix)``; kinds not listed keep jsonschema's message."""


def _number_in_union(error: ValidationError) -> tuple[str, str] | None:
    """A union that takes an integer, given one in words or quotes (``exit_code: zero``)."""
    takes_number = any(sub.validator == "type" and sub.validator_value in ("integer", "number")
                       for sub in error.context)
    number = _as_number(error.instance) if isinstance(error.instance, str) and takes_number else None
    if number is None:
        return None
    return f"{json.dumps(error.instance)} is not allowed here", f"write {number} (a number, without quotes)"


def _unknown_key_in_union(error: ValidationError) -> tuple[str, str] | None:
    """A mapping that every branch of the union rejects at its top, with a key that no branch
    knows (``{cpy: ...}`` as an input file): the fix suggests among the keys of every branch."""
    at_top = isinstance(error.instance, dict) and not any(sub.relative_path for sub in error.context)
    allowed = sorted({key for sub in error.context for key in sub.schema.get("properties", {})}) if at_top else []
    if not allowed or not set(error.instance) - set(allowed):
        return None
    message, hint = _unknown(set(error.instance), allowed, [])
    return message, _forms_hint(error, hint, allowed)


def _forms_hint(error: ValidationError, hint: str, allowed: list[str]) -> str:
    """``hint``, followed by every key of the union's forms when it has more than one object form."""
    forms = {json.dumps(sub.schema, sort_keys=True) for sub in error.context if "properties" in sub.schema}
    if len(forms) < 2:
        return hint
    bare = [f"a bare {sub.validator_value}" for sub in error.context if sub.validator == "type"]
    guess = hint if hint.startswith("did you mean") else "use one of the keys"
    return f"{guess} (one of the forms here: {', '.join(allowed + bare)})"


def _branches(error: ValidationError) -> list[list[ValidationError]]:
    """The errors of a failed union, grouped by branch."""
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    return list(branches.values())


def _kind_missing(error: ValidationError) -> tuple[str, str] | None:
    """A mapping without ``kind`` whose only fault as one kind is that missing key (an HTTP case
    without ``kind: http``): the fix is the key, not the errors of the kind it defaults to."""
    if not isinstance(error.instance, dict) or "kind" in error.instance:
        return None
    for faults in _branches(error):
        kind = faults[0].schema.get("properties", {}).get("kind", {}).get("const")
        shape = [(fault.validator, tuple(fault.relative_path)) for fault in faults]
        if kind is not None and shape == [("required", ())]:
            return f"kind is missing, and the keys are those of a kind: {kind} case", f"add kind: {kind}"
    return None


UNION_RULES: list[Callable[[ValidationError], tuple[str, str] | None]] = [_number_in_union, _kind_missing,
                                                                          _unknown_key_in_union]
"""Explanations of a failed ``anyOf``/``oneOf`` as a whole, tried before the likeliest branch's errors."""


def _branch_score(errors: list[ValidationError]) -> tuple[int, int]:
    """Lower is likelier: branches failing on their own type/const at the root come last."""
    shallow = sum(1 for e in errors if e.validator in ("type", "const") and not e.relative_path)
    return shallow, len(errors)


def _explain(error: ValidationError) -> Iterator[tuple[tuple, str, str]]:
    """``(path, message, fix)`` for ``error``; a union is explained as a whole by a rule of
    :data:`UNION_RULES`, else by the errors of the branch the author most likely meant."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        yield tuple(error.absolute_path), *FORMATTERS.get(error.validator, _default)(error)
        return
    whole = next(filter(None, (rule(error) for rule in UNION_RULES)), None)
    if whole is not None:
        yield tuple(error.absolute_path), *whole
        return
    for sub in min(_branches(error), key=_branch_score):
        yield from _explain(sub)


def _default(error: ValidationError) -> tuple[str, str]:
    return error.message, "see docs/case-format.md for this key"


@cache
def validator_for(stem: str) -> Draft202012Validator:
    """The validator of ``schemas/<stem>.schema.json``."""
    return Draft202012Validator(json.loads((SCHEMAS / f"{stem}.schema.json").read_text()))


def schema_errors(data: object, stem: str) -> list[tuple[tuple, str, str]]:
    """Every schema error of ``data`` against schema ``stem`` as ``(path, message, fix)``, each
    once; ``path`` is the document path (``("cases", 2, "expect")``)."""
    return list(dict.fromkeys(found for error in validator_for(stem).iter_errors(data) for found in _explain(error)))


def schema_diagnostics(document: Document, stem: str, shown_as: str) -> list[Diagnostic]:
    """Every schema error of ``document`` against schema ``stem``, located and explained."""
    return sorted({Diagnostic(shown_as, document.line_of(path), where_of(path), message, hint)
                   for path, message, hint in schema_errors(document.data, stem)})
