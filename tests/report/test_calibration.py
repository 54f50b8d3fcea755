"""``scbench report --calibration``: a human panel's figures beside the agents' trajectories, in JSON, in the
terminal and in the HTML page, each agent's trend along its graded checkpoints."""

import json
import statistics

import pytest

from conftest import scbench
from scbench.history.model import Trend
from scbench.history.panel import BandPoint, PanelResult, group

HUMAN = {key: Trend(slope=0.001, first=0.1, last=0.2, change=0.1, rising=True) for key in ("erosion", "verbosity",
                                                                                           "loc")}

BAND = [BandPoint(progress=progress, mean=0.1 + progress / 10, low=0.05 + progress / 10, high=0.15 + progress / 10, n=2)
        for progress in (0.0, 0.25, 0.5, 0.75, 1.0)]


@pytest.fixture
def panel(tmp_path):
    path = tmp_path / "panel.json"
    result = PanelResult(commits=30, seed=0, language="python", repositories=[], tiers={"big": group([HUMAN])},
                         panel=group([HUMAN, {}]), band={"erosion": BAND, "verbosity": BAND})
    path.write_text(result.model_dump_json())
    return path


def _trend(points: list[dict], key: str) -> tuple[float, float, bool]:
    """A run's last graded value of ``key`` and its least-squares slope against the checkpoint numbers."""
    graded = [(p["number"], p[key]) for p in points if p[key] is not None]
    slope = statistics.linear_regression(*zip(*graded, strict=True)).slope
    return graded[-1][1], slope, slope > 0


def test_each_agent_is_summarised_beside_the_human_panel(runs, panel):
    done = scbench("report", runs["sloppy"], runs["frozen"], runs["crashed"], "--calibration", panel, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    calibration = report["calibration"]
    assert calibration["panel"] == str(panel)
    assert calibration["humans"]["big"]["last"]["erosion"] == {"mean": 0.2, "sd": None, "median": 0.2, "n": 1}
    assert calibration["humans"]["panel"]["trajectories"] == 2
    assert [(a["agent"], a["summary"]["trajectories"]) for a in calibration["agents"]] == [("replay", 1),
                                                                                        ("scripted", 2)]
    points = {run["path"]: run["points"] for run in report["runs"]}
    for agent, paths in (("replay", ["sloppy"]), ("scripted", ["frozen", "crashed"])):
        summary = next(a["summary"] for a in calibration["agents"] if a["agent"] == agent)
        for key in ("erosion", "verbosity", "loc"):
            trends = [_trend(points[str(runs[name])], key) for name in paths]
            assert summary["last"][key]["mean"] == pytest.approx(statistics.fmean(t[0] for t in trends)), (agent, key)
            assert summary["slope"][key]["median"] == pytest.approx(statistics.median(t[1] for t in trends))
            assert summary["rising"][key] == sum(t[2] for t in trends) / len(trends)
    sloppy = next(a["summary"] for a in calibration["agents"] if a["agent"] == "replay")
    assert sloppy["rising"]["loc"] == 1.0


def test_the_terminal_and_the_page_show_the_calibration_table(runs, panel, tmp_path):
    page = tmp_path / "report.html"
    done = scbench("report", runs["sloppy"], "--calibration", panel, "--html", page)
    assert done.returncode == 0, done.stderr
    assert "Human calibration" in done.stdout
    assert "humans: big" in done.stdout and "0.2000" in done.stdout
    assert "humans' band" in done.stdout and "0.150 [0.100, 0.200]" in done.stdout
    html = page.read_text()
    assert '<table id="calibration">' in html and "humans: panel" in html
    assert '<table id="band">' in html and "<td>0.200 [0.150, 0.250]</td>" in html
    phase_plot = html[html.index("per progress phase"):]
    assert "humans: 95 % CI" in phase_plot and "humans: mean" in phase_plot


def test_the_band_is_in_the_json_report(runs, panel):
    done = scbench("report", runs["sloppy"], "--calibration", panel, "--json")
    band = json.loads(done.stdout)["calibration"]["band"]
    assert band["erosion"] == [point.model_dump() for point in BAND]


def test_a_file_that_is_not_a_panel_result_is_a_usage_error(runs, tmp_path):
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"commits": 30}')
    done = scbench("report", runs["sloppy"], "--calibration", wrong)
    assert done.returncode == 2
    assert "not a panel result (scbench calibrate's panel.json)" in done.stderr
