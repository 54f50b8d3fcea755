"""Output formats: how raw output text is read into a value (one small parser each).

Shared by the compiler (expected values kept in files) and the grader (actual outputs).
Every parser takes the text and returns the parsed value or raises ``ValueError``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

import yaml


def _jsonl(text: str) -> list[Any]:
    values = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                values.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"line {number}: {error.msg} at column {error.colno}") from error
    return values


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} at line {error.lineno} column {error.colno}") from error


def _yaml(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ValueError(str(error).replace("\n", " ")) from error


PARSERS: dict[str, Callable[[str], Any]] = {
    "text": str,
    "lines": str.splitlines,
    "json": _json,
    "jsonl": _jsonl,
    "yaml": _yaml,
    "csv": lambda text: list(csv.DictReader(io.StringIO(text))),
}
"""Format name (``OutputExpectation.format``) -> parser."""

STRUCTURED = frozenset(PARSERS) - {"text"}
"""Formats whose values are compared structurally rather than as one text."""
