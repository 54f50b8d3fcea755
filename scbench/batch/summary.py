"""What a batch reports: one row per job (``summary.json``, ``schemas/batch-summary.schema.json``)
and the summary table printed on stdout."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from scbench.results import CATEGORIES, Model, RunResults, Summary

if TYPE_CHECKING:
    from rich.table import Table

    from scbench.batch.resolve import Job

Status = Literal["ran", "resumed", "setup failed"]


class Row(Model):
    """One job: where it sits in the results tree (``PROBLEM/SOLUTION/checkpoint_N``), whether it
    ran now, was current already (``resumed``) or could not be set up (``error`` says why), and
    its verdicts, quality figures and seconds when it has results."""

    problem: str
    solution: str
    checkpoint: int
    status: Status
    summary: Summary | None = None
    erosion: float | None = None
    verbosity: float | None = None
    duration_s: float | None = Field(None, description="wall seconds of the evaluation when it ran")
    error: str = ""

    @classmethod
    def of(cls, job: Job, status: Status, results: RunResults | None, error: str = "") -> Row:
        quality = results.quality if results else None
        return cls(problem=job.problem, solution=job.name, checkpoint=job.checkpoint, status=status,
                   summary=results and results.summary, erosion=quality and quality.erosion,
                   verbosity=quality and quality.verbosity, duration_s=results and results.duration_s, error=error)


class BatchSummary(Model):
    """``summary.json`` of a batch: one row per job of the plan, in plan order."""

    rows: list[Row]


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _verdicts(row: Row) -> list[str]:
    if row.summary is None:
        return ["-"] * (len(CATEGORIES) + 1)
    counts = row.summary.counts
    return [*(f"{counts[c].passed}/{counts[c].total}" for c in CATEGORIES), "pass" if row.summary.strict else "FAIL"]


def summary_table(rows: list[Row]) -> Table:
    """One line per job: problem, solution, checkpoint, per-category counts, strict, erosion,
    verbosity, seconds and status."""
    from rich.table import Table
    solved = sum(bool(row.summary and row.summary.strict) for row in rows)
    table = Table(title=f"batch: {len(rows)} evaluation(s), {solved} strict-solved")
    for column in ("problem", "solution", "checkpoint", *CATEGORIES, "strict", "erosion", "verbosity", "seconds",
                   "status"):
        table.add_column(column, justify="left" if column in ("problem", "solution", "status") else "right",
                         no_wrap=True)
    for row in rows:
        table.add_row(row.problem, row.solution, str(row.checkpoint), *_verdicts(row), _figure(row.erosion),
                      _figure(row.verbosity), "-" if row.duration_s is None else f"{row.duration_s:.1f}",
                      row.status)
    return table
