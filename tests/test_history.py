"""``scbench history`` on small git repositories built here with real commits, whose figures are worked out by
hand: which commits are sampled, which are dropped and why, each point's erosion, verbosity and LOC, the
trends, resuming, bare repositories, and the errors of bad input."""

import json
import math
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, scbench
from scbench.history.panel import load_panel, read_result

F = "def f(x):\n    return x\n"
"""f: CC 1, SLOC 2, mass sqrt(2); nothing flagged."""
G = "def g(x):\n" + "".join(f"    if x == {i}:\n        return {i * i}\n" for i in range(10)) + "    return -1\n"
"""g: ten ifs, CC 11 (eroded), SLOC 22, mass 11 sqrt(22); nothing flagged."""
H = "def h(x):\n    if x == None:\n        return 0\n    return x\n"
"""h: CC 2, SLOC 4, mass 4; its ``== None`` line flagged (compare-none-equality)."""

E3 = 11 * math.sqrt(22) / (11 * math.sqrt(22) + math.sqrt(2))
E4 = 11 * math.sqrt(22) / (11 * math.sqrt(22) + 4 + math.sqrt(2))


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def _commit(repo: Path, day: int, files: dict[str, str | None]) -> str:
    """Write (or with ``None`` remove) ``files``, commit them on 2024-01-DAY at noon UTC; the new commit's id."""
    for name, text in files.items():
        if text is None:
            (repo / name).unlink()
        else:
            (repo / name).write_text(text)
    _git(repo, "add", "-A")
    date = f"2024-01-{day:02d}T12:00:00+00:00"
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.org"}
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", f"day {day}"], check=True, env=env)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path) -> tuple[Path, dict[str, str]]:
    """Seven commits: six change python files, two of those leave nothing to measure."""
    path = tmp_path / "repo"
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    shas = {"f": _commit(path, 1, {"a.py": F}),
            "readme": _commit(path, 2, {"README.md": "docs only\n"}),
            "g": _commit(path, 3, {"b.py": G}),
            "h": _commit(path, 4, {"c.py": H}),
            "broken": _commit(path, 5, {"a.py": "def f(:\n", "b.py": None, "c.py": None}),
            "none": _commit(path, 6, {"a.py": None}),
            "back": _commit(path, 7, {"a.py": F, "c.py": H})}
    return path, shas


def _history(*args) -> dict:
    done = scbench("history", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_source_commit_is_measured_and_those_without_a_measurable_file_are_dropped(repo):
    path, shas = repo
    result = _history(path)
    assert (result["head"], result["candidates"], result["commits"], result["seed"]) == (shas["back"], 6, 30, 0)
    points = [(p["number"], p["commit"], p["date"], p["loc"], p["files"]) for p in result["points"]]
    assert points == [(1, shas["f"], "2024-01-01T12:00:00+00:00", 2, 1),
                      (2, shas["g"], "2024-01-03T12:00:00+00:00", 24, 2),
                      (3, shas["h"], "2024-01-04T12:00:00+00:00", 28, 3),
                      (4, shas["back"], "2024-01-07T12:00:00+00:00", 6, 2)]
    assert [p["erosion"] for p in result["points"]] == pytest.approx([0, E3, E4, 0], abs=1e-12)
    assert [p["verbosity"] for p in result["points"]] == pytest.approx([0, 0, 1 / 28, 1 / 6], abs=1e-12)
    assert [p["total_mass"] for p in result["points"]] == pytest.approx(
        [math.sqrt(2), 11 * math.sqrt(22) + math.sqrt(2), 11 * math.sqrt(22) + 4 + math.sqrt(2), 4 + math.sqrt(2)])
    assert [(p["flagged_lines"], p["clone_lines"], p["skipped_files"]) for p in result["points"]] == [(0, 0, 0)] * 2 \
        + [(1, 0, 0)] * 2
    assert result["dropped"] == [
        {"commit": shas["broken"], "date": "2024-01-05T12:00:00+00:00", "reason": "no file measured"},
        {"commit": shas["none"], "date": "2024-01-06T12:00:00+00:00", "reason": "no source file"}]


def test_the_trends_are_least_squares_slopes_per_commit_and_first_to_last_changes(repo):
    # points 1..4 (mean 2.5): slope = sum((n - 2.5) * value) / 5; h's mass dilutes g's, E4 < E3
    trends = _history(repo[0])["trends"]
    assert trends["erosion"] == pytest.approx({"slope": (E4 - E3) / 10, "first": 0, "last": 0, "change": 0,
                                               "rising": False}, abs=1e-12)
    assert trends["verbosity"] == pytest.approx({"slope": (0.5 / 28 + 1.5 / 6) / 5, "first": 0, "last": 1 / 6,
                                                 "change": 1 / 6, "rising": True}, abs=1e-12)
    assert trends["loc"] == pytest.approx({"slope": 1.6, "first": 2, "last": 6, "change": 4, "rising": True})


def test_a_sample_keeps_the_newest_commit_and_draws_the_rest_with_the_seed(repo):
    path, shas = repo
    results = {seed: _history(path, "--commits", "3", "--seed", seed) for seed in ("1", "2")}
    drawn = {seed: ([p["commit"] for p in result["points"]], [d["commit"] for d in result["dropped"]])
             for seed, result in results.items()}
    # random.Random(seed).sample(range(5), 2) over f, g, h, broken, none (seed 1: f, g; seed 2: f, none),
    # sorted, then the newest
    assert drawn == {"1": ([shas["f"], shas["g"], shas["back"]], []),
                     "2": ([shas["f"], shas["back"]], [shas["none"]])}
    assert _history(path, "--commits", "3", "--seed", "1") == results["1"]
    assert [p["commit"] for p in _history(path, "--commits", "1")["points"]] == [shas["back"]]


def test_excluded_files_are_neither_candidates_nor_measured(repo, tmp_path):
    path, shas = repo
    out = tmp_path / "history.json"
    result = _history(path, "--exclude", "b.py", "--out", out)
    # the commit that only adds b.py is no candidate; without g, h's commit is a.py and c.py: 6 LOC, one flagged
    assert (result["exclude"], result["candidates"]) == (["b.py"], 5)
    assert [(p["commit"], p["loc"], p["verbose_lines"], p["erosion"]) for p in result["points"]] == [
        (shas["f"], 2, 0, 0.0), (shas["h"], 6, 1, 0.0), (shas["back"], 6, 1, 0.0)]
    assert [(d["commit"], d["reason"]) for d in result["dropped"]] == [(shas["broken"], "no file measured"),
                                                                       (shas["none"], "no source file")]
    other = scbench("history", path, "--out", out)
    assert other.returncode == 2
    assert "excluding ['b.py'], not of python files excluding nothing; give another --out" in other.stderr


def test_a_measured_commit_is_never_measured_again(repo, tmp_path):
    path, shas = repo
    out = tmp_path / "history.json"
    first = scbench("history", path, "--commits", "2", "--seed", "1", "--out", out)
    assert first.returncode == 0, first.stderr
    # random.Random(1).sample(range(5), 1) draws g
    assert sorted(line.split()[0] for line in first.stderr.splitlines()) == sorted([shas["g"][:12],
                                                                                    shas["back"][:12]])
    written = json.loads(out.read_text())
    written["points"][0]["loc"] = 1000  # what the first run measured is what the second one reports
    out.write_text(json.dumps(written))
    second = scbench("history", path, "--out", out)
    assert second.returncode == 0, second.stderr
    assert sorted(line.split()[0] for line in second.stderr.splitlines()) == sorted(
        sha[:12] for sha in (shas["f"], shas["h"], shas["broken"], shas["none"]))
    result = json.loads(out.read_text())
    assert [p["loc"] for p in result["points"]] == [2, 1000, 28, 6]
    assert (len(result["dropped"]), result["commits"]) == (2, 30)


def test_a_bare_repository_and_a_changed_work_tree_give_the_committed_figures(repo, tmp_path):
    path, _ = repo
    expected = _history(path)
    (path / "a.py").write_text(G)
    (path / "new.py").write_text(H)
    status = _git(path, "status", "--porcelain")
    assert _history(path) == expected
    assert (_git(path, "status", "--porcelain"), (path / "a.py").read_text()) == (status, G)
    bare = tmp_path / "bare.git"
    _git(tmp_path, "clone", "-q", "--bare", str(path), str(bare))
    assert _history(bare) == {**expected, "repository": str(bare)}


def test_a_python_file_that_is_a_link_is_left_out(tmp_path):
    path = tmp_path / "repo"
    path.mkdir()
    _git(path, "init", "-q")
    (path / "outside.py").symlink_to("/etc/hostname")
    _commit(path, 1, {"a.py": F})
    assert [(p["files"], p["loc"]) for p in _history(path)["points"]] == [(1, 2)]


@pytest.mark.parametrize(("args", "message"), [
    (["--commits", "0"], "Invalid value for '--commits' / '-n': Input should be greater than or equal to 1"),
    (["--language", "pyton"], "unknown language 'pyton'; known: "),
    (["--language", "rust"], "no commit of HEAD's first-parent history changes a rust file (*.rs); give another "
                             "--language or --exclude"),
])
def test_bad_options_are_usage_errors(repo, args, message):
    done = scbench("history", repo[0], *args)
    assert (done.returncode, done.stdout) == (2, "")
    assert message in " ".join(done.stderr.split())


def test_a_directory_that_is_no_repository_or_has_no_commit_is_a_usage_error(tmp_path):
    plain = scbench("history", tmp_path)
    assert plain.returncode == 2
    assert "not a git repository with a commit" in plain.stderr
    _git(tmp_path, "init", "-q")
    empty = scbench("history", tmp_path)
    assert empty.returncode == 2
    assert "not a git repository with a commit" in empty.stderr


def test_an_out_file_that_is_not_a_history_result_is_kept_and_refused(repo, tmp_path):
    out = tmp_path / "notes.json"
    out.write_text('{"mine": 1}\n')
    done = scbench("history", repo[0], "--out", out)
    assert done.returncode == 2
    assert "is not a history result" in done.stderr
    assert out.read_text() == '{"mine": 1}\n'


def _panel(tmp_path: Path, repositories: list[dict]) -> Path:
    panel = tmp_path / "panel.yaml"
    panel.write_text(json.dumps({"commits": 30, "repositories": repositories}))
    return panel


def test_a_panel_is_summarised_per_repository_per_tier_and_whole(repo, tmp_path):
    path, shas = repo
    small = tmp_path / "small"
    small.mkdir()
    _git(small, "init", "-q")
    _commit(small, 1, {"a.py": F})
    _commit(small, 2, {"b.py": G})  # erosion 0 then E3, verbosity 0 then 0
    panel = _panel(tmp_path, [{"name": "o/seven", "path": "repo", "tier": "big"},
                              {"name": "o/small", "path": "small", "tier": "small"}])
    done = scbench("calibrate", panel, "--out", tmp_path / "out", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert json.loads((tmp_path / "out/panel.json").read_text()) == result
    assert [(r["name"], r["tier"], r["head"], r["candidates"], r["points"], r["dropped"])
            for r in result["repositories"]] == [("o/seven", "big", shas["back"], 6, 4, 2),
                                                 ("o/small", "small", _git(small, "rev-parse", "HEAD"), 2, 2, 0)]
    assert json.loads((tmp_path / "out/o+seven.json").read_text())["trends"] == result["repositories"][0]["trends"]
    whole = result["panel"]
    assert whole["trajectories"] == 2
    assert whole["last"]["erosion"] == pytest.approx({"mean": E3 / 2, "sd": E3 / math.sqrt(2), "median": E3 / 2,
                                                      "n": 2})
    assert whole["slope"]["erosion"] == pytest.approx({"mean": ((E4 - E3) / 10 + E3) / 2,
                                                       "sd": abs(E3 - (E4 - E3) / 10) / math.sqrt(2),
                                                       "median": ((E4 - E3) / 10 + E3) / 2, "n": 2})
    assert whole["rising"] == {"erosion": 0.5, "verbosity": 0.5, "loc": 1.0}
    assert result["tiers"]["small"]["last"]["erosion"] == pytest.approx({"mean": E3, "sd": None, "median": E3,
                                                                         "n": 1})
    assert result["tiers"]["big"]["change"]["verbosity"] == pytest.approx(
        {"mean": 1 / 6, "sd": None, "median": 1 / 6, "n": 1})
    # the band: seven's erosion 0, E3, E4, 0 at progress 0, 1/3, 2/3, 1 and small's 0, E3 at 0, 1, interpolated;
    # for two values a and b the 95 % interval of the mean is (a + b) / 2 -+ 1.959964 |a - b| / 2
    assert [(p["progress"], p["n"]) for p in result["band"]["erosion"]] == [(x, 2) for x in (0, 0.25, 0.5, 0.75, 1)]
    assert result["band"]["erosion"][0] == {"progress": 0.0, "mean": 0.0, "low": 0.0, "high": 0.0, "n": 2}
    assert result["band"]["erosion"][1] == pytest.approx({"progress": 0.25, "mean": E3 / 2, "n": 2,
                                                          "low": E3 / 2 - 1.959964 * E3 / 4,
                                                          "high": E3 / 2 + 1.959964 * E3 / 4})
    assert result["band"]["erosion"][2]["mean"] == pytest.approx(((E3 + E4) / 2 + E3 / 2) / 2)
    assert result["band"]["verbosity"][4] == pytest.approx({"progress": 1.0, "mean": 1 / 12, "n": 2,
                                                            "low": 1 / 12 - 1.959964 / 12,
                                                            "high": 1 / 12 + 1.959964 / 12})
    again = scbench("calibrate", panel, "--out", tmp_path / "out", "--json")
    assert (again.returncode, again.stderr, json.loads(again.stdout)) == (0, "", result)


@pytest.mark.parametrize(("panel", "message"), [
    ({"repositories": []}, "repositories"),
    ({"repositories": [{"name": "no-owner", "path": "repo", "tier": "t"}]}, "repositories.0.name"),
    ({"repositories": [{"name": "o/n", "path": "missing", "tier": "t"}]}, "not a git repository with a commit"),
])
def test_a_bad_panel_is_a_usage_error(repo, tmp_path, panel, message):
    path = tmp_path / "panel.yaml"
    path.write_text(json.dumps(panel))
    done = scbench("calibrate", path, "--out", tmp_path / "out")
    assert done.returncode == 2
    assert message in done.stderr


def test_the_shipped_panel_result_is_the_shipped_panel_measured():
    panel = load_panel(ROOT / "calibration/panel.yaml")
    result = read_result(ROOT / "calibration/figures/panel.json")
    assert len(panel.repositories) >= 12
    assert [(r.name, r.tier) for r in result.repositories] == [(r.name, r.tier) for r in panel.repositories]
    assert (result.commits, result.seed, result.language) == (panel.commits, panel.seed, panel.language)
    assert all(len(r.head) == 40 and r.points == panel.commits for r in result.repositories)
    assert {"pallets/flask", "fastapi/fastapi"} <= {r.name for r in result.repositories}
