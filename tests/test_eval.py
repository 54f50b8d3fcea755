"""``scbench eval`` and ``scbench check`` end to end, with real solutions in Python and Node."""

import json
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from xml.etree import ElementTree

import pytest

from conftest import FIXTURES, REQUIRED_LEVELS, ROOT, replace_in, sandbox_levels, scbench
from scbench.check.mutants import mutation_score
from scbench.evaluate.junit import write_junit
from scbench.evaluate.session import Evaluation, Target, default_jobs, evaluate
from scbench.problem.compiler import compile_problem
from scbench.problem.diagnostics import ProblemError
from scbench.run.tracks import prepare

CODE_SEARCH = ROOT / "problems" / "code_search"

OFF_BY_ONE = """\
import json, os, subprocess, sys
reference = os.path.join(os.path.dirname(__file__), "reference.py")
out = subprocess.run([sys.executable, reference, *sys.argv[1:]], capture_output=True, text=True)
for line in out.stdout.splitlines():
    match = json.loads(line)
    match["start"]["col"] += 1
    print(json.dumps(match))
sys.exit(out.returncode)
"""


def test_python_reference_passes_both_checkpoints_with_regressions(kv, tmp_path):
    done = scbench("eval", kv, "-c", 2, "-s", kv / "solutions/python/checkpoint_2", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "results.json").read_text())["summary"]
    assert summary == {"counts": {"core": {"passed": 1, "total": 1}, "functionality": {"passed": 1, "total": 1},
                                  "error": {"passed": 0, "total": 0}, "regression": {"passed": 3, "total": 3}},
                       "strict": True, "isolated": True, "core": True}
    junit = (tmp_path / "junit.xml").read_text()
    assert junit.count("<testcase ") == 5


def test_checkpoint_1_solution_fails_checkpoint_2_but_not_its_regressions(kv, tmp_path):
    results = evaluate(compile_problem(kv), 2, Target(kv / "solutions/python/checkpoint_1", "python"))
    assert (results.summary.strict, results.summary.isolated, results.summary.core) == (False, False, False)
    assert results.summary.counts["regression"].passed == 3


def test_code_search_checkpoint_2_with_the_node_reference(tmp_path):
    done = scbench("eval", CODE_SEARCH, "--checkpoint", 2, "--track", "node",
                   "--solution", CODE_SEARCH / "solutions/node/checkpoint_2", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    counts = json.loads((tmp_path / "results.json").read_text())["summary"]["counts"]
    assert all(tally["passed"] == tally["total"] for tally in counts.values())
    assert counts["regression"]["total"] > 0


def test_column_off_by_one_fails_with_a_diff_naming_the_field(tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    shutil.copy(CODE_SEARCH / "solutions/python/checkpoint_1/code_search.py", broken / "reference.py")
    (broken / "code_search.py").write_text(OFF_BY_ONE)
    results = evaluate(compile_problem(CODE_SEARCH), 1, Target(broken, "python"))
    assert not results.summary.core
    lines = [line for case in results.cases for f in case.failures for line in [f.message, *f.diff.splitlines()]]
    found = [re.search(r"\$\[\d+\]\.start\.col: expected (\d+), actual (\d+)$", line) for line in lines]
    columns = [(int(m.group(1)), int(m.group(2))) for m in found if m]
    assert columns and all(actual - expected == 1 for expected, actual in columns)


def test_entry_command_paths_are_relative_to_the_solution(kv, tmp_path):
    solution = kv / "solutions/python/checkpoint_1"
    done = scbench("eval", kv, "-c", 1, "-s", solution, "--entry", "python3 kv.py", "--out", tmp_path)
    assert done.returncode == 0, done.stderr


def test_results_do_not_depend_on_order_or_parallelism(tmp_path):
    bundle = compile_problem(CODE_SEARCH)
    target = Target(CODE_SEARCH / "solutions/python/checkpoint_2", "python")
    serial, parallel = (evaluate(bundle, 2, target, jobs=jobs) for jobs in (1, 4))
    verdicts = [[(c.id, c.category, c.passed, c.steps[0].failures) for c in run.cases] for run in (serial, parallel)]
    assert verdicts[0] == verdicts[1]


def test_setup_is_cached_per_solution_content(tmp_path):
    solution = tmp_path / "solution"
    shutil.copytree(FIXTURES / "kv/solutions/python/checkpoint_1", solution)
    first, again = (prepare(solution, "python", "kv") for _ in range(2))
    (solution / "kv.py").write_text((solution / "kv.py").read_text() + "\n# changed\n")
    changed = prepare(solution, "python", "kv")
    assert first.directory == again.directory != changed.directory
    assert first.entry == [str(first.directory / ".venv/bin/python"), str(first.directory / "kv.py")]


def test_a_solution_link_is_copied_as_a_link_and_its_target_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the host's secret\n")
    solution = tmp_path / "solution"
    shutil.copytree(FIXTURES / "kv/solutions/python/checkpoint_1", solution)
    (solution / "leak").symlink_to(secret)
    first = prepare(solution, "python", "kv")
    secret.write_text("another secret\n")
    assert (os.readlink(first.directory / "leak"), prepare(solution, "python", "kv")) == (str(secret), first)
    (solution / "leak").unlink()
    (solution / "leak").symlink_to(tmp_path)
    assert prepare(solution, "python", "kv").directory != first.directory


def test_unknown_track_and_checkpoint_are_usage_errors(kv):
    done = scbench("eval", kv, "-c", 1, "-s", kv, "--track", "cobol")
    assert done.returncode == 2
    assert "unknown track 'cobol'" in done.stderr
    done = scbench("eval", kv, "-c", 7, "-s", kv)
    assert (done.returncode, "this problem has checkpoints 1..2" in done.stderr) == (2, True)


def test_check_is_green_on_fixtures_and_red_on_a_wrong_expectation(kv, tmp_path):
    assert scbench("check", kv).returncode == 0
    broken = tmp_path / "kv"
    shutil.copytree(kv, broken)
    core = broken / "cases/checkpoint_1/core.yaml"
    core.write_text(core.read_text().replace('stdout: "blue\\n"', 'stdout: "green\\n"'))
    done = scbench("check", broken)
    assert done.returncode == 1
    assert "set_then_get [core] (cases/checkpoint_1/core.yaml:3) get: stdout: text differs" in done.stdout
    assert "set_then_get [regression]" in done.stdout


def test_check_fails_on_a_spec_leak_and_reports_mutation_scores(kv, tmp_path):
    leaky = tmp_path / "kv"
    shutil.copytree(kv, leaky)
    spec = leaky / "checkpoint_1.md"
    spec.write_text(spec.read_text() + "\nKeep the pairs in a global dict named STORE.\n")
    done = scbench("check", leaky, "--repeat", "2", "--mutants")
    assert done.returncode == 1
    assert "checkpoint_1.md:8: error[data-structure-hint]: Keep the pairs in a global dict" in done.stdout
    assert "mutation score (python references)" in done.stdout
    assert "flaky" not in done.stdout


def test_mutation_score_runs_the_reference_under_the_checkpoints_limits(kv_copy):
    replace_in(kv_copy / "config.yaml", "  checkpoint_1: {order: 1}",
               "  checkpoint_1: {order: 1, limits: {memory_mb: 3000}}")
    solution = kv_copy / "solutions/python/checkpoint_1/kv.py"
    solution.write_text("import resource\nassert resource.getrlimit(resource.RLIMIT_DATA)[0] == 3000 * 2**20\n"
                        + solution.read_text())
    score = mutation_score(compile_problem(kv_copy), 1, solution.parent)
    assert (score.killed, score.total) == (9, 12)


SHIPPED = sorted(path.name for path in (ROOT / "problems").iterdir())
WORKERS = default_jobs()


def full_check_level() -> str:
    """The level every shipped reference runs every case in: ``docker`` where it runs (or must: CI), the
    strictest environment (another system's programs and libraries, another uid, a read-only root); else the
    first level that runs, in the default's order."""
    from scbench.sandbox.registry import registry
    levels = registry()
    return next(name for name in ("docker", *levels) if name in REQUIRED_LEVELS or not levels[name].unavailable())


FULL_LEVEL = full_check_level()
SHIPPED_CACHE = os.environ.get("SCBENCH_SHIPPED_CACHE", os.environ["SCBENCH_CACHE"])
"""The cache of the shipped problems' checks: CI's outlives its runs (.ci/run), so a reference whose content, track
and image are unchanged is not set up again (a set-up in docker costs 1-2.5 s, npm's more); else the session's."""


@pytest.mark.parametrize("problem", SHIPPED)
def test_shipped_problems_are_consistent(problem):
    done = scbench("check", ROOT / "problems" / problem, "--regressions", "last", "--sandbox", FULL_LEVEL,
                   env={**os.environ, "SCBENCH_CACHE": SHIPPED_CACHE})
    assert done.returncode == 0, done.stdout[-3000:]
    assert done.stdout.rstrip().endswith("consistent") and "reference solutions" not in done.stderr


def first_case_of_each_file(bundle, number: int) -> list:
    """The first ``(case, category)`` of each case file in checkpoint ``number``'s suite (regressions included)."""
    return list({case.source: (case, category) for case, category in reversed(bundle.suite(number))}.values())


@pytest.mark.parametrize("level", [level for level in sandbox_levels() if level.values[0] not in (FULL_LEVEL, "local")])
@pytest.mark.parametrize("problem", SHIPPED)
def test_shipped_python_references_pass_a_case_of_every_case_file_in_the_other_levels(problem, level):
    # What differs between levels is the environment (the programs and libraries, the uid, the read-only root,
    # the data directory's permissions), not the cases' values: one case of each file the problem's cases are
    # written in, at the last checkpoint with its regressions, runs each shape of run there. Every case passes in
    # FULL_LEVEL (test_shipped_problems_are_consistent); here they must pass too.
    references = ROOT / "problems" / problem / "solutions/python"
    last = max(int(path.name.removeprefix("checkpoint_")) for path in references.iterdir())
    bundle = compile_problem(ROOT / "problems" / problem)
    target = Target(references / f"checkpoint_{last}", "python", sandbox=level)
    with Evaluation(bundle, last, target, WORKERS) as evaluation, ThreadPoolExecutor(WORKERS) as pool:
        ran = list(pool.map(evaluation.run, first_case_of_each_file(bundle, last)))
    assert [(f"{case.checkpoint}/{case.id}", case.failures) for case in ran if not case.passed] == []


BYTES = ('{"key": key, "value": value}', '{"key": key, "value": value, "bytes": len(value)}')
"""An edit of the kv reference that adds a field to its dump."""


def test_regression_ignore_drops_fields_a_later_checkpoint_adds(kv_copy):
    solution = kv_copy / "solutions/python/checkpoint_2/kv.py"
    replace_in(solution, *BYTES)
    failing = evaluate(compile_problem(kv_copy), 2, Target(solution.parent, "python"))
    assert [(c.id, c.category) for c in failing.cases if not c.passed] == [("dump_sorted", "regression")]
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               'checkpoint_2: {order: 2, regression_ignore: ["$[*].bytes"]}')
    assert evaluate(compile_problem(kv_copy), 2, Target(solution.parent, "python")).summary.strict


def add_checkpoint_3(kv_copy):
    """A third checkpoint of the kv copy (its spec, one core case), without a reference or config entry."""
    shutil.copy(kv_copy / "checkpoint_2.md", kv_copy / "checkpoint_3.md")
    (kv_copy / "cases/checkpoint_3").mkdir()
    (kv_copy / "cases/checkpoint_3/core.yaml").write_text(
        "cases:\n  - {id: count_again, args: [count, '{data}/docs/a.txt'], "
        "expect: {stdout: {format: json, subset: true, value: {words: 5}}}}\n")


def test_regression_ignore_holds_at_every_later_checkpoint(kv_copy):
    # before: only the running checkpoint's paths were ignored, so a field checkpoint 2 adds
    # failed checkpoint 1's cases again at checkpoint 3
    add_checkpoint_3(kv_copy)
    solution = kv_copy / "solutions/python/checkpoint_3/kv.py"
    solution.parent.mkdir(parents=True)
    shutil.copy(kv_copy / "solutions/python/checkpoint_2/kv.py", solution)
    replace_in(solution, *BYTES)
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               'checkpoint_2: {order: 2, regression_ignore: ["$[*].bytes"]}\n  checkpoint_3: {order: 3}')
    results = evaluate(compile_problem(kv_copy), 3, Target(solution.parent, "python"))
    assert [(c.id, c.passed) for c in results.cases if c.category == "regression"] == [
        ("set_then_get", True), ("dump_sorted", True), ("get_missing", True), ("count_doc", True),
        ("count_data_placeholder", True)]


COUNT_JS = """
commands.count = (path) => {
  const text = fs.readFileSync(path, "utf8");
  const lines = text.split("\\n").length - (text.endsWith("\\n") ? 1 : 0);
  const words = text.split(/\\s+/).filter(Boolean).length;
  process.stdout.write(JSON.stringify({ lines, words, ratio: Math.round((words / lines) * 1000) / 1000 }) + "\\n");
};
"""
"""kv's checkpoint 2 command for the node reference, added before its last line (the dispatch)."""


def test_check_with_regressions_last_runs_them_at_the_last_checkpoints_reference_only(kv_copy):
    add_checkpoint_3(kv_copy)
    shutil.copytree(kv_copy / "solutions/python/checkpoint_2", kv_copy / "solutions/python/checkpoint_3")
    program = (kv_copy / "solutions/node/checkpoint_1/kv.js").read_text().splitlines(keepends=True)
    for number in (2, 3):
        (kv_copy / f"solutions/node/checkpoint_{number}").mkdir()
        (kv_copy / f"solutions/node/checkpoint_{number}/kv.js").write_text("".join(program[:-1]) + COUNT_JS
                                                                            + program[-1])
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               "checkpoint_2: {order: 2}\n  checkpoint_3: {order: 3}")
    runs = {regressions: [(run["track"], run["checkpoint"], run["summary"]["counts"]["regression"]["total"])
                          for run in json.loads(scbench("check", kv_copy, "--json", "--regressions",
                                                        regressions).stdout)["runs"]]
            for regressions in ("every", "last")}
    # every case still runs as a regression once: on node's reference at the last checkpoint (node < python)
    assert runs == {"every": [("node", "checkpoint_1", 0), ("node", "checkpoint_2", 3), ("node", "checkpoint_3", 5),
                              ("python", "checkpoint_1", 0), ("python", "checkpoint_2", 3),
                              ("python", "checkpoint_3", 5)],
                    "last": [("node", "checkpoint_1", 0), ("node", "checkpoint_2", 0), ("node", "checkpoint_3", 5),
                             ("python", "checkpoint_1", 0), ("python", "checkpoint_2", 0),
                             ("python", "checkpoint_3", 0)]}


def test_regression_retire_stops_an_earlier_case_from_that_checkpoint_on(kv_copy):
    # a checkpoint whose spec changes what an earlier case checks retires that case from its regressions
    solution = kv_copy / "solutions/python/checkpoint_2/kv.py"
    replace_in(solution, *BYTES)
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               "checkpoint_2: {order: 2, regression_retire: [checkpoint_1/dump_sorted]}")
    bundle = compile_problem(kv_copy)
    results = evaluate(bundle, 2, Target(solution.parent, "python"))
    assert [(c.id, c.category, c.passed) for c in results.cases] == [
        ("count_doc", "core", True), ("count_data_placeholder", "functionality", True),
        ("set_then_get", "regression", True), ("get_missing", "regression", True)]
    assert results.summary.strict
    assert [case.case.id for case, _ in bundle.suite(1)] == ["set_then_get", "dump_sorted", "get_missing"]


def test_regression_retire_names_a_case_of_an_earlier_checkpoint(kv_copy):
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               "checkpoint_2: {order: 2, regression_retire: [checkpoint_1/no_such_case, checkpoint_2/count_doc]}")
    with pytest.raises(ProblemError) as caught:
        compile_problem(kv_copy)
    assert [d.render() for d in caught.value.diagnostics] == [
        "kv/config.yaml:8: checkpoints.checkpoint_2.regression_retire[0]: checkpoint_1/no_such_case is not a case "
        "of a checkpoint before checkpoint_2\n    fix: name a case of an earlier checkpoint as checkpoint_N/case_id",
        "kv/config.yaml:8: checkpoints.checkpoint_2.regression_retire[1]: checkpoint_2/count_doc is not a case "
        "of a checkpoint before checkpoint_2\n    fix: name a case of an earlier checkpoint as checkpoint_N/case_id"]


def test_the_same_cases_run_against_python_node_rust_and_java():
    done = scbench("check", FIXTURES / "greet")
    assert done.returncode == 0, done.stderr
    rows = [line.split("│")[1:4] for line in done.stdout.splitlines() if "checkpoint_1" in line]
    assert [[cell.strip() for cell in row] for row in rows] == [
        [track, "checkpoint_1", "1/1"] for track in ("java", "node", "python", "rust")]


SELF_MODIFYING = """\
import sys
from pathlib import Path

counter = Path(__file__).with_name("counter.txt")
seen = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(seen + 1))
print("runs before this one:", seen)
"""


def test_a_solution_writing_next_to_its_files_changes_neither_its_cache_nor_later_cases(kv, tmp_path):
    solution = tmp_path / "solution"
    solution.mkdir()
    (solution / "kv.py").write_text(SELF_MODIFYING)
    bundle = compile_problem(kv)
    for target in (Target(solution, "python"), Target(solution, entry="python3 kv.py")):
        results = evaluate(bundle, 1, target)
        diffs = "\n".join(f.diff for case in results.cases for f in case.failures if f.target == "stdout")
        # each case starts from a fresh copy; only the second step of set_then_get sees the first's write
        assert sorted(line.lstrip("+ ") for line in diffs.splitlines() if line.startswith("+runs")) == [
            "runs before this one: 0", "runs before this one: 0", "runs before this one: 1"]
    assert sorted(p.name for p in solution.iterdir()) == ["kv.py"]


def test_a_solution_of_another_language_is_one_clear_error(kv, tmp_path):
    done = scbench("eval", kv, "-c", 1, "-s", kv / "solutions/node/checkpoint_1")
    assert done.returncode == 1
    assert "has no kv.py, so it is not a python solution of this problem" in done.stderr


def test_bad_entry_commands_and_jobs_are_usage_errors(kv):
    for args, message in ((["-e", 'node "unterminated'], "cannot split"), (["-e", ""], "the entry command is empty"),
                          (["-j", "-3"], "greater than or equal to 1"),
                          # before: -t was silently ignored under -e
                          (["-t", "node", "-e", "python3 kv.py"], "give --track or --entry, not both")):
        done = scbench("eval", kv, "-c", 1, "-s", kv, *args)
        assert (done.returncode, message in done.stderr, "Traceback" in done.stderr) == (2, True, False), done.stderr


def test_junit_has_one_failure_per_case_with_step_names_outputs_and_checkpoint_names(kv, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(kv / "solutions/python/checkpoint_2", broken)
    source = broken / "kv.py"
    source.write_text(source.read_text().replace(
        "    print(store[key])", "    print(store[key].upper())\n    print('warn', file=sys.stderr)\n    sys.exit(3)"))
    write_junit(evaluate(compile_problem(kv), 2, Target(broken, "python")), tmp_path / "junit.xml")
    case = ElementTree.parse(tmp_path / "junit.xml").find(".//testcase[@name='checkpoint_1/set_then_get']")
    [failure] = case.findall("failure")
    assert failure.get("message") == "get: exit_code: expected 0, actual 3 (and 1 more)"
    assert failure.text.splitlines()[:2] == ["get: exit_code: expected 0, actual 3", "    stderr (last lines):"]
    assert "get: stdout: text differs at line 1, column 1 (1 line differs)" in failure.text
    assert (case.find("system-out").text, case.find("system-err").text) == (
        "--- get stdout ---\nBLUE\n", "--- get stderr ---\nwarn\n")


@pytest.mark.parametrize("level", sandbox_levels())
def test_an_entry_program_the_sandbox_does_not_have_is_one_clear_error(level, tmp_path):
    # before: a program on the host's PATH but in the home (a pyenv shim), which bwrap and docker hide,
    # failed every case with the sandbox's own "prlimit: failed to execute ...: No such file or directory"
    shims = tmp_path / "home/.pyenv/shims"
    shims.mkdir(parents=True)
    (shims / "kvpython").write_text('#!/bin/sh\nexec python3 "$@"\n')
    (shims / "kvpython").chmod(0o755)
    kv = FIXTURES / "kv"
    done = scbench("eval", kv, "-c", 1, "-s", kv / "solutions/python/checkpoint_1", "--entry", "kvpython kv.py",
                   "--sandbox", level, "--out", tmp_path / "out",
                   env={**os.environ, "PATH": f"{shims}:/usr/local/bin:/usr/bin:/bin"})
    if level == "local":
        assert done.returncode == 0, done.stderr
        return
    assert (done.returncode, (tmp_path / "out").exists()) == (1, False)
    assert done.stderr.splitlines()[-1].endswith(
        f": the entry's program 'kvpython' does not exist inside the {level} sandbox (not on its PATH, or in a "
        "directory it does not show, such as the home); fix: name a program of the system (under /usr; `scbench "
        "sandbox list` says what each level shows), or one inside the solution by its path; or use a track "
        "(-t TRACK) to set the solution up")
