"""Text checks by search (``contains``, ``not_contains``, ``search``): patterns looked for in an
output's text as written, each failure naming its pattern and the line that explains it."""

from __future__ import annotations

import difflib
import heapq
import json
import re
from collections.abc import Callable
from functools import partial
from itertools import islice

from scbench.grade.show import cut_line, visible
from scbench.problem.model import OutputExpectation


def _line(lines: list[str], index: int) -> str:
    """Line ``index`` (0-based) as a message shows it: ``line 3 'text'``."""
    return f"line {index + 1} {visible(cut_line(lines[index]))!r}"


CLOSEST_LINES = 10_000
"""Distinct lines of an output (the first ones) among which the closest line to a pattern is looked for."""

CLOSEST_WIDTH = 1_000
"""Characters of a line (the first ones) compared with a pattern: a hint stays cheap on any output."""

SHORTLIST = 20
"""Lines with the best upper bound of difflib's ratio (``quick_ratio``) whose ratio is computed."""


def _closest(wanted: str, lines: list[str]) -> str:
    """The first of the lines most like ``wanted`` by difflib's ratio (of each line's first
    :data:`CLOSEST_WIDTH` characters, among the first :data:`CLOSEST_LINES` distinct lines, the ratio
    computed for the :data:`SHORTLIST` best bounded), as ``closest: line 3 '...'``."""
    if lines == [""]:
        return "the output is empty"
    matcher = difflib.SequenceMatcher(None, "", wanted)
    candidates = list(islice(dict.fromkeys(lines), CLOSEST_LINES))

    def measured(index: int, measure: str) -> float:
        matcher.set_seq1(candidates[index][:CLOSEST_WIDTH])
        return getattr(matcher, measure)()

    shortlist = sorted(heapq.nlargest(SHORTLIST, range(len(candidates)), key=partial(measured, measure="quick_ratio")))
    best = max(shortlist, key=partial(measured, measure="ratio"))
    return f"closest: {_line(lines, lines.index(candidates[best]))}"


def _quoted(pattern: str) -> str:
    return json.dumps(pattern, ensure_ascii=False)


def _missing(pattern: str, text: str, lines: list[str]) -> str | None:
    if pattern in text:
        return None
    first_line = pattern.split("\n")[0]
    return f"missing {_quoted(pattern)} ({_closest(first_line, lines)})"


def _forbidden(pattern: str, text: str, lines: list[str]) -> str | None:
    index = text.find(pattern)
    if index < 0:
        return None
    where = _line(lines, text.count("\n", 0, index))
    return f"forbidden {_quoted(pattern)} occurs at {where}"


def _unmatched(pattern: str, text: str, lines: list[str]) -> str | None:
    compiled = re.compile(pattern)
    if any(compiled.search(line) for line in lines):
        return None
    return f"no line matches /{pattern}/ ({_closest(pattern, lines)})"


CHECKS: dict[str, Callable[[str, str, list[str]], str | None]] = {
    "contains": _missing, "not_contains": _forbidden, "search": _unmatched}
"""Key of :class:`OutputExpectation` -> the check of one of its patterns against ``(pattern, text, lines)``:
the failure's message, or ``None``. Lines are the text split at ``\\n``."""


def searched(spec: OutputExpectation) -> bool:
    """Whether ``spec`` has any text check."""
    return any(getattr(spec, key) for key in CHECKS)


def text_failures(spec: OutputExpectation, text: str) -> list[str]:
    """The message of every pattern of ``spec``'s text checks that ``text`` fails, in key order."""
    lines = text.split("\n")
    return [message for key, check in CHECKS.items() for pattern in getattr(spec, key)
            if (message := check(pattern, text, lines)) is not None]
