"""Structural clones, language-independent, over normalized tree-sitter tokens.

A file becomes a sequence of code lines, each line the tuple of the kinds of the tokens starting on it
(identifiers and literals normalized to their node kind, see :class:`~scbench.quality.model.Token`). A
**window** is ``WINDOW_LINES`` consecutive code lines of one file holding at least ``MIN_TOKENS`` tokens.
**Clone lines** are the code lines covered by any window whose normalized content occurs at least twice in
the snapshot (same file or not). Thresholds: 6 code lines and 30 tokens (SlopCodeBench counts clone lines
normalized by LOC, paper eq. 4, after [30, 2]).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import groupby

from scbench.quality.model import ClonePair, SourceFacts

WINDOW_LINES = 6
MIN_TOKENS = 30

_Site = tuple[str, int]
"""A window's place: (path, index of its first code line in that file's line list)."""


def _line_shapes(facts: SourceFacts) -> list[tuple[int, tuple[str, ...]]]:
    """``(line number, token kinds)`` for each line on which tokens start, in order."""
    by_line = groupby(facts.tokens, key=lambda token: token.line)
    return [(line, tuple(token.kind for token in tokens)) for line, tokens in by_line]


def _windows(lines: list[tuple[int, int]]) -> Iterable[tuple[int, tuple[int, ...]]]:
    """``(start, content)`` of each window of ``lines``, each line given as (token count, shape number)."""
    counts = [count for count, _ in lines]
    shapes = tuple(shape for _, shape in lines)
    for start in range(len(lines) - WINDOW_LINES + 1):
        if sum(counts[start : start + WINDOW_LINES]) >= MIN_TOKENS:
            yield start, shapes[start : start + WINDOW_LINES]


def _pairs(repeated: list[list[_Site]], lines: dict[str, list[int]]) -> list[ClonePair]:
    """Each repeated window paired with its group's first site, runs of adjacent windows merged."""
    linked = {(first, site) for sites in repeated for first, site in ((sites[0], s) for s in sites[1:])}
    pairs = []
    for (path_a, a), (path_b, b) in sorted(linked):
        if ((path_a, a - 1), (path_b, b - 1)) in linked:
            continue
        run = 0
        while ((path_a, a + run + 1), (path_b, b + run + 1)) in linked:
            run += 1
        last = run + WINDOW_LINES - 1
        first = (path_a, lines[path_a][a], lines[path_a][a + last])
        pairs.append(ClonePair(first, (path_b, lines[path_b][b], lines[path_b][b + last])))
    return sorted(pairs, key=lambda pair: -pair.lines)


def find_clones(files: Iterable[SourceFacts]) -> tuple[set[tuple[str, int]], list[ClonePair]]:
    """Clone lines as ``{(path, line)}`` and the clone pairs (longest first) of the given files."""
    sites: dict[tuple, list[_Site]] = defaultdict(list)
    lines: dict[str, list[int]] = {}
    numbers: dict[tuple[str, ...], int] = {}  # each line shape's number: windows hash and compare as numbers
    for facts in files:
        shapes = _line_shapes(facts)
        lines[facts.path] = [line for line, _ in shapes]
        for start, content in _windows([(len(shape), numbers.setdefault(shape, len(numbers))) for _, shape in shapes]):
            sites[content].append((facts.path, start))
    repeated = [group for group in sites.values() if len(group) > 1]
    covered = {
        (path, lines[path][start + offset])
        for group in repeated
        for path, start in group
        for offset in range(WINDOW_LINES)
    }
    return covered, _pairs(repeated, lines)
