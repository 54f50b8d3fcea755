"""The agents beside a human calibration panel: each run's trend along its graded checkpoints, summarised per
(agent, model, prompt) as ``scbench calibrate`` summarises repositories (SlopCodeBench paper section 3.3)."""

from __future__ import annotations

from pathlib import Path

from scbench.history.model import TRENDED, Trend
from scbench.history.panel import group, read_result
from scbench.history.session import trend
from scbench.report.model import AgentCalibration, Calibration, RunSummary


def run_trends(run: RunSummary) -> dict[str, Trend]:
    """The trend of each of :data:`TRENDED` along ``run``'s graded checkpoints, against their numbers (none
    when no checkpoint was graded)."""
    graded = [point for point in run.points if point.erosion is not None]
    return {key: trend([getattr(point, key) for point in graded], [point.number for point in graded])
            for key in TRENDED} if graded else {}


def calibration(runs: list[RunSummary], panel: Path) -> Calibration:
    """The panel result in ``panel`` beside ``runs`` grouped by (agent, model, prompt). Raises OSError, and
    :class:`~scbench.history.panel.NotAPanelResult` for a file that is not a panel result."""
    result = read_result(panel)
    trajectories: dict[tuple[str, str | None, str], list[dict[str, Trend]]] = {}
    for run in runs:
        trajectories.setdefault(run.group, []).append(run_trends(run))
    return Calibration(panel=str(panel), humans={**result.tiers, "panel": result.panel}, band=result.band,
                       agents=[AgentCalibration(agent=agent, model=model, prompt=prompt, summary=group(trends))
                               for (agent, model, prompt), trends in trajectories.items()])
