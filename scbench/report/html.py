"""``scbench report --html``: one self-contained static page (``report.html.j2``).

No script and nothing fetched: styles inline, plots inline SVG (:mod:`scbench.report.plots`), a
Content-Security-Policy that forbids every request, so the page opens the same offline. It shows
Table 1 with the reasons for missing values, the phases, the degradation curves per problem and per
phase, callable growth, regression onsets, the human calibration table (``--calibration``), and the runs
side by side with a drill-down per checkpoint (prompt, usage, diff summary, failing cases, quality deltas).
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from scbench.history import text as calibration
from scbench.report import text
from scbench.report.figures import groups
from scbench.report.model import MEASURES, Report
from scbench.report.plots import phase_plot, problem_plot
from scbench.report.terminal import missing_notes, uncontained_notes
from scbench.rundir import checkpoint_dir

FAILING_SHOWN = 30
"""Failing cases listed per checkpoint (the count says how many more there are)."""


def _prompts(report: Report) -> dict[tuple[str, int], str]:
    """(run path, checkpoint number) -> the rendered prompt, where the run directory kept it."""
    found = {}
    for run in report.runs:
        for p in run.points:
            path = checkpoint_dir(Path(run.path), p.number) / "prompt.md"
            if path.exists():
                found[run.path, p.number] = path.read_text(encoding="utf-8")
    return found


def render_html(report: Report) -> str:
    """The page of ``report``."""
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True,
                                     undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    problems: dict[str, list] = {}
    for run in report.runs:
        problems.setdefault(run.problem, []).append(run)
    bands = report.calibration.band if report.calibration else {}
    plots = [*(problem_plot(problem, runs) for problem, runs in problems.items()),
             phase_plot(groups(report.runs), bands)]
    return environment.get_template("report.html.j2").render(
        report=report, text=text, measures=MEASURES, notes=missing_notes(report.table),
        uncontained=uncontained_notes(report.runs), plots=plots,
        prompts=_prompts(report), failing_shown=FAILING_SHOWN, calibration=calibration)
