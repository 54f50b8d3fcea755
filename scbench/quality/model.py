"""Typed results of a quality measurement: per-file facts, callables, rule flags, clones and the report.

Vocabulary (defined once here and in docs/metrics.md):

* **code line**: a physical line (1-based) that carries at least one token that is not part of a comment and
  not part of a docstring. Blank lines, comment-only lines and docstring lines are not code lines.
* **LOC** of a snapshot: the number of code lines over all measured files.
* **callable**: a function, method, nested function or (where the language table lists them) an anonymous
  function. Each one is its own callable; the decisions of a nested callable count for the nested callable
  only, never for its parent (radon's convention, radon issue #68).
* **SLOC(f)**: the number of code lines between the first and last line of callable ``f`` (inclusive), so
  the lines of a nested callable count for its parent too: they are physically inside it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import NamedTuple

ERODED_CC = 10
"""A callable is eroded when its CC is above this bound (SlopCodeBench paper eq. 3, after radon's rank B)."""


@dataclass(frozen=True)
class CallableMetric:
    """One callable: where it is, its cyclomatic complexity and its SLOC (counts of code lines)."""

    path: str
    name: str
    line: int
    end_line: int
    cc: int
    sloc: int

    @property
    def mass(self) -> float:
        """CC x sqrt(SLOC), SlopCodeBench paper eq. 2 (unitless)."""
        return self.cc * math.sqrt(self.sloc)

    @property
    def eroded(self) -> bool:
        """True when CC > 10, the indicator of SlopCodeBench paper eq. 3."""
        return self.cc > ERODED_CC


class Token(NamedTuple):
    """A leaf of the syntax tree, normalized: ``kind`` is the tree-sitter node type, never the text.

    Identifiers and literals are named leaves, so their kind (``identifier``, ``integer``...) hides their
    text; keywords and punctuation are anonymous leaves whose kind is their text.
    """

    line: int
    kind: str


@dataclass(frozen=True)
class SourceFacts:
    """What an adapter extracts from one file: its code lines, its tokens (in order) and its callables."""

    path: str
    language: str
    code_lines: frozenset[int]
    tokens: tuple[Token, ...]
    callables: tuple[CallableMetric, ...]


@dataclass(frozen=True)
class Flag:
    """One AST-grep rule match: rule id and the 1-based inclusive line span it covers in ``path``."""

    path: str
    rule: str
    line: int
    end_line: int


@dataclass(frozen=True)
class ClonePair:
    """Two occurrences of the same normalized code: ``(path, first line, last line)`` each, 1-based."""

    first: tuple[str, int, int]
    second: tuple[str, int, int]

    @property
    def lines(self) -> int:
        """Length of the first occurrence in physical lines."""
        return self.first[2] - self.first[1] + 1


@dataclass(frozen=True)
class QualityReport:
    """Erosion and verbosity of one snapshot, with their parts and the evidence behind them.

    * ``erosion`` = ``eroded_mass / total_mass`` (SlopCodeBench paper eq. 3), 0.0 when there is no mass.
    * ``verbosity`` = ``verbose_lines / loc`` (paper eq. 4), 0.0 when LOC is 0; ``verbose_lines`` is the size
      of the union of rule-flagged code lines and clone lines, so it lies in [0, 1].
    * ``flagged_lines`` and ``clone_lines`` are the sizes of the two sets before the union.
    * ``skipped`` lists ``(path, reason)`` for files that could not be parsed (e.g. a Python SyntaxError).
    """

    erosion: float
    verbosity: float
    total_mass: float
    eroded_mass: float
    loc: int
    flagged_lines: int
    clone_lines: int
    verbose_lines: int
    files: int
    callables: tuple[CallableMetric, ...] = field(repr=False)
    flags: tuple[Flag, ...] = field(repr=False)
    clones: tuple[ClonePair, ...] = field(repr=False)
    skipped: tuple[tuple[str, str], ...] = field(repr=False, default=())

    def scalars(self) -> dict[str, float | int]:
        """The numeric fields only (erosion, verbosity and their parts), in declaration order."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _EVIDENCE}

    def to_dict(self, top: int = 10) -> dict:
        """JSON-ready dict: scalars, the ``top`` callables by mass, match counts by rule, clone pairs."""
        by_rule: dict[str, int] = {}
        for flag in self.flags:
            by_rule[flag.rule] = by_rule.get(flag.rule, 0) + 1
        heaviest = sorted(self.callables, key=lambda c: c.mass, reverse=True)[:top]
        return {
            **self.scalars(),
            "top_callables": [{**asdict(c), "mass": round(c.mass, 3)} for c in heaviest],
            "flags_by_rule": dict(sorted(by_rule.items(), key=lambda item: (-item[1], item[0]))),
            "clone_pairs": [asdict(pair) for pair in self.clones[:top]],
            "skipped": [{"path": path, "reason": reason} for path, reason in self.skipped],
        }


_EVIDENCE = frozenset({"callables", "flags", "clones", "skipped"})
