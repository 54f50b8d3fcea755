"""``scbench eval``'s report on the terminal, with rich: one small printer per section."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from scbench.grade.show import printable
from scbench.results import CATEGORIES, CaseResult, Quality, RunResults

MARK = {True: Text("pass", "green"), False: Text("FAIL", "bold red"), None: Text("-", "dim")}
"""A solve rate's cell: solved, not solved, not claimed (part of the suite ran)."""


def print_failure(console: Console, case: CaseResult) -> None:
    """One failed case: id, category, source location, then each failing step's failures."""
    console.print(Text.assemble(("FAIL ", "bold red"), (case.id, "bold"), f"  [{case.category}]  {case.source}"))
    for step in (s for s in case.steps if not s.passed):
        for failure in step.failures:
            console.print(Text(printable(f"  {step.name}: {failure.target}: {failure.message}")), highlight=False,
                          soft_wrap=True)
            if failure.diff:
                diff = "    " + printable(failure.diff).replace("\n", "\n    ")
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
        console.print(f"only the cases matching {results.select!r} ran: no solve rate", highlight=False)
    if results.not_run:
        console.print(f"[bold red]stopped early (--max-failures): {results.not_run} case(s) not run, no solve rate[/]")


def quality_cell(quality: Quality | None, figure: str) -> str:
    """``0.123 (+0.010)``: a figure of a results' quality record and its delta, if any."""
    if quality is None:
        return "-"
    change = (quality.delta or {}).get(figure)
    return f"{getattr(quality, figure):.3f}" + (f" ({change:+.3f})" if change is not None else "")
