"""The SlopCodeBench formulas, as pure functions over already-measured parts."""

from __future__ import annotations

from collections.abc import Iterable

from scbench.quality.model import CallableMetric


def erosion(callables: Iterable[CallableMetric]) -> tuple[float, float, float]:
    """``(erosion, eroded mass, total mass)``.

    mass(f) = CC(f) x sqrt(SLOC(f)) (paper eq. 2); erosion = sum of mass(f) over callables with CC > 10
    divided by the sum of mass(f) over all callables (paper eq. 3). Erosion is 0.0 when the total mass is 0
    (no callables).
    """
    masses = [(c.mass, c.eroded) for c in callables]
    total = sum(mass for mass, _ in masses)
    eroded = sum(mass for mass, is_eroded in masses if is_eroded)
    return (eroded / total if total else 0.0), eroded, total


def verbosity(verbose_lines: int, loc: int) -> float:
    """|flagged lines U clone lines| / LOC (paper eq. 4), in [0, 1]; 0.0 when LOC is 0.

    Both sets hold code lines only, so the ratio never exceeds 1.
    """
    return verbose_lines / loc if loc else 0.0
