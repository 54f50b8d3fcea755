"""``scbench batch PLAN``: one run over many solutions and checkpoints, its results tree, plan
errors, agent run directories, and resuming after a finished, interrupted or killed run."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import KV, ROOT, comparable, evaluations_in, kv_plan, replace_in, scbench, write_plan
from scbench.evaluate.session import Target, evaluate, with_quality
from scbench.problem.compiler import compile_problem
from scbench.rundir import read_run, write_run


def results_of(out: Path, key: str) -> dict:
    return json.loads((out / key / "results.json").read_text())


def test_batch_writes_what_eval_would_for_every_job_and_a_summary(tmp_path):
    done = scbench("batch", kv_plan(tmp_path), "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "5 evaluation(s): 0 current in" in done.stderr and "5 to run" in done.stderr
    bundle = compile_problem(KV)
    for key, number, solution, track, previous in (
            ("kv/python/checkpoint_1", 1, "python/checkpoint_1", "python", None),
            ("kv/python/checkpoint_2", 2, "python/checkpoint_2", "python", "python/checkpoint_1"),
            ("kv/node/checkpoint_2", 2, "node/checkpoint_1", "node", None)):
        alone = with_quality(evaluate(bundle, number, Target(KV / "solutions" / solution, track)),
                             KV / "solutions" / solution, previous and KV / "solutions" / previous)
        assert comparable(results_of(tmp_path / "out", key)) == comparable(json.loads(alone.model_dump_json()))
        assert (tmp_path / "out" / key / "junit.xml").read_text().count("<testcase ") == len(alone.cases)
    rows = json.loads((tmp_path / "out/summary.json").read_text())["rows"]
    assert [(r["problem"], r["solution"], r["checkpoint"], r["status"], r["summary"]["strict"]) for r in rows] == [
        ("kv", "python", 1, "ran", True), ("kv", "python", 2, "ran", True), ("kv", "node", 1, "ran", True),
        ("kv", "node", 2, "ran", False), ("greet", "python", 1, "ran", True)]
    assert "batch: 5 evaluation(s), 4 strict-solved" in done.stdout
    solution_s = sum(step["duration_s"] for results in (tmp_path / "out").rglob("results.json")
                     for case in json.loads(results.read_text())["cases"] for step in case["steps"])
    cores = len(os.sched_getaffinity(0))
    assert (f"floor {solution_s / cores:.1f} s (the solutions' processes ran {solution_s:.1f} s on {cores} cores)"
            in done.stderr), done.stderr


def test_a_second_run_resumes_and_reruns_only_what_changed(kv_copy, tmp_path):
    solution = shutil.copytree(KV / "solutions/python/checkpoint_2", tmp_path / "mine")
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"kv": str(kv_copy)}, "solutions": [
        {"problem": "kv", "path": str(solution), "entry": "python3 kv.py", "name": "mine"}]})
    out = tmp_path / "out"
    assert scbench("batch", plan, "--out", out).returncode == 0
    first = {n: (out / f"kv/mine/checkpoint_{n}/results.json").read_bytes() for n in (1, 2)}

    again = scbench("batch", plan, "--out", out)
    assert "2 evaluation(s): 2 current in" in again.stderr and "0 to run" in again.stderr
    assert {n: (out / f"kv/mine/checkpoint_{n}/results.json").read_bytes() for n in (1, 2)} == first
    assert again.stdout.count("resumed") == 2

    replace_in(solution / "kv.py", "import json", "import json  # changed")
    changed = scbench("batch", plan, "--out", out)
    assert "2 current in" not in changed.stderr and "2 to run" in changed.stderr

    replace_in(kv_copy / "cases/checkpoint_2/core.yaml", "id: ", "id: renamed_")
    recompiled = scbench("batch", plan, "--out", out)
    assert "0 current in" in recompiled.stderr and "2 to run" in recompiled.stderr
    assert results_of(out, "kv/mine/checkpoint_2")["cases"][0]["id"].startswith("renamed_")

    rerun = scbench("batch", plan, "--out", out, "--rerun")
    assert "0 current in" in rerun.stderr and "2 to run" in rerun.stderr


def test_plan_errors_are_all_reported_with_their_line_and_a_fix(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"""\
problems:
  kv: {KV}
solutions:
  - problem: kvv
    path: {KV}/solutions/python/checkpoint_1
  - problem: kv
    path: {KV}/solutions/python/checkpoint_{{checkpoint}}
    track: cobol
  - problem: kv
    path: {KV}/solutions/python/checkpoint_{{checkpoint}}
    checkpoints: [2, 3]
  - problem: kv
    path: {tmp_path}/nowhere
    entry: "python 'kv.py"
  - problem: kv
    path: {KV}/solutions/node/checkpoint_1
    checkpoints: [2]
    name: late
  - problem: kv
    path: {KV}/solutions/python/checkpoint_2
    checkpoints: [2]
    name: late
  - problem: kv
    path: {tmp_path}/nowhere
runs: [{tmp_path}/no-runs-here/*]
""")
    done = scbench("batch", plan, "--out", tmp_path / "out")
    assert done.returncode == 2
    shown = str(plan)
    expected = [
        f"{shown}:4: solutions[0].problem: unknown problem 'kvv'\n    fix: did you mean 'kv'?",
        f"{shown}:8: solutions[1].track: unknown track 'cobol'\n"
        "    fix: use one of: python, python3.12, node, rust, java, go",
        f"{shown}:11: solutions[2].checkpoints[1]: kv has no checkpoint 3\n    fix: use checkpoints 1..2",
        f"{shown}:14: solutions[3].entry: cannot split the entry command into words: No closing quotation\n"
        f"    fix: balance its quotes",
        f"{shown}:19: solutions[5]: kv/late/checkpoint_2 is evaluated twice (first by solutions[4])\n"
        f"    fix: give one of them another name:",
        f"{shown}:24: solutions[6].path: {tmp_path}/nowhere is not a directory\n"
        f"    fix: fix the path, or list only the checkpoints it has under checkpoints",
        f"{shown}:25: runs[0]: no run directory matches '{tmp_path}/no-runs-here/*'\n"
        f"    fix: fix the path (relative to the plan file)",
    ]
    for message in expected:
        assert message in done.stderr
    assert done.stderr.count("fix:") == len(expected)
    assert not (tmp_path / "out").exists()


def test_a_schema_error_in_the_plan_names_the_key(tmp_path):
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"kv": str(KV)}, "solution": []})
    done = scbench("batch", plan)
    assert done.returncode == 2
    assert f"{plan}:1: unknown key 'solution'\n    fix: did you mean 'solutions'?" in done.stderr



def test_a_schema_error_in_the_plan_hides_none_of_its_other_errors(tmp_path):
    # before: the schema error alone was reported; the unknown track and the missing checkpoint
    # of the entries that are valid on their own came only after it was fixed
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"kv": str(KV)}, "sandbox": "bwrap", "solutions": [
        {"problem": "kv", "path": str(KV / "solutions/python/checkpoint_1"), "trak": "python"},
        {"problem": "kv", "path": str(KV / "solutions/python/checkpoint_1"), "track": "cobol"},
        {"problem": "kv", "path": str(KV / "solutions/python/checkpoint_1"), "checkpoints": [3]}]})
    done = scbench("batch", plan, "--out", tmp_path / "out")
    assert done.returncode == 2
    assert [line for line in done.stderr.splitlines() if not line.startswith("    fix:")] == [
        f"{plan}:5: solutions[0]: unknown key 'trak'",
        f"{plan}:10: solutions[1].track: unknown track 'cobol'",
        f"{plan}:14: solutions[2].checkpoints[0]: kv has no checkpoint 3",
        "3 error(s)"]

@pytest.fixture(scope="module")
def replay_run(tmp_path_factory) -> Path:
    """A run directory made by ``scbench run`` replaying kv's python references (strict at both checkpoints)."""
    run = tmp_path_factory.mktemp("runs") / "replay"
    done = scbench("run", KV, "--agent", "replay", "--snapshots", KV / "solutions/python", "--out", run)
    assert done.returncode == 0, done.stderr
    return run


def test_run_directories_are_graded_as_scbench_run_graded_them_completed_checkpoints_only(replay_run, tmp_path):
    shutil.copytree(replay_run, tmp_path / "runs/replay")
    crashed = shutil.copytree(replay_run, tmp_path / "runs/crashed")
    record = read_run(crashed)
    record.checkpoints[1].status = "failed"
    write_run(crashed, record)
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"kv": str(KV)}, "runs": ["runs/*"]})
    done = scbench("batch", plan, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert evaluations_in(tmp_path / "out") == ["kv/crashed/checkpoint_1", "kv/replay/checkpoint_1",
                                                "kv/replay/checkpoint_2"]
    for number in (1, 2):
        by_run = json.loads((replay_run / f"checkpoint_{number}/results.json").read_text())
        ours = results_of(tmp_path / "out", f"kv/replay/checkpoint_{number}")
        assert ours["solution"] == str(tmp_path / f"runs/replay/checkpoint_{number}/snapshot")
        assert {**comparable(ours), "solution": None} == {**comparable(by_run), "solution": None}
    assert results_of(tmp_path / "out", "kv/replay/checkpoint_2")["quality"]["delta"] is not None


def test_a_run_of_a_problem_the_plan_lacks_is_a_located_error(replay_run, tmp_path):
    run = shutil.copytree(replay_run, tmp_path / "runs/replay")
    replace_in(run / "run.json", '"problem": "kv"', '"problem": "todo"')
    line = next(n for n, text in enumerate((run / "run.json").read_text().splitlines(), 1) if '"problem"' in text)
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"kv": str(KV)}, "runs": ["runs/replay"]})
    done = scbench("batch", plan, "--out", tmp_path / "out")
    assert done.returncode == 2
    assert (f"{run}/run.json:{line}: problem: unknown problem 'todo'\n"
            f"    fix: add it with its path to the problems of {plan}") in done.stderr


def test_a_setup_failure_is_reported_and_the_rest_runs(tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "main.py").write_text("print('x')\n")
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"kv": str(KV)}, "solutions": [
        {"problem": "kv", "path": str(broken), "checkpoints": [1]},
        {"problem": "kv", "path": str(KV / "solutions/python/checkpoint_1"), "checkpoints": [1], "name": "ok"}]})
    done = scbench("batch", plan, "--out", tmp_path / "out")
    assert done.returncode == 1
    assert f"setup failed kv/broken/checkpoint_1: {broken} has no kv.py, so it is not a python solution" in done.stderr
    rows = json.loads((tmp_path / "out/summary.json").read_text())["rows"]
    assert [(row["solution"], row["status"]) for row in rows] == [("broken", "setup failed"), ("ok", "ran")]


GATED_ENTRY = "sh -c 'while [ ! -e {gate} ]; do sleep 0.05; done; exec python3 \"$0\" \"$@\"' kv.py"
"""kv's python reference, each step waiting for the file ``{gate}``: the second solution's evaluations
cannot finish before the test interrupts the batch (the local level: the gate is a host path)."""


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_an_interrupted_or_killed_batch_resumes_without_redoing_or_corrupting_anything(tmp_path, how):
    # before: the second solution ran a fifth of a second slower per step, and a loaded machine let the
    # batch finish everything before the signal arrived (exit 0)
    gate = tmp_path / "gate"
    entries = {"copy-0": "python3 kv.py", "copy-1": GATED_ENTRY.format(gate=gate)}
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"kv": str(KV)}, "sandbox": "local", "solutions": [
        {"problem": "kv", "path": str(KV / "solutions/python/checkpoint_2"), "entry": entry, "name": name}
        for name, entry in entries.items()]})
    out = tmp_path / "out"
    # Ctrl-C's default action in the batch even where the suite itself was started with SIGINT ignored
    # (a shell's background job): Python then installs no KeyboardInterrupt handler and the batch ran on
    batch = subprocess.Popen([sys.executable, "-m", "scbench", "batch", str(plan), "--out", str(out), "-j", "1"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while not evaluations_in(out):
        assert batch.poll() is None, batch.communicate()
        time.sleep(0.02)
    batch.send_signal(how)
    gate.touch()
    _, stderr = batch.communicate(timeout=60)
    assert batch.returncode == (130 if how == signal.SIGINT else -signal.SIGKILL)
    if how == signal.SIGINT:
        assert "of 4 evaluation(s) finished and written; run the same command again to finish the rest" in stderr
    finished = evaluations_in(out)
    assert 1 <= len(finished) < 4
    for path in out.glob("*/*/*/results.json"):
        json.loads(path.read_text())
    kept = {key: (out / key / "results.json").read_bytes() for key in finished}

    again = scbench("batch", plan, "--out", out, "-j", "1")
    assert again.returncode == 0, again.stderr
    assert f"4 evaluation(s): {len(finished)} current in" in again.stderr
    assert f"{4 - len(finished)} to run" in again.stderr
    assert {key: (out / key / "results.json").read_bytes() for key in finished} == kept
    assert len(evaluations_in(out)) == 4
    assert not list(out.glob("*/*/*/.*.tmp"))


def test_engine_options_are_checked_before_anything_runs(tmp_path):
    plan = kv_plan(tmp_path)
    unknown = scbench("batch", plan, "--engine", "dask")
    assert unknown.returncode == 2 and "unknown engine 'dask'; known: local, ray" in unknown.stderr
    stray = scbench("batch", plan, "--address", "127.0.0.1:6379")
    assert stray.returncode == 2 and "--address names a Ray cluster: add --engine ray" in stray.stderr
