"""Command-line conventions: --version, results on stdout and logs on stderr, --json, case selection."""

import json
import os
import re
import shutil
from datetime import datetime
from importlib.metadata import version

from conftest import FIXTURES, scbench
from scbench.problem.compiler import compile_problem


def test_version():
    done = scbench("--version")
    assert (done.returncode, done.stdout) == (0, f"scbench {version('scbench')}\n")


def test_eval_selects_cases_records_how_it_ran_and_keeps_results_on_stdout(kv, tmp_path):
    done = scbench("eval", kv, "-c", 2, "-s", kv / "solutions/python/checkpoint_2", "-k", "checkpoint_1/*",
                   "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert sorted(case["id"] for case in results["cases"]) == ["dump_sorted", "get_missing", "set_then_get"]
    assert (results["scbench"], results["select"], results["not_run"], results["track"]) == (
        version("scbench"), "checkpoint_1/*", 0, "python")
    assert datetime.fromisoformat(results["started"]).utcoffset().total_seconds() == 0
    assert "regression" in done.stdout and "only the cases matching 'checkpoint_1/*' ran: no solve rate" in done.stdout
    assert {key: results["summary"][key] for key in ("strict", "isolated", "core")} == {
        "strict": None, "isolated": None, "core": None}
    assert "wrote " in done.stderr and "wrote " not in done.stdout
    done = scbench("eval", kv, "-c", 2, "-s", kv / "solutions/python/checkpoint_2", "-k", "count", "--out", tmp_path)
    assert sorted(case["id"] for case in json.loads((tmp_path / "results.json").read_text())["cases"]) == [
        "count_data_placeholder", "count_doc"]
    done = scbench("eval", kv, "-c", 2, "-s", kv, "-k", "nope")
    assert (done.returncode, "no case of checkpoint 2's suite matches 'nope'" in done.stderr) == (2, True)


def test_max_failures_stops_starting_cases(kv, tmp_path):
    failing = tmp_path / "failing"
    failing.mkdir()
    (failing / "kv.py").write_text("import sys\nsys.exit(7)\n")
    done = scbench("eval", kv, "-c", 2, "-s", failing, "--max-failures", 2, "-j", 1, "--out", tmp_path)
    results = json.loads((tmp_path / "results.json").read_text())
    assert (done.returncode, len(results["cases"]), results["not_run"], results["summary"]["isolated"]) == (
        1, 2, 3, None)
    assert "stopped early (--max-failures): 3 case(s) not run, no solve rate" in done.stdout


def test_lint_and_check_print_json(kv):
    done = scbench("lint", kv, "--json")
    assert (done.returncode, json.loads(done.stdout)) == (0, [{
        "file": "cases/checkpoint_2", "line": 0, "rule": "no-error-cases", "severity": "warning",
        "text": "checkpoint_2", "why": "no case checks how the checkpoint's contract rejects bad input",
        "fix": "add cases with category: error"}])
    done = scbench("check", kv, "--json")
    report = json.loads(done.stdout)
    assert (done.returncode, report["ok"], report["problems"]) == (0, True, [])
    assert [(run["track"], run["checkpoint"], run["summary"]["strict"]) for run in report["runs"]] == [
        ("node", "checkpoint_1", True), ("python", "checkpoint_1", True), ("python", "checkpoint_2", True)]
    assert (report["cores"], report["floor_s"]) == (len(os.sched_getaffinity(0)),
                                                    report["solution_s"] / report["cores"])
    assert report["solution_s"] > 0 and report["elapsed_s"] > 0


def test_cache_info_and_clean(kv, tmp_path):
    env = {**os.environ, "SCBENCH_CACHE": str(tmp_path / "cache")}
    assert scbench("eval", kv, "-c", 1, "-s", kv / "solutions/python/checkpoint_1", "--out", tmp_path,
                   env=env).returncode == 0
    (tmp_path / "cache/notes").mkdir()
    (tmp_path / "cache/notes/keep.txt").write_text("not scbench's")
    lines = scbench("cache", "info", env=env).stdout.splitlines()
    assert lines[0] == f"cache: {tmp_path / 'cache'}"
    assert [line.split()[:2] for line in lines[1:8]] == [
        ["ast-grep", "1"], ["bundles", "1"], ["compiled", "1"], ["documents", "2"], ["solutions", "1"],
        ["toolchains", "0"], ["notes", "0"]]
    assert "(not scbench’s: clean leaves it alone)" in lines[7]
    done = scbench("cache", "clean", env=env)
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [
        "removed ast-grep", "removed bundles", "removed compiled", "removed documents", "removed solutions"]
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["notes"]
    assert scbench("cache", "clean", env=env).stdout == "nothing to remove\n"
    assert scbench("cache", "clean", "notes", env=env).returncode == 2


def test_new_scaffolds_a_problem_that_checks_green_and_never_overwrites(tmp_path):
    target = tmp_path / "problems/word_demo"
    done = scbench("new", target)
    assert done.returncode == 0, done.stderr
    assert f"{target}/solutions/python/checkpoint_1/word_demo.py" in done.stdout.splitlines()
    bundle = compile_problem(target)
    assert bundle.config.name == "word_demo"
    assert [(case.case.id, case.case.category) for case in bundle.checkpoint(1).cases] == [
        ("count_poem", "core"), ("words_sorted", "core"), ("words_of_poem", "core"),
        ("count_missing_file", "error"), ("add_then_list", "functionality"), ("list_any_order", "functionality"),
        ("list_without_words", "functionality")]
    check = scbench("check", target)
    assert (check.returncode, check.stdout.rstrip().endswith("consistent")) == (0, True), check.stdout
    assert scbench("lint", target).stdout == "0 error(s), 0 warning(s)\n"
    again = scbench("new", target)
    assert (again.returncode, "already exists; nothing written" in again.stderr) == (2, True)
    assert scbench("new", tmp_path / "Bad-Name").returncode == 2



def test_new_shows_an_http_case_and_its_server_that_compile_once_uncommented(tmp_path):
    target = tmp_path / "web_demo"
    assert scbench("new", target).returncode == 0
    config, cases = target / "config.yaml", target / "cases/checkpoint_1/functionality.yaml"
    config.write_text(config.read_text().replace("\n# server:", "\nserver:").replace("\n#   ", "\n  "))
    cases.write_text(cases.read_text().replace("\n  # - id", "\n  - id").replace("\n  #   ", "\n    "))
    done = scbench("compile", target, "--out", tmp_path / "build")
    assert (done.returncode, "warning" in done.stderr) == (0, False), done.stderr
    http = [case.case for case in compile_problem(target).checkpoint(1).cases if case.case.kind == "http"]
    assert [(case.id, len(case.steps)) for case in http] == [("create_then_read", 2)]

def test_results_record_the_entry_and_no_track_under_entry(kv, tmp_path):
    solution = kv / "solutions/python/checkpoint_1"
    done = scbench("eval", kv, "-c", 1, "-s", solution, "--entry", "python3 kv.py", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert (results["track"], results["entry"]) == (None, ["python3", str(solution / "kv.py")])


def test_max_failures_with_a_solution_that_hangs_and_two_jobs(kv_copy, tmp_path):
    config = kv_copy / "config.yaml"
    config.write_text(config.read_text().replace("timeout: 10", "timeout: 1"))
    hangs = tmp_path / "hangs"
    hangs.mkdir()
    (hangs / "kv.py").write_text("import time\ntime.sleep(600)\n")
    done = scbench("eval", kv_copy, "-c", 2, "-s", hangs, "--max-failures", 1, "-j", 2, "--out", tmp_path / "out")
    results = json.loads((tmp_path / "out/results.json").read_text())
    assert (done.returncode, len(results["cases"]), results["not_run"]) == (1, 1, 4)
    assert [case["steps"][0]["failures"][0]["message"] for case in results["cases"]] == ["did not finish within 1s"]
    assert "stopped early (--max-failures): 4 case(s) not run, no solve rate" in done.stdout


def test_max_failures_keeps_the_same_cases_at_any_parallelism(kv, tmp_path):
    solution = tmp_path / "slow_passes_fast_fails"
    shutil.copytree(kv / "solutions/python/checkpoint_2", solution)
    kv_py = solution / "kv.py"
    kv_py.write_text("import sys, time\nif sys.argv[1:] == ['count', 'doc.txt']:\n    time.sleep(1)\n"
                     "elif sys.argv[1:2] == ['count']:\n    sys.exit(9)\n" + kv_py.read_text())
    kept = set()
    for jobs in (1, 3, 5):
        done = scbench("eval", kv, "-c", 2, "-s", solution, "--max-failures", 1, "-j", jobs, "--out", tmp_path / "out")
        results = json.loads((tmp_path / "out/results.json").read_text())
        kept.add((done.returncode, tuple((case["id"], case["passed"]) for case in results["cases"]),
                  results["not_run"], results["summary"]["strict"]))
    assert kept == {(1, (("count_doc", True), ("count_data_placeholder", False)), 3, None)}


def test_results_go_to_stdout_and_progress_to_stderr(kv, tmp_path):
    env = {**os.environ, "SCBENCH_CACHE": str(tmp_path / "cache")}
    for args, first in [(("sandbox", "list"), "bwrap: available"), (("cache", "info"), f"cache: {tmp_path / 'cache'}"),
                        (("prompt", kv, "-c", 1), "Write a program that fully satisfies the specification below. "
                                                  "Nothing else is asked of you.")]:
        done = scbench(*args, env=env)
        assert (done.returncode, done.stdout.splitlines()[0], done.stderr) == (0, first, ""), args
    calc = FIXTURES / "calc"
    agent = "{python} tests/fixtures/agents/scripted.py {snapshots} {checkpoint}"
    done = scbench("run", calc, "--agent-command", agent, "--snapshots", calc / "solutions/python",
                   "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"checkpoint_{n}\tdone\tstrict=yes isolated=yes core=yes" for n in (1, 2, 3)]
    assert done.stderr.splitlines() == [
        *(line for n in (1, 2, 3) for line in (f"checkpoint_{n}: agent command running",
                                               f"checkpoint_{n}: strict True, isolated True, core True")),
        f"wrote {tmp_path / 'run'}"]


def test_a_misspelt_track_gets_the_closest_one(tmp_path):
    done = scbench("eval", FIXTURES / "kv", "-c", 1, "-s", tmp_path, "-t", "pyhton")
    assert (done.returncode, "unknown track 'pyhton'; did you mean 'python'?" in done.stderr) == (2, True)


def test_progress_is_shown_as_lines_when_stderr_is_not_a_terminal(kv, tmp_path):
    # before: the progress bar was disabled off a terminal, so a log showed nothing until the end
    done = scbench("eval", kv, "-c", 1, "-s", kv / "solutions/python/checkpoint_1", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"python checkpoint_1: 3/3 cases \(\d+s\)", done.stderr.splitlines()[-2])
