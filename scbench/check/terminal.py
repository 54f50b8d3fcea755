"""``scbench check``'s report on the terminal, with rich: one small printer per section."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from scbench.check.session import CheckReport
from scbench.evaluate.terminal import MARK, quality_cell
from scbench.grade.show import printable
from scbench.results import CATEGORIES


def check_table(report: CheckReport) -> Table:
    """One row per reference run: track, checkpoint, per-category counts, strict, seconds."""
    levels = sorted({results.sandbox for _, results in report.runs})
    table = Table(title=f"reference solutions (sandbox {', '.join(levels) or 'none'})")
    for column in ("track", "checkpoint", *CATEGORIES, "strict", "seconds", "erosion", "verbosity"):
        table.add_column(column, justify="left" if column in ("track", "checkpoint") else "right",
                         min_width=len(column), no_wrap=True)
    for ref, results in report.runs:
        counts = results.summary.counts
        table.add_row(ref.track, results.checkpoint, *(f"{counts[c].passed}/{counts[c].total}" for c in CATEGORIES),
                      MARK[results.summary.strict], f"{results.duration_s:.1f}",
                      *(quality_cell(results.quality, figure) for figure in ("erosion", "verbosity")))
    return table


def mutation_table(report: CheckReport) -> Table:
    """Per checkpoint: mutants killed by the cases, the score, and where the survivors are."""
    table = Table(title="mutation score (python references)")
    for column in ("checkpoint", "killed", "score", "survivors"):
        table.add_column(column)
    for score in report.mutation:
        survivors = ", ".join(f"{m.file}:{m.line} {m.description}" for m in score.survivors[:5])
        more = f" (+{len(score.survivors) - 5} more)" if len(score.survivors) > 5 else ""
        table.add_row(score.checkpoint, f"{score.killed}/{score.total}", f"{score.score:.2f}", survivors + more)
    return table


def print_check(console: Console, report: CheckReport) -> None:
    """The reference table, mutation scores if any, warnings, every inconsistency, the verdict."""
    console.print(check_table(report))
    if report.mutation:
        console.print(mutation_table(report))
    for warning in report.warnings:
        console.print(Text(f"  ! {warning}", "yellow"), highlight=False, soft_wrap=True)
    for problem in report.problems:
        console.print(Text(printable(f"  ✗ {problem}"), "red"), highlight=False, soft_wrap=True)
    console.print(str(report.floor), highlight=False)
    count = len(report.problems)
    noun = "inconsistency" if count == 1 else "inconsistencies"
    console.print(f"[bold red]{count} {noun}[/]" if count else "[bold green]consistent[/]")
