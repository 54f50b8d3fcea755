"""The degradation curves as inline SVG (matplotlib, no network, text kept as text).

Each plot has one panel per measure (case pass rate per category, erosion, verbosity, LOC, cost):
per problem, one line per run over the checkpoints; per phase, one line per (agent, model, prompt)
over Start .. Final, each point the mean of the checkpoints of that phase that have the measure.
"""

from __future__ import annotations

import io
import math
import statistics
from collections.abc import Callable

from scbench.history.panel import BandPoint
from scbench.report.model import PHASES, Point, RunSummary
from scbench.report.text import row_name

UNIT = (-0.05, 1.05)
PANELS: tuple[tuple[str, Callable[[Point], float | None], tuple[float, float] | None], ...] = (
    ("core pass rate", lambda p: p.pass_rates["core"], UNIT),
    ("functionality pass rate", lambda p: p.pass_rates["functionality"], UNIT),
    ("error pass rate", lambda p: p.pass_rates["error"], UNIT),
    ("regression pass rate", lambda p: p.pass_rates["regression"], UNIT),
    ("erosion", lambda p: p.erosion, UNIT),
    ("verbosity", lambda p: p.verbosity, UNIT),
    ("LOC", lambda p: p.loc, None),
    ("cost per checkpoint ($)", lambda p: p.cost_usd, None),
)
"""Panel title, the value of a checkpoint it plots (``None``: no point), its y range (``None``: fitted)."""
NO_VALUES = "no values"
"""Written across a panel where no checkpoint has the measure (cost without a usage parser), in place of an
empty axis."""
Series = tuple[str, list[float], list[list[Point]]]
"""A line: its label, its x positions and, at each, the checkpoints whose values are averaged."""


def _mean(points: list[Point], value: Callable[[Point], float | None]) -> float:
    values = [v for v in map(value, points) if v is not None]
    return statistics.fmean(values) if values else math.nan


def _band(axes, points: list[BandPoint]) -> None:
    """Draw a human panel's band (:func:`~scbench.history.panel.band`) on ``axes`` whose x axis is the phases:
    progress 0 at the first phase, 1 at the last."""
    xs = [point.progress * (len(PHASES) - 1) for point in points]
    axes.fill_between(xs, [point.low for point in points], [point.high for point in points], color="gray",
                      alpha=0.25, linewidth=0, label="humans: 95 % CI")
    axes.plot(xs, [point.mean for point in points], color="gray", linestyle="--", label="humans: mean")


def _panel(axes, panel: tuple, series: list[Series], ticks: list[tuple[float, str]],
           band: list[BandPoint]) -> None:
    """Draw one of :data:`PANELS` on matplotlib ``axes``: the human ``band`` if any behind a line per series, or
    :data:`NO_VALUES`."""
    name, value, limits = panel
    if band:
        _band(axes, band)
    lines = [(label, xs, [_mean(points, value) for points in groups]) for label, xs, groups in series]
    for label, xs, ys in lines:
        axes.plot(xs, ys, marker="o", label=label)
    if not any(math.isfinite(y) for _, _, ys in lines for y in ys):
        axes.text(0.5, 0.5, NO_VALUES, transform=axes.transAxes, ha="center", va="center", color="gray")
        axes.set_yticks([])
    axes.set_title(name)
    axes.set_ylim(limits)
    axes.set_xticks([x for x, _ in ticks], [tick for _, tick in ticks])
    axes.grid(alpha=0.3)


def _svg(series: list[Series], ticks: list[tuple[float, str]], title: str,
         bands: dict[str, list[BandPoint]] | None = None) -> str:
    """One figure of :data:`PANELS` for ``series``, with the human ``bands`` (panel title -> band) behind the
    panels they name, as an ``<svg>`` element."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": title, "font.size": 8}):
        figure = Figure(figsize=(12, 5.2), layout="constrained")
        figure.suptitle(title)
        for axes, panel in zip(figure.subplots(2, 4).flat, PANELS, strict=True):
            _panel(axes, panel, series, ticks, (bands or {}).get(panel[0], []))
        handles = {label: handle for axes in figure.axes
                   for handle, label in zip(*axes.get_legend_handles_labels(), strict=True)}
        figure.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(len(handles), 4))
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    document = buffer.getvalue()
    return document[document.index("<svg"):]


def problem_plot(problem: str, runs: list[RunSummary]) -> str:
    """The curves of ``runs`` (all of ``problem``) over its checkpoints, one line per run."""
    series = [(f"{row_name(*run.group)} ({run.path})", [p.number for p in run.points], [[p] for p in run.points])
              for run in runs]
    numbers = sorted({p.number for run in runs for p in run.points})
    return _svg(series, [(n, str(n)) for n in numbers], f"{problem}: per checkpoint")


def _phase_series(label: str, runs: list[RunSummary]) -> Series:
    points = [p for run in runs for p in run.points]
    chosen = [(index, [p for p in points if p.phase == phase]) for index, phase in enumerate(PHASES)]
    return label, [index for index, group in chosen if group], [group for _, group in chosen if group]


def phase_plot(groups: dict[tuple, list[RunSummary]], bands: dict[str, list[BandPoint]]) -> str:
    """The curves per progress phase, one line per (agent, model, prompt) of ``groups``, with a human panel's
    ``bands`` (measure -> band, ``{}``: none) behind the erosion and verbosity panels."""
    series = [_phase_series(row_name(*key), members) for key, members in groups.items()]
    return _svg(series, list(enumerate(PHASES)), "per progress phase", bands)
