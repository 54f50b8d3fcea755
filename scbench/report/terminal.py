"""The report in the terminal (rich): one small printer per section."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from scbench.harness.failures import NOT_THE_AGENT
from scbench.history import text as calibration_text
from scbench.report import text
from scbench.report.model import MEASURES, Calibration, Figures, Report, RunSummary, TableRow

MARK = {True: "yes", False: "no"}


def _cells(rates: Figures) -> list[str]:
    return [text.rate(rates.strict), text.rate(rates.isolated), text.rate(rates.core)]


def _measures(rates: Figures) -> list[str]:
    return [text.figure(getattr(rates, key), text.DIGITS[key]) for key in MEASURES]


def table_1(report: Report) -> Table:
    """Table 1: one row per (agent, model, prompt)."""
    table = Table(title="Table 1: solve rates over every checkpoint attempted; cost, time and quality over those "
                        "that have them")
    for column in ("agent / model / prompt", "runs", *text.COLUMNS):
        table.add_column(column, justify="left" if column.startswith("agent") else "right")
    for row in report.table:
        measures = _measures(row.figures)
        table.add_row(text.row_name(row.agent, row.model, row.prompt), str(len(row.runs)), *_cells(row.figures),
                      text.rate(row.partial), measures[0], text.total(row.total_cost_usd), *measures[1:])
    return table


def missing_notes(rows: list[TableRow]) -> list[str]:
    """Why figures of Table 1 lack values: one line per row and measure that has missing ones."""
    return [f"{text.row_name(row.agent, row.model, row.prompt)}: {key}: {'; '.join(figure.missing)}"
            for row in rows for key in MEASURES if (figure := getattr(row.figures, key)).missing]


def uncontained_notes(runs: list[RunSummary]) -> list[str]:
    """One line per run whose agent ran at a level that contains nothing: its grades may be its own doing."""
    return [f"{run.path}: its agent ran uncontained (sandbox local): it could have changed what was graded and "
            "recorded, so its figures are not evidence" for run in runs if run.uncontained]


def ending_notes(rows: list[TableRow]) -> list[str]:
    """How the runs of each row that ended early ended: by the provider or the infrastructure, or by the agent."""
    notes = []
    for row in rows:
        theirs = sum(count for name, count in row.ended_by.items() if name in NOT_THE_AGENT)
        if row.ended_by:
            classes = ", ".join(f"{name} {count}" for name, count in sorted(row.ended_by.items()))
            notes.append(f"{text.row_name(row.agent, row.model, row.prompt)}: {theirs} run(s) ended by the provider "
                         f"or the infrastructure, {sum(row.ended_by.values()) - theirs} by the agent or a limit "
                         f"({classes})")
    return notes


def phase_table(report: Report) -> Table:
    """The figures per progress phase."""
    table = Table(title="Progress phases (Start, Early, Mid, Late, Final)")
    for column in ("agent / model / prompt", "phase", "checkpoints", "Strict", "Iso.", "Core",
                   *(text.LABELS[key] for key in MEASURES)):
        table.add_column(column, justify="left" if column in ("agent / model / prompt", "phase") else "right")
    for row in report.phases:
        table.add_row(text.row_name(row.agent, row.model, row.prompt), row.phase, str(row.checkpoints),
                      *_cells(row.figures), *_measures(row.figures))
    return table


def run_table(run: RunSummary) -> Table:
    """One run, one row per checkpoint."""
    table = Table(title=f"{run.path}: {text.row_name(run.agent, run.model, run.prompt)} on {run.problem} "
                        f"({run.track}, {run.sandbox}{', UNCONTAINED' if run.uncontained else ''})")
    for column in ("checkpoint", "phase", "status", "strict", "iso.", "core", *MEASURES, "reason"):
        table.add_column(column, justify="left" if column in ("checkpoint", "phase", "status", "reason") else "right")
    for p in run.points:
        table.add_row(p.name, p.phase, p.status, MARK[p.strict], MARK[p.isolated], MARK[p.core],
                      *(text.shown(getattr(p, key), key) for key in MEASURES), (p.reason or "").split("\n")[0])
    return table


def calibration_table(calibration: Calibration) -> Table:
    """The human panel's tiers and whole beside each agent: last figures (HEAD, last checkpoint), median
    slopes (per commit, per checkpoint), shares rising."""
    table = Table("humans (tier) / agent / model / prompt", *calibration_text.COLUMNS,
                  title=f"Human calibration ({calibration.panel}): repositories' HEAD and slopes per commit beside "
                        "agents' last checkpoint and slopes per checkpoint")
    for tier, summary in calibration.humans.items():
        table.add_row(f"humans: {tier}", *calibration_text.cells(summary))
    for agent in calibration.agents:
        table.add_row(text.row_name(agent.agent, agent.model, agent.prompt), *calibration_text.cells(agent.summary))
    return table


def band_table(calibration: Calibration) -> Table:
    """The panel's mean and 95 % confidence interval over normalised trajectory progress, per measure."""
    table = Table(*calibration_text.BAND_COLUMNS, title="Humans over normalised trajectory progress (0: first "
                  "sampled commit, 1: HEAD): mean [95 % confidence interval]")
    for row in calibration_text.band_rows(calibration.band):
        table.add_row(*row)
    return table


def print_report(console: Console, report: Report) -> None:
    """Table 1 with its notes, the phases, each run, the top growing callables and regression onsets, and the
    calibration table when there is one."""
    console.print(table_1(report))
    for note in missing_notes(report.table):
        console.print(f"  missing: {note}", highlight=False)
    for note in uncontained_notes(report.runs):
        console.print(f"  [bold red]UNCONTAINED[/]: {note}", highlight=False)
    for note in ending_notes(report.table):
        console.print(f"  ended early: {note}", highlight=False)
    console.print(phase_table(report))
    for run in report.runs:
        console.print(run_table(run))
    for growth in report.growth:
        console.print(f"grows: {growth.run} {growth.path}:{growth.name} SLOC {growth.sloc} CC {growth.cc}",
                      highlight=False)
    for onset in report.onsets:
        console.print(f"regression onset: {onset.run} checkpoint_{onset.number}: {', '.join(onset.cases)} "
                      f"(changed: {', '.join(onset.changed_files) or 'nothing'})", highlight=False)
    if report.calibration:
        console.print(calibration_table(report.calibration))
    if report.calibration and report.calibration.band:
        console.print(band_table(report.calibration))
