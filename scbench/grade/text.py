"""Text expectations: exact text with trycmd-style wildcards, or a full regular expression."""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from scbench.grade.show import MAX_COMPARED_LINES, cut_line, cut_lines, visible

LINE_WILDCARD = "..."
"""A line that is exactly this matches any number of lines."""

INLINE_WILDCARD = "[..]"
"""Matches any characters within one line."""


@lru_cache(maxsize=1024)
def wildcard_pattern(expected: str) -> re.Pattern:
    """The compiled regex equivalent of ``expected + "\\n"`` with its wildcards."""
    parts = ["(?:[^\n]*\n)*" if line == LINE_WILDCARD
             else "[^\n]*?".join(map(re.escape, line.split(INLINE_WILDCARD))) + "\n"
             for line in expected.split("\n")]
    return re.compile("".join(parts))


def matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` equals ``expected`` with wildcards applied."""
    if INLINE_WILDCARD not in expected and LINE_WILDCARD not in expected:
        return expected == actual
    return wildcard_pattern(expected).fullmatch(actual + "\n") is not None


def unified(expected: str, actual: str) -> str:
    """A unified diff, expected before actual, invisibles shown, long diffs cut; a missing
    final newline is called out."""
    sides = [[visible(cut_line(line)) for line in text.split("\n")[:MAX_COMPARED_LINES]] for text in (expected, actual)]
    lines = list(difflib.unified_diff(*sides, "expected", "actual", lineterm="", n=2))
    if expected.rstrip("\n") == actual.rstrip("\n"):
        lines.append("(the texts differ only in trailing newlines)")
    return "\n".join(cut_lines(lines))


def regex_mismatch(pattern: str, actual: str) -> str:
    """The explanation shown when ``actual`` does not fully match ``pattern``."""
    shown = "\n".join(visible(cut_line(line)) for line in cut_lines(actual.split("\n")))
    return f"expected text matching /{pattern}/, actual:\n{shown}"
