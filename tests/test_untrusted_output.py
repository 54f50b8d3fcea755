"""What a solution prints reaches every writer escaped: control characters (ESC, NUL, BEL, ...) and
undecodable bytes in a failing case's output never break ``results.json``, ``junit.xml`` or the
terminal, in ``scbench eval`` and ``scbench batch``."""

import json
import shutil
from xml.dom import minidom

import pytest

from conftest import FIXTURES, ROOT, scbench, write_plan
from scbench.results import Failure

GREET = FIXTURES / "greet"

NOISY = """\
import sys
sys.stdout.buffer.write(b"\\x1b[31m\\x00\\x07 red\\n\\xff\\n")
sys.stderr.write("\\x1b[0m\\x01 [/red] done\\n")
"""
"""A greet solution that fails every case, printing control characters, an undecodable byte and rich markup."""

STDOUT_SHOWN = "--- step 1 stdout ---\n\\u001b[31m\\0\\u0007 red\n\ufffd\n"
STDERR_SHOWN = "--- step 1 stderr ---\n\\u001b[0m\\u0001 [/red] done\n"


@pytest.fixture
def noisy(tmp_path):
    solution = tmp_path / "noisy"
    solution.mkdir()
    (solution / "greet.py").write_text(NOISY)
    return solution


def assert_written_escaped(directory):
    """``results.json`` keeps the output as printed, ``junit.xml`` is well-formed with it escaped."""
    results = json.loads((directory / "results.json").read_text())
    steps = [case["steps"][0] for case in results["cases"]]
    assert [(step["stdout"], step["stderr"]) for step in steps] == [
        ("\x1b[31m\x00\x07 red\n\ufffd\n", "\x1b[0m\x01 [/red] done\n")] * 3
    junit = minidom.parse(str(directory / "junit.xml"))
    shown = [(case.getElementsByTagName("system-out")[0].firstChild.data,
              case.getElementsByTagName("system-err")[0].firstChild.data)
             for case in junit.getElementsByTagName("testcase")]
    assert shown == [(STDOUT_SHOWN, STDERR_SHOWN)] * 3


def test_eval_writes_a_solutions_control_characters_escaped(noisy, tmp_path):
    done = scbench("eval", GREET, "-c", 1, "-s", noisy, "--out", tmp_path / "out")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert_written_escaped(tmp_path / "out")
    assert "\x1b" not in done.stdout and "\\u001b[0m\\u0001 [/red] done" in done.stdout


def test_batch_writes_a_solutions_control_characters_escaped(noisy, tmp_path):
    plan = write_plan(tmp_path / "plan.yaml", {"problems": {"greet": str(GREET)},
                                               "solutions": [{"problem": "greet", "path": str(noisy)}]})
    done = scbench("batch", plan, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert_written_escaped(tmp_path / "out/greet/noisy/checkpoint_1")


def test_run_grades_a_solutions_control_characters_and_finishes(noisy, tmp_path):
    snapshots = tmp_path / "snapshots"
    shutil.copytree(noisy, snapshots / "checkpoint_1")
    command = "{python} tests/fixtures/agents/scripted.py {snapshots} {checkpoint}"
    done = scbench("run", GREET, "--agent-command", command, "--snapshots", snapshots, "--out", tmp_path / "run",
                   cwd=ROOT)
    assert (done.returncode, "Traceback" in done.stderr) == (0, False), done.stderr
    assert json.loads((tmp_path / "run/run.json").read_text())["checkpoints"][0]["status"] == "done"
    assert_written_escaped(tmp_path / "run/checkpoint_1")


def test_a_setup_log_is_printed_as_text_not_markup(tmp_path):
    solution = tmp_path / "marked"
    solution.mkdir()
    (solution / "greet.py").write_text("print('hello')\n")
    (solution / "requirements.txt").write_text("--no-index\n[/red]\x1b[31m-nothing-here\n")
    done = scbench("eval", GREET, "-c", 1, "-s", solution, "--out", tmp_path / "out")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "\x1b" not in done.stderr
    assert f"setup failed for {solution}:" in done.stderr and "[/red]\\u001b[31m-nothing-here" in done.stderr


def test_a_lone_surrogate_is_kept_as_text_a_json_writer_accepts():
    failure = Failure(target="file \udcff.txt", message="missing")
    assert json.loads(failure.model_dump_json()) == {"target": "file \\udcff.txt", "message": "missing", "diff": ""}


def test_a_file_nested_too_deeply_to_measure_is_skipped_and_named_and_eval_writes_results(tmp_path):
    solution = tmp_path / "deep"
    solution.mkdir()
    (solution / "greet.py").write_text("import sys\nprint('hello, ' + sys.argv[1])\n")
    (solution / "sum.py").write_text("x = " + "1 + " * 5000 + "1\n")
    (solution / "negated.py").write_text("x = " + "-" * 100_000 + "1\n")
    done = scbench("eval", GREET, "-c", 1, "-s", solution, "--out", tmp_path / "out")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    results = json.loads((tmp_path / "out/results.json").read_text())
    assert (results["quality"]["files"], results["quality"]["skipped"]) == (1, [
        {"path": "negated.py", "reason": "SyntaxError: nested too deeply to parse (line 1)"},
        {"path": "sum.py", "reason": "nested too deeply to measure (RecursionError)"}])
    (solution / "greet.py").unlink()
    done = scbench("metrics", solution)
    assert (done.returncode, done.stderr) == (1, f"no source file of a measured language under {solution}: nothing "
                                                 "to measure\n  skipped negated.py: SyntaxError: nested too deeply to "
                                                 "parse (line 1)\n  skipped sum.py: nested too deeply to measure "
                                                 "(RecursionError)\n")
