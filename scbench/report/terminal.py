"""Terminal reports with rich: one small printer per section."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from scbench.problem.diagnostics import Diagnostic
from scbench.results import CATEGORIES, CaseResult, RunResults

if TYPE_CHECKING:  # only named in annotations: printing diagnostics (scbench compile) need not load the executor
    from scbench.check import CheckReport

MARK = {True: Text("pass", "green"), False: Text("FAIL", "bold red")}


def print_diagnostics(console: Console, diagnostics: list[Diagnostic]) -> None:
    """Each diagnostic as ``file:line: where: message`` and its fix, then a count."""
    for diagnostic in diagnostics:
        console.print(Text(diagnostic.render()), highlight=False, soft_wrap=True)
    console.print(f"[bold red]{len(diagnostics)} error(s)[/]")


def print_failure(console: Console, case: CaseResult) -> None:
    """One failed case: id, category, source location, then each failing step's failures."""
    console.print(Text.assemble(("FAIL ", "bold red"), (case.id, "bold"), f"  [{case.category}]  {case.source}"))
    for step in (s for s in case.steps if not s.passed):
        for failure in step.failures:
            console.print(Text(f"  {step.name}: {failure.target}: {failure.message}"), highlight=False, soft_wrap=True)
            if failure.diff:
                diff = "    " + failure.diff.replace("\n", "\n    ")
                console.print(Text(diff, "dim"), highlight=False, soft_wrap=True)


def summary_table(results: RunResults) -> Table:
    """Per-category passed/total and strict / isolated / core for one run."""
    table = Table(title=f"{results.problem} {results.checkpoint}  "
                        f"({results.duration_s:.1f}s, sandbox {results.sandbox})")
    for column in (*CATEGORIES, "strict", "isolated", "core", "erosion", "verbosity"):
        table.add_column(column, justify="right", min_width=len(column), no_wrap=True)
    counts = results.summary.counts
    table.add_row(*(f"{counts[c].passed}/{counts[c].total}" for c in CATEGORIES),
                  *(MARK[ok] for ok in (results.summary.strict, results.summary.isolated, results.summary.core)),
                  *(quality_cell(results.quality, figure) for figure in ("erosion", "verbosity")))
    return table


def print_run(console: Console, results: RunResults) -> None:
    """Every failed case, then the summary table and what was left out (``-k``, ``--max-failures``)."""
    for case in results.cases:
        if not case.passed:
            print_failure(console, case)
    console.print(summary_table(results))
    if results.select is not None:
        console.print(f"only the cases matching {results.select!r} ran", highlight=False)
    if results.not_run:
        console.print(f"[bold red]stopped early (--max-failures): {results.not_run} case(s) not run[/]")


def quality_cell(quality: dict | None, figure: str) -> str:
    """``0.123 (+0.010)``: a figure of a results' quality record and its delta, if any."""
    if quality is None:
        return "-"
    change = (quality.get("delta") or {}).get(figure)
    return f"{quality[figure]:.3f}" + (f" ({change:+.3f})" if change is not None else "")


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
        console.print(Text(f"  ✗ {problem}", "red"), highlight=False, soft_wrap=True)
    count = len(report.problems)
    noun = "inconsistency" if count == 1 else "inconsistencies"
    console.print(f"[bold red]{count} {noun}[/]" if count else "[bold green]consistent[/]")
