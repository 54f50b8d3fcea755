"""Human-readable rendering of a QualityReport: one small printer per section."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from scbench.quality.model import QualityReport

TOP = 10


def _summary(report: QualityReport) -> Table:
    table = Table(title="Quality (SlopCodeBench eq. 2-4)", show_header=False)
    r = report
    table.add_row("erosion", f"{r.erosion:.4f}", f"mass {r.eroded_mass:.1f} eroded / {r.total_mass:.1f}")
    union = f"|flagged {r.flagged_lines} U clones {r.clone_lines}| = {r.verbose_lines}"
    table.add_row("verbosity", f"{r.verbosity:.4f}", f"{union} / LOC {r.loc}")
    table.add_row("files", str(r.files), f"{len(r.callables)} callables, {len(r.skipped)} skipped")
    return table


def _callables(report: QualityReport) -> Table:
    table = Table("callable", "where", "CC", "SLOC", "mass", title=f"Top {TOP} callables by mass")
    for item in report.to_dict(TOP)["top_callables"]:
        where = f"{item['path']}:{item['line']}"
        table.add_row(item["name"], where, str(item["cc"]), str(item["sloc"]), f"{item['mass']:.1f}")
    return table


def _rules(report: QualityReport) -> Table:
    table = Table("rule", "matches", title="Rule matches")
    for rule, count in list(report.to_dict()["flags_by_rule"].items())[:TOP]:
        table.add_row(rule, str(count))
    return table


def _clones(report: QualityReport) -> Table:
    table = Table("first", "second", "lines", title=f"Top {TOP} clone pairs")
    for pair in report.clones[:TOP]:
        table.add_row("{}:{}-{}".format(*pair.first), "{}:{}-{}".format(*pair.second), str(pair.lines))
    return table


def _skipped(report: QualityReport) -> Table:
    table = Table("file", "reason", title="Skipped files")
    for path, reason in report.skipped:
        table.add_row(path, reason)
    return table


SECTIONS: tuple[Callable[[QualityReport], Table], ...] = (_summary, _callables, _rules, _clones, _skipped)


def render(report: QualityReport, console: Console) -> None:
    """Print every section of ``report`` to ``console``, skipping sections without rows."""
    for section in SECTIONS:
        table = section(report)
        if table.row_count:
            console.print(table)
