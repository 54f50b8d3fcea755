"""Text expectations: exact text with trycmd-style wildcards, or a full regular expression.

When a text does not match, :func:`describe` locates the first difference (line, column, and for
a wildcard line the part that failed), counts the differing lines and renders a unified diff of
the region, whatever the size of the texts: lines are aligned by patience diff after the common
head and tail are set aside, and only the lines shown are rendered.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import patiencediff

from scbench.formats import DECIMAL
from scbench.grade.show import MAX_DIFF_LINES, MAX_LINE, cut_line, cut_lines, visible
from scbench.problem.model import Tolerance

LINE_WILDCARD = "..."
"""A line that is exactly this matches any number of lines."""

INLINE_WILDCARD = "[..]"
"""Matches any characters within one line."""

CONTEXT = 2
"""Unchanged lines shown around each change."""

LEAD = 40
"""Characters shown before the first differing column when a long line is cut."""

MAX_SUBSTITUTIONS = 200_000
"""Wildcard-line tries (actual lines x distinct wildcard lines) spent on aligning lines for the diff."""


def _failed_part(expected: str, actual: str) -> tuple[str, str, str] | None:
    """Which part of the wildcard line ``expected`` the line ``actual`` fails, as a message
    template with ``{part}`` and ``{rest}`` and those two texts, or None when it matches. Parts are
    found left to right at their earliest place, which is where a match puts them (the classic
    greedy glob match: ``[..]`` is the only wildcard)."""
    parts = expected.split(INLINE_WILDCARD)
    start = len(parts[0])
    if not actual.startswith(parts[0]):
        return "the line should start with {part}, actual {rest}", parts[0], actual[:len(parts[0]) + 20]
    for part in parts[1:-1]:
        found = actual.find(part, start)
        if found < 0:
            return f"after column {start}, {{part}} does not occur in the rest, {{rest}}", part, actual[start:]
        start = found + len(part)
    if not actual.endswith(parts[-1]) or len(actual) - len(parts[-1]) < start:
        return f"after column {start}, the line should end with {{part}}, actual {{rest}}", parts[-1], actual[start:]
    return None


def line_matches(expected: str, actual: str) -> bool:
    """Whether one ``actual`` line matches one ``expected`` line (``[..]`` wildcards applied)."""
    return expected == actual or (INLINE_WILDCARD in expected and _failed_part(expected, actual) is None)


def _at(segment: list[str], found: list[str], start: int) -> bool:
    """Whether the lines of ``segment`` match ``found`` from index ``start`` on."""
    return all(map(line_matches, segment, found[start:start + len(segment)]))


def _runs(lines: list[str]) -> list[list[str]]:
    """``lines`` split at its ``...`` lines (a leading or trailing one gives an empty run)."""
    runs: list[list[str]] = [[]]
    for line in lines:
        if line == LINE_WILDCARD:
            runs.append([])
        else:
            runs[-1].append(line)
    return runs


def _placed(runs: list[list[str]], found: list[str], start: int, end: int) -> bool:
    """Whether each run fits in ``found[start:end]`` after the one before, at its earliest place
    (which leaves the most room for the next)."""
    for run in runs:
        start = next((at for at in range(start, end - len(run) + 1) if _at(run, found, at)), end + 1) + len(run)
        if start > end:
            return False
    return True


def _segments_match(lines: list[str], found: list[str]) -> bool:
    """Whether the line lists match, a ``...`` line of ``lines`` taking any number of lines: the
    first and last runs between ``...`` lines are anchored, the others placed at their earliest."""
    runs = _runs(lines)
    if len(runs) == 1:
        return len(lines) == len(found) and _at(lines, found, 0)
    first, *middle, last = runs
    end = len(found) - len(last)
    return len(first) <= end and _at(first, found, 0) and _at(last, found, end) and _placed(middle, found,
                                                                                             len(first), end)


def matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` equals ``expected`` with wildcards applied, line by line."""
    if INLINE_WILDCARD not in expected and LINE_WILDCARD not in expected:
        return expected == actual
    return _segments_match(expected.split("\n"), actual.split("\n"))


def _shown(text: str, width: int = 60) -> str:
    return repr(visible(text if len(text) <= width else text[:width] + "…"))


def explain_wildcard_line(expected: str, actual: str) -> str:
    """Which part of the wildcard line ``expected`` the line ``actual`` fails, e.g. ``after
    column 12, 'files' does not occur in the rest, 'dirs'`` (``the line matches`` if none)."""
    failed = _failed_part(expected, actual)
    if failed is None:
        return "the line matches"
    template, part, rest = failed
    return template.format(part=_shown(part), rest=_shown(rest))


@dataclass(frozen=True)
class _Sides:
    """The two texts as lines, expected lines without ``...`` lines; ``numbers`` the 0-based line
    of each in the expected text, ``dots`` the indexes a ``...`` line comes just before."""

    expected: list[str]
    actual: list[str]
    numbers: list[int]
    dots: set[int]

    @classmethod
    def of(cls, expected: str, actual: str) -> _Sides:
        lines, found = expected.split("\n"), actual.split("\n")
        numbers = [number for number, line in enumerate(lines) if line != LINE_WILDCARD]
        return cls([lines[n] for n in numbers], found, numbers, _dots(lines, numbers))

    def line_number(self, index: int) -> int:
        """1-based line of the expected text for aligned index ``index`` (one past the end allowed)."""
        return self.numbers[index] + 1 if index < len(self.numbers) else (self.numbers[-1] + 2 if self.numbers else 1)


def _common(left: list[str], right: list[str], stop: int) -> int:
    """Length of the common head of expected lines ``left`` and actual lines ``right`` (wildcards
    applied), at most ``stop``."""
    return next((i for i, (a, b) in enumerate(zip(left[:stop], right, strict=False)) if not line_matches(a, b)),
                min(stop, len(left), len(right)))


def _dots(lines: list[str], numbers: list[int]) -> set[int]:
    """Aligned indexes a ``...`` line comes just before (``len(numbers)`` for a final one)."""
    padded = [*lines, ""]
    return {index for index, number in enumerate([*numbers, len(lines)]) if padded[number - 1] == LINE_WILDCARD}


def _keys(lines: list[str], found: list[str]) -> list[str] | None:
    """``found`` with each line that a wildcard line of ``lines`` matches replaced by that line, or
    None when that takes more than ``MAX_SUBSTITUTIONS`` tries. A line only tries the wildcard
    lines that share its first characters (as many as the shortest literal start before ``[..]``)."""
    wild = sorted({line for line in lines if INLINE_WILDCARD in line})
    size = min((line.index(INLINE_WILDCARD) for line in wild), default=0)
    by_start: dict[str, list[str]] = {}
    for line in wild:
        by_start.setdefault(line[:size], []).append(line)
    tries = [by_start.get(line[:size], ()) for line in found]
    if sum(map(len, tries)) > MAX_SUBSTITUTIONS:
        return None
    return [next((w for w in candidates if line_matches(w, line)), line) for line, candidates in zip(found, tries,
                                                                                                      strict=True)]


def _changes(sides: _Sides) -> list[tuple[str, int, int, int, int]]:
    """Opcodes of the differing lines, without the insertions a ``...`` line absorbs: the common
    head and tail (up to the first and after the last ``...``) are set aside, the rest aligned by
    patience diff over :func:`_keys`, or position by position when that would cost too much."""
    expected, actual = sides.expected, sides.actual
    head = _common(expected, actual, min(sides.dots, default=len(expected)))
    tail = _common(expected[head:][::-1], actual[head:][::-1], len(expected) - max(sides.dots, default=0))
    middle, found = expected[head:len(expected) - tail], actual[head:len(actual) - tail]
    keys = _keys(middle, found)
    opcodes = (_positional(middle, found) if keys is None
               else patiencediff.PatienceSequenceMatcher(None, middle, keys).get_opcodes())
    shifted = [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in opcodes]
    return [op for op in shifted if op[0] != "equal" and not (op[0] == "insert" and op[1] in sides.dots)]


def _column(expected: str, actual: str) -> int:
    """0-based index of the first differing character of two lines."""
    return next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b), min(len(expected),
                                                                                                   len(actual)))


def _window(line: str, start: int) -> str:
    """``line`` from ``start`` (cut at ``MAX_LINE`` characters), invisibles shown, cuts marked;
    a line no longer than ``start`` whole."""
    start = start if len(line) > start else 0
    head = "…" if start else ""
    shown = line[start:start + MAX_LINE]
    tail = f"… ({len(line)} chars)" if len(line) > start + MAX_LINE else ""
    return head + visible(shown) + tail


def _first(sides: _Sides, change: tuple[str, int, int, int, int]) -> tuple[str, int]:
    """The first difference in words (``line 3, column 7`` plus what failed), and its column."""
    tag, i1, _, j1, _ = change
    where = f"line {sides.line_number(i1)}" + (f" (actual line {j1 + 1})" if sides.line_number(i1) != j1 + 1 else "")
    if tag == "insert":
        return f"{where}: unexpected line {_shown(sides.actual[j1])}", 0
    if tag == "delete":
        return f"{where}: missing line {_shown(sides.expected[i1])}", 0
    expected, actual = sides.expected[i1], sides.actual[j1]
    if INLINE_WILDCARD in expected:
        return f"{where}: {explain_wildcard_line(expected, actual)}", 0
    column = _column(expected, actual)
    return f"{where}, column {column + 1}", column


def _hunks(sides: _Sides, changes: list) -> list[tuple[str, str]]:
    """Unified-diff hunks (expected first) around ``changes`` as ``(mark, line)`` pairs, unrendered."""
    lines: list[tuple[str, str]] = []
    for (i1, j1), (i2, j2), group in _groups(changes, len(sides.expected), len(sides.actual)):
        lines.append(("@@", f" -{sides.line_number(i1)},{i2 - i1} +{j1 + 1},{j2 - j1} @@"))
        lines += _hunk_lines(sides, group)
    return lines


def _groups(changes: list, expected_len: int, actual_len: int) -> list[tuple]:
    """Changes merged into hunks with ``CONTEXT`` lines around: ``((i1, j1), (i2, j2), changes)``."""
    groups: list[list] = []
    for change in changes:
        _, i1, i2, j1, j2 = change
        high = (min(i2 + CONTEXT, expected_len), min(j2 + CONTEXT, actual_len))
        if groups and i1 - CONTEXT <= groups[-1][1][0]:
            groups[-1][1] = high
            groups[-1][2].append(change)
        else:
            groups.append([(max(i1 - CONTEXT, 0), max(j1 - CONTEXT, 0)), high, [change]])
    return [tuple(group) for group in groups]


def _hunk_lines(sides: _Sides, changes: list) -> list[tuple[str, str]]:
    j = max(changes[0][3] - CONTEXT, 0)
    lines: list[tuple[str, str]] = []
    for _, i1, i2, j1, j2 in changes:
        lines += [(" ", line) for line in sides.actual[j:j1]]
        lines += [("-", line) for line in sides.expected[i1:i2]]
        lines += [("+", line) for line in sides.actual[j1:j2]]
        j = j2
    return lines + [(" ", line) for line in sides.actual[j:min(j + CONTEXT, len(sides.actual))]]


def _render(lines: list[tuple[str, str]], start: int) -> list[str]:
    """The first ``MAX_DIFF_LINES`` diff lines rendered, long lines cut from column ``start``."""
    shown = [mark + (text if mark == "@@" else _window(text, start)) for mark, text in lines[:MAX_DIFF_LINES]]
    more = len(lines) - MAX_DIFF_LINES
    return shown + ([f"… ({more} more lines)"] if more > 0 else [])


def _line_endings(expected: str, actual: str) -> str | None:
    if "\r" not in expected and "\r" not in actual:
        return None
    if not matches(expected.replace("\r\n", "\n"), actual.replace("\r\n", "\n")):
        return None
    crlf = "actual" if actual.count("\r\n") > expected.count("\r\n") else "expected"
    lf = "expected" if crlf == "actual" else "actual"
    return f"only line endings differ: the {crlf} text has CRLF (\\r\\n) where the {lf} text has LF (\\n)"


def _trailing_newlines(expected: str, actual: str) -> str | None:
    wanted, found = (len(text) - len(text.rstrip("\n")) for text in (expected, actual))
    if wanted == found or not matches(expected, actual.rstrip("\n") + "\n" * wanted):
        return None
    return f"only the final newlines differ: expected {wanted}, actual {found}"


def _reordered(sides: _Sides) -> str | None:
    if sides.dots or Counter(sides.expected) != Counter(sides.actual):
        return None
    index = next(i for i, (e, a) in enumerate(zip(sides.expected, sides.actual, strict=True)) if e != a)
    return f"same lines, different order (first at line {index + 1}: expected {_shown(sides.expected[index])}, " \
           f"actual {_shown(sides.actual[index])})"


def _positional(expected: list[str], actual: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Runs of lines that differ at the same position, as ``replace`` opcodes, then the lines one
    side has beyond the other as a ``delete`` or an ``insert``."""
    differing = [i for i, (e, a) in enumerate(zip(expected, actual, strict=False)) if not line_matches(e, a)]
    runs: list[list[int]] = []
    for index in differing:
        if runs and runs[-1][1] == index:
            runs[-1][1] = index + 1
        else:
            runs.append([index, index + 1])
    common = min(len(expected), len(actual))
    rest = [("delete" if len(expected) > common else "insert", common, len(expected), common, len(actual))]
    return [("replace", start, end, start, end) for start, end in runs] + rest[:len(expected) != len(actual)]


def describe(expected: str, actual: str) -> tuple[str, str]:
    """``(message, diff)`` for an ``actual`` text that does not match ``expected``: the message
    locates the first difference and counts the differing lines (or names a difference of line
    endings, of final newlines, or of order only); the diff shows the hunks, cut at
    ``MAX_DIFF_LINES`` lines, long lines cut around the first differing column."""
    for special in (_line_endings, _trailing_newlines):
        if (message := special(expected, actual)) is not None:
            return message, ""
    sides = _Sides.of(expected, actual)
    reordered = _reordered(sides)
    changes = _positional(sides.expected, sides.actual) if reordered else _changes(sides)
    if not changes:
        return "text differs (the wildcards cannot be placed)", ""
    count = sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in changes)
    first, column = _first(sides, changes[0])
    hunks = _render(_hunks(sides, changes), max(column - LEAD, 0) if column > MAX_LINE - LEAD else 0)
    noun = "line differs" if count == 1 else "lines differ"
    return reordered or f"text differs at {first} ({count} {noun})", "\n".join(["--- expected", "+++ actual", *hunks])


def regex_mismatch(pattern: str, actual: str) -> str:
    """The explanation shown when ``actual`` does not fully match ``pattern``."""
    shown = "\n".join(visible(cut_line(line)) for line in cut_lines(actual.split("\n")))
    return f"expected text matching /{pattern}/, actual:\n{shown}"


def _snapped(expected: str, actual: str, tolerance: Tolerance) -> str:
    """The ``actual`` line with each number within ``tolerance`` of the number at the same place in the
    ``expected`` line written as there; unchanged unless both lines hold as many numbers."""
    wanted, found = DECIMAL.findall(expected), list(DECIMAL.finditer(actual))
    if len(wanted) != len(found):
        return actual
    pieces, end = [], 0
    for word, number in zip(wanted, found, strict=True):
        close = math.isclose(float(word), float(number[0]), rel_tol=tolerance.rel, abs_tol=tolerance.abs)
        pieces += [actual[end:number.start()], word if close else number[0]]
        end = number.end()
    return "".join(pieces) + actual[end:]


def within_tolerance(expected: str, actual: str, tolerance: Tolerance) -> str:
    """``actual`` with the numbers that meet ``expected``'s within ``tolerance`` written as ``expected``
    writes them, so that :func:`matches` and :func:`describe` see only the numbers that differ: line
    by line (the n-th line with the n-th), the k-th number of a line with the k-th number of the same
    line, when both lines hold as many numbers."""
    lines, found = expected.split("\n"), actual.split("\n")
    return "\n".join([*map(_snapped, lines, found, [tolerance] * len(found)), *found[len(lines):]])
