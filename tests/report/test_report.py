"""``scbench report`` over real run directories: Table 1's exact fractions, phases, growth, onsets, JSON."""

import json

import jsonschema
import pytest

from conftest import scbench
from scbench.paths import SCHEMAS
from scbench.report.model import phase_of
from scbench.report.plots import NO_VALUES


def report_of(*run_dirs):
    done = scbench("report", *run_dirs, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def rates(figures):
    return {key: (figures[key]["solved"], figures[key]["total"]) for key in ("strict", "isolated", "core")}


def test_table_1_has_exact_fractions_over_fixed_denominators(runs):
    report = report_of(runs["frozen"], runs["crashed"], runs["sloppy"])
    replay, scripted = report["table"]
    assert (replay["agent"], replay["prompt"], scripted["agent"]) == ("replay", "just-solve", "scripted")
    assert rates(replay["figures"]) == {"strict": (2, 3), "isolated": (3, 3), "core": (3, 3)}
    assert rates(scripted["figures"]) == {"strict": (2, 6), "isolated": (2, 6), "core": (2, 6)}
    assert scripted["figures"]["strict"]["rate"] == 2 / 6
    assert (replay["partial"]["solved"], replay["partial"]["total"]) == (1, 1)
    assert (scripted["partial"]["solved"], scripted["partial"]["total"]) == (2, 2)
    assert scripted["checkpoints"] == 6 and scripted["problems"] == ["calc"]


def test_cost_time_and_quality_say_how_many_values_they_have_and_why_others_are_missing(runs):
    scripted = report_of(runs["frozen"], runs["crashed"])["table"][0]
    cost = scripted["figures"]["cost_usd"]
    assert (cost["mean"], cost["sd"], cost["n"]) == (0.25, 0.0, 4)
    assert cost["missing"] == ["1 checkpoint: cost unknown (usage parser claude-code)", "1 checkpoint: not run"]
    assert scripted["total_cost_usd"] == {"value": 1.0, "n": 4, "missing": cost["missing"]}
    assert scripted["figures"]["minutes"]["n"] == 5
    assert scripted["figures"]["minutes"]["missing"] == ["1 checkpoint: not run"]
    erosion = scripted["figures"]["erosion"]
    assert (erosion["n"], erosion["missing"]) == (5, ["1 checkpoint: not run"])  # a failed one is graded
    assert scripted["figures"]["loc"]["mean"] == 8.0


def test_phases_split_a_trajectory_into_start_interior_and_final(runs):
    phases = report_of(runs["frozen"], runs["crashed"])["phases"]
    assert [(row["phase"], row["checkpoints"], rates(row["figures"])["strict"]) for row in phases] == [
        ("Start", 2, (2, 2)), ("Mid", 2, (0, 2)), ("Final", 2, (0, 2))]


@pytest.mark.parametrize(("checkpoints", "expected"), [
    (1, ["Start"]), (2, ["Start", "Final"]), (3, ["Start", "Mid", "Final"]),
    (4, ["Start", "Early", "Late", "Final"]), (5, ["Start", "Early", "Mid", "Late", "Final"]),
    (8, ["Start", "Early", "Early", "Mid", "Mid", "Late", "Late", "Final"]),
])
def test_progress_phases_of_a_problem(checkpoints, expected):
    assert [phase_of(number, checkpoints) for number in range(1, checkpoints + 1)] == expected


def test_callable_growth_and_regression_onset(runs):
    report = report_of(runs["sloppy"])
    assert [(g["path"], g["name"], g["sloc"], g["cc"], g["sloc_growth"], g["cc_growth"]) for g in report["growth"]] \
        == [("calc.py", "main", [7, 13, 16], [2, 3, 4], 9, 2)]
    assert [(o["number"], o["cases"], o["changed_files"]) for o in report["onsets"]] == [
        (3, ["checkpoint_1/add", "checkpoint_1/add_negative"], ["calc.py"])]
    points = report["runs"][0]["points"]
    assert [(p["strict"], p["isolated"]) for p in points] == [(True, True), (True, True), (False, True)]
    assert points[2]["failing"][0] == {"case": "checkpoint_1/add", "category": "regression",
                                       "message": "stdout: text differs at line 1, column 1 (1 line differs)"}
    assert points[1]["changes"] == [{"path": "calc.py", "kind": "changed", "added": 7, "removed": 1}]


def test_the_json_report_follows_its_schema_and_the_terminal_shows_table_1(runs):
    report = report_of(runs["frozen"], runs["sloppy"])
    schema = json.loads((SCHEMAS / "report.schema.json").read_text())
    jsonschema.validate(report, schema)
    run_schema = json.loads((SCHEMAS / "run.schema.json").read_text())
    jsonschema.validate(json.loads((runs["frozen"] / "run.json").read_text()), run_schema)
    shown = scbench("report", runs["frozen"], runs["sloppy"])
    assert shown.returncode == 0
    assert "Table 1" in shown.stdout and "2/3 66.7%" in shown.stdout and "1/3 33.3%" in shown.stdout
    assert "regression onset:" in shown.stdout


def test_a_directory_that_is_not_a_run_is_a_usage_error(tmp_path):
    done = scbench("report", tmp_path)
    assert done.returncode == 2 and "not a run directory (no run.json)" in done.stderr


def test_a_measure_no_checkpoint_has_is_written_across_its_panel_not_drawn_as_an_empty_axis(runs, tmp_path):
    for name, expected in (("sloppy", 2), ("frozen", 0)):
        page = tmp_path / f"{name}.html"
        done = scbench("report", runs[name], "--html", page)
        assert done.returncode == 0, done.stderr
        assert page.read_text().count(f">{NO_VALUES}<") == expected, name
