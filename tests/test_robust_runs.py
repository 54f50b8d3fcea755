"""What goes wrong around a run never ends it: an unexpected exception fails its case alone (eval, check,
batch), a step's inputs are written whatever an earlier step left in their way."""

import json
import os
from pathlib import Path

import pytest

from conftest import KV, ROOT, kv_plan, scbench

COUNT_DOC = "count_doc"
"""kv's case of checkpoint 2 whose input is copied from the problem's data (docs/a.txt)."""
FAILING = [COUNT_DOC, "count_data_placeholder"]
"""The cases of kv's checkpoint 2 that fail without docs/a.txt: the copy in scbench, the other in the solution."""


def _internal_error(case: dict) -> tuple[str, str, str]:
    failure = case["steps"][0]["failures"][0]
    return case["steps"][0]["name"], failure["target"], failure["message"].split(":")[0]


def test_an_unexpected_exception_fails_its_case_alone_in_eval_check_and_batch(tmp_path):
    env = {**os.environ, "SCBENCH_CACHE": str(tmp_path / "cache")}
    solution = KV / "solutions/python/checkpoint_2"
    assert scbench("eval", KV, "-c", 2, "-s", solution, "--out", tmp_path / "first", env=env).returncode == 0
    for copied in (tmp_path / "cache/bundles").glob("*/data/docs/a.txt"):
        copied.unlink()  # a broken cache: the case copying it meets a FileNotFoundError inside scbench

    done = scbench("eval", KV, "-c", 2, "-s", solution, "--out", tmp_path / "eval", env=env)
    assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
    results = json.loads((tmp_path / "eval/results.json").read_text())
    assert [case["id"] for case in results["cases"] if not case["passed"]] == FAILING
    broken = next(case for case in results["cases"] if case["id"] == COUNT_DOC)
    assert _internal_error(broken) == ("scbench", "internal error", "FileNotFoundError")
    assert broken["steps"][0]["failures"][0]["diff"].startswith("Traceback (most recent call last):")
    assert "shutil.py" in broken["steps"][0]["failures"][0]["diff"]

    done = scbench("batch", kv_plan(tmp_path), "--out", tmp_path / "batch", env=env)
    assert (done.returncode, "Traceback" in done.stderr) == (0, False), done.stderr
    batched = json.loads((tmp_path / "batch/kv/python/checkpoint_2/results.json").read_text())
    assert [case["id"] for case in batched["cases"] if not case["passed"]] == FAILING

    done = scbench("check", KV, "--json", env=env)
    report = json.loads(done.stdout)
    assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
    assert [problem.split(": FileNotFoundError")[0] for problem in report["problems"]][:1] == [
        f"python checkpoint_2: {COUNT_DOC} [core] (cases/checkpoint_2/core.yaml:2) scbench: internal error"]


def _case(bundle: dict, checkpoint: int, position: int) -> dict:
    return bundle["checkpoints"][checkpoint]["cases"][position]["case"]


EDITS = {
    "copy": lambda bundle: _case(bundle, 1, 0)["files"]["doc.txt"].update(copy="../../../../../../../etc/hostname"),
    "regex": lambda bundle: _case(bundle, 0, 2)["steps"][0]["expect"]["stderr"].update(value="error: (", regex=True),
    "jsonpath": lambda bundle: bundle["checkpoints"][1]["config"].update(regression_ignore=["$.["]),
}
"""Edits of kv's bundle that a compiler would refuse."""


@pytest.mark.parametrize(("edit", "expected"), [
    ("copy", "checkpoints[1].cases[0].case.files.doc.txt.copy: copy source '../../../../../../../etc/hostname' "
             "leaves data/\n    fix: name a path under data/ without '..' (in the problem, then compile it again)"),
    ("regex", "checkpoints[0].cases[2].case.steps[0].expect.stderr.value: invalid regular expression: "
              "missing ), unterminated subpattern at position 7\n"
              "    fix: escape special characters with a backslash (in the problem, then compile it again)"),
    ("jsonpath", "checkpoints[1].config.regression_ignore[0]: invalid JSONPath '$.['"),
])
def test_a_bundle_is_checked_as_its_problem_directory_is(tmp_path, edit, expected):
    compiled = Path(scbench("compile", KV, "--out", tmp_path).stdout.strip())
    bundle = json.loads(compiled.read_text())
    EDITS[edit](bundle)
    edited = tmp_path / "edited.scb.json"
    edited.write_text(json.dumps(bundle))
    done = scbench("eval", edited, "-c", 2, "-s", KV / "solutions/python/checkpoint_2", "--out", tmp_path / "out")
    assert (done.returncode, "Traceback" in done.stderr, (tmp_path / "out").exists()) == (2, False, False)
    assert done.stderr.startswith(f"{os.path.relpath(edited, ROOT)}: {expected}"), done.stderr


def test_with_no_sandbox_level_eval_is_a_usage_error_saying_why_for_each(tmp_path):
    (tmp_path / "bin").mkdir()
    env = {**os.environ, "PATH": str(tmp_path / "bin"), "DOCKER_HOST": "tcp://192.0.2.1:2375"}
    done = scbench("eval", KV, "-c", 1, "-s", KV / "solutions/python/checkpoint_1", "--out", tmp_path / "out", env=env)
    assert (done.returncode, "Traceback" in done.stderr) == (2, False), done.stderr
    why = " ".join(done.stderr.replace("│", " ").split())
    assert "no sandbox level is available here (bwrap: bubblewrap is not installed (apt-get install bubblewrap); " \
           "docker: DOCKER_HOST=tcp://192.0.2.1:2375 is not a local engine" in why
    assert "; local: prlimit (util-linux) is not installed)" in why


def test_a_track_and_an_entry_together_are_refused(tmp_path):
    done = scbench("eval", KV, "-c", 1, "-s", KV / "solutions/python/checkpoint_1", "-t", "python",
                   "-e", "python3 kv.py", "--out", tmp_path / "out")
    assert (done.returncode, (tmp_path / "out").exists()) == (2, False)
    assert "give --track or --entry, not both" in " ".join(done.stderr.replace("│", " ").split())


def test_with_no_sandbox_level_the_library_raises_sandbox_unavailable_not_stop_iteration(tmp_path, monkeypatch):
    from scbench.sandbox.registry import SandboxUnavailable, choose
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("DOCKER_HOST", "tcp://192.0.2.1:2375")
    with pytest.raises(SandboxUnavailable, match=r"^no sandbox level is available here \(bwrap: "):
        choose(None)
