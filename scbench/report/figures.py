"""Table 1 and the per-phase figures, from the runs' points.

Solve rates use fixed denominators (paper Table 1): every checkpoint of every run of a row counts,
and a checkpoint that was not run, whose agent failed, or that could not be graded is unsolved.
Partial counts the runs (problems attempted) with at least one strict-solved checkpoint. Cost and
minutes are over the checkpoints whose agent ran to an end, quality over the graded ones; each
figure says how many values it has and why the others are missing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from scbench.report.model import (
    MEASURES,
    PHASES,
    Figure,
    Figures,
    PhaseRow,
    Point,
    Rate,
    RunSummary,
    TableRow,
    Total,
)


def figures(points: list[Point]) -> Figures:
    """Solve rates and the measures' figures over ``points``."""
    measures = {key: Figure.of([getattr(p, key) for p in points if getattr(p, key) is not None],
                               [p.missing[key] for p in points if getattr(p, key) is None]) for key in MEASURES}
    return Figures(strict=Rate.of([p.strict for p in points]), isolated=Rate.of([p.isolated for p in points]),
                   core=Rate.of([p.core for p in points]), **measures)


def groups(runs: list[RunSummary]) -> dict[tuple, list[RunSummary]]:
    """Runs by (agent, model, prompt), in the order first seen."""
    found: dict[tuple, list[RunSummary]] = {}
    for run in runs:
        found.setdefault(run.group, []).append(run)
    return found


def _points(runs: Iterable[RunSummary]) -> list[Point]:
    return [p for run in runs for p in run.points]


def _ranking(row: TableRow) -> tuple:
    """Paper Table 1's order: isolated, then core, then strict (higher first), then $/checkpoint (lower first)."""
    rates = row.figures
    cost = rates.cost_usd.mean if rates.cost_usd.mean is not None else float("inf")
    return -(rates.isolated.rate or 0), -(rates.core.rate or 0), -(rates.strict.rate or 0), cost


def _ended_by(runs: list[RunSummary]) -> dict[str, int]:
    """Failure class -> how many of ``runs`` it ended early."""
    return dict(Counter(run.failure for run in runs if run.failure))


def table(runs: list[RunSummary]) -> list[TableRow]:
    """Table 1: one row per (agent, model, prompt), ranked as the paper ranks them."""
    rows = []
    for (agent, model, prompt), members in groups(runs).items():
        points = _points(members)
        costs = [p.cost_usd for p in points if p.cost_usd is not None]
        rows.append(TableRow(agent=agent, model=model, prompt=prompt, runs=[run.path for run in members],
                             problems=sorted({run.problem for run in members}), checkpoints=len(points),
                             partial=Rate.of([any(p.strict for p in run.points) for run in members]),
                             total_cost_usd=Total.of(costs, [p.missing["cost_usd"] for p in points
                                                             if p.cost_usd is None]),
                             figures=figures(points), ended_by=_ended_by(members)))
    return sorted(rows, key=_ranking)


def phases(runs: list[RunSummary]) -> list[PhaseRow]:
    """The figures of each (agent, model, prompt) per progress phase that has checkpoints."""
    rows = []
    for (agent, model, prompt), members in groups(runs).items():
        points = _points(members)
        for phase in PHASES:
            chosen = [p for p in points if p.phase == phase]
            if chosen:
                rows.append(PhaseRow(agent=agent, model=model, prompt=prompt, phase=phase, checkpoints=len(chosen),
                                     figures=figures(chosen)))
    return rows
