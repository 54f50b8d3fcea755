"""The report over run directories: every figure ``scbench report`` shows, in one typed object."""

from __future__ import annotations

from pathlib import Path

from scbench.about import version
from scbench.report.calibration import calibration
from scbench.report.figures import phases, table
from scbench.report.growth import callable_growth, regression_onsets
from scbench.report.load import load_run
from scbench.report.model import Report


def build_report(run_dirs: list[Path], panel: Path | None = None) -> Report:
    """The report of the runs in ``run_dirs`` (each holding a ``run.json``), beside the human calibration
    panel result in ``panel`` if given. Raises ``FileNotFoundError`` for a directory without one and
    pydantic's ``ValidationError`` for a file that does not follow its schema."""
    runs = [load_run(run_dir) for run_dir in run_dirs]
    return Report(scbench=version(), runs=runs, table=table(runs), phases=phases(runs),
                  growth=[growth for run in runs for growth in callable_growth(run)],
                  onsets=[onset for run in runs for onset in regression_onsets(run)],
                  calibration=calibration(runs, panel) if panel else None)
