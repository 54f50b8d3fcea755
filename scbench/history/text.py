"""A group's figures as table cells, shared by ``scbench calibrate`` and the report's calibration table."""

from __future__ import annotations

from scbench.history.panel import PROGRESS, BandPoint, GroupSummary

SHOWN = ("verbosity", "erosion")
"""The measures shown, in the paper's order (Table 2)."""

COLUMNS = ("trajectories", "last verbosity", "last erosion", "median verbosity slope", "median erosion slope",
           "verbosity rising", "erosion rising")
"""The columns of :func:`cells`: last figures (a repository's HEAD, a run's last checkpoint) as mean ± sd."""


def _spread(mean: float | None, sd: float | None) -> str:
    return "n/a" if mean is None else f"{mean:.4f}" + ("" if sd is None else f" ± {sd:.4f}")


def cells(summary: GroupSummary) -> list[str]:
    """The cells of :data:`COLUMNS` for ``summary``."""
    return [str(summary.trajectories),
            *(_spread(summary.last[key].mean, summary.last[key].sd) for key in SHOWN),
            *(_spread(summary.slope[key].median, None) for key in SHOWN),
            *("n/a" if summary.rising[key] is None else f"{summary.rising[key]:.0%}" for key in SHOWN)]


BAND_COLUMNS = ("humans' band", *(f"progress {progress:g}" for progress in PROGRESS))
"""The columns of :func:`band_rows`."""


def band_rows(band: dict[str, list[BandPoint]]) -> list[list[str]]:
    """One row per measure of ``band``: its name, then ``mean [low, high]`` at each progress."""
    return [[key, *(f"{point.mean:.3f} [{point.low:.3f}, {point.high:.3f}]" for point in points)]
            for key, points in band.items()]
