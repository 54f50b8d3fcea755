"""``scbench run`` end to end: real agent processes in real sandboxes, real run directories, real kills."""

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES, ROOT, processes_with, scbench
from scbench.rundir import read_run

CALC = FIXTURES / "calc"
SCRIPTED = "tests/fixtures/agents/scripted.py"
REFERENCES = CALC / "solutions" / "python"


def scripted(run_dir, *options, problem=CALC, snapshots=REFERENCES, extra=(), env=None):
    """``scbench run`` of the scripted agent (tests/fixtures/agents/scripted.py) with ``options``."""
    command = " ".join(["{python}", SCRIPTED, "{snapshots}", "{checkpoint}", *options])
    return scbench("run", problem, "--agent-command", command, "--snapshots", snapshots, "--out", run_dir, *extra,
                   env=env)


def states(run_dir):
    """(status, strict, isolated, core) per checkpoint."""
    found = []
    for cp in read_run(run_dir).checkpoints:
        results = run_dir / cp.name / "results.json"
        summary = json.loads(results.read_text())["summary"] if results.exists() else {}
        found.append((cp.status, *(summary.get(key, False) for key in ("strict", "isolated", "core"))))
    return found


def test_replay_of_the_references_is_strict_on_every_checkpoint(tmp_path):
    done = scbench("run", ROOT / "problems/code_search", "--agent", "replay", "--snapshots",
                   ROOT / "problems/code_search/solutions/python", "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert states(tmp_path / "run") == [("done", True, True, True)] * 5
    record = json.loads((tmp_path / "run/run.json").read_text())
    assert (record["agent"], record["model"], record["prompt"], record["track"], record["problem"]) == \
        ("replay", None, "just-solve", "python", "code_search")
    layout = sorted(path.name for path in (tmp_path / "run/checkpoint_3").iterdir())
    assert layout == ["diff.patch", "junit.xml", "prompt.md", "results.json", "snapshot", "stderr.txt",
                      "trajectory.txt", "usage.json"]
    results = json.loads((tmp_path / "run/checkpoint_3/results.json").read_text())
    assert results["quality"]["delta"] is not None and results["summary"]["counts"]["regression"]["total"] > 0
    assert (tmp_path / "run/checkpoint_3/snapshot/code_search.py").read_bytes() == \
        (ROOT / "problems/code_search/solutions/python/checkpoint_3/code_search.py").read_bytes()
    assert "+++ b/code_search.py" in (tmp_path / "run/checkpoint_3/diff.patch").read_text()
    assert "checkpoint_3" in done.stdout and "strict=yes" in done.stdout


def test_an_agent_that_never_changes_its_first_workspace_is_strict_at_checkpoint_1_only(tmp_path):
    done = scripted(tmp_path / "run", "--freeze-after", "1")
    assert done.returncode == 0, done.stderr
    assert states(tmp_path / "run") == [("done", True, True, True), ("done", False, False, False),
                                        ("done", False, False, False)]
    assert (tmp_path / "run/checkpoint_2/diff.patch").read_text() == ""
    regression = json.loads((tmp_path / "run/checkpoint_2/results.json").read_text())["summary"]["counts"]
    assert regression["regression"] == {"passed": 3, "total": 3}


def test_replaying_an_earlier_run_grades_the_same_trajectory_again(tmp_path):
    assert scripted(tmp_path / "first", "--freeze-after", "1").returncode == 0
    done = scbench("run", CALC, "--agent", "replay", "--snapshots", tmp_path / "first", "--out", tmp_path / "again")
    assert done.returncode == 0, done.stderr
    assert states(tmp_path / "again") == states(tmp_path / "first")
    assert (tmp_path / "again/checkpoint_3/snapshot/calc.py").read_bytes() == \
        (REFERENCES / "checkpoint_1/calc.py").read_bytes()


def test_an_agent_that_crashes_at_checkpoint_2_leaves_the_rest_unsolved_with_the_reason(tmp_path):
    done = scripted(tmp_path / "run", "--crash-at", "2")
    assert done.returncode == 1
    record = read_run(tmp_path / "run")
    reason = "the agent exited with code 3: scripted agent: giving up"
    assert [(cp.status, cp.stop_reason) for cp in record.checkpoints] == [
        ("done", None), ("failed", reason), ("not_run", f"not run: checkpoint_2: {reason}")]
    assert record.stop_reason == f"checkpoint_2: {reason}"
    assert (record.checkpoint(2).failure, record.checkpoint(2).attempts) == ("agent_error", 1)
    assert states(tmp_path / "run")[1] == ("failed", False, False, False)  # graded, as SlopCodeBench does
    assert (tmp_path / "run/checkpoint_2/snapshot/half-written.txt").read_text() == "crashed\n"
    assert (tmp_path / "run/checkpoint_2/stderr.txt").read_text() == "scripted agent: giving up\n"


def test_a_run_killed_mid_checkpoint_resumes_without_redoing_earlier_checkpoints(tmp_path):
    flags = tmp_path / "flags"
    flags.mkdir()
    (flags / "stall").touch()
    stall = os.path.relpath(flags / "stall", ROOT)
    command = f"{{python}} {SCRIPTED} {{snapshots}} {{checkpoint}} --stall-at 2 {stall}"
    argv = [sys.executable, "-m", "scbench", "run", str(CALC), "--agent-command", command, "--snapshots",
            str(REFERENCES), "--out", str(tmp_path / "run")]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not (tmp_path / "run/run.json").exists() or read_run(tmp_path / "run").checkpoint(2).status != "running":
        assert process.poll() is None, "the run ended before checkpoint 2 started"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    first = read_run(tmp_path / "run")
    assert [cp.status for cp in first.checkpoints] == ["done", "running", "pending"]
    trajectory = (tmp_path / "run/checkpoint_1/trajectory.txt").read_bytes()
    (flags / "stall").unlink()
    done = scbench(*argv[3:], "--resume")
    assert done.returncode == 0, done.stderr
    assert "resuming at checkpoint_2" in done.stderr
    assert states(tmp_path / "run") == [("done", True, True, True)] * 3
    again = read_run(tmp_path / "run")
    assert again.checkpoint(1) == first.checkpoint(1) and again.started == first.started
    assert (tmp_path / "run/checkpoint_1/trajectory.txt").read_bytes() == trajectory
    assert not (tmp_path / "run/checkpoint_2/snapshot/half-written.txt").exists()


def test_a_terminated_run_leaves_no_agent_process_behind_even_without_a_sandbox(tmp_path):
    (tmp_path / "stall").touch()
    stall = os.path.relpath(tmp_path / "stall", ROOT)
    argv = [sys.executable, "-m", "scbench", "run", str(CALC), "--agent-command",
            f"{{python}} {SCRIPTED} {{snapshots}} {{checkpoint}} --stall-at 1 {stall}", "--snapshots", str(REFERENCES),
            "--out", str(tmp_path / "run"), "--sandbox", "local", "--uncontained"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while not processes_with(f"--stall-at 1 {tmp_path / 'stall'}"):
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 128 + signal.SIGTERM
    assert processes_with(f"--stall-at 1 {tmp_path / 'stall'}") == []
    assert read_run(tmp_path / "run").checkpoint(1).status == "running"


def test_resume_after_a_changed_spec_runs_that_checkpoint_and_later_ones_again(tmp_path):
    problem = shutil.copytree(CALC, tmp_path / "calc")
    assert scripted(tmp_path / "run", problem=problem).returncode == 0
    trajectories = [(tmp_path / f"run/checkpoint_{n}/trajectory.txt").read_bytes() for n in (1, 2, 3)]
    spec = problem / "checkpoint_2.md"
    spec.write_text(spec.read_text().replace("product", "product (an integer)"))
    done = scripted(tmp_path / "run", problem=problem, extra=["--resume"])
    assert done.returncode == 0, done.stderr
    assert "checkpoint_2: its prompt changed since it ran (spec, template or track words): it runs again, " \
           "and so does every later checkpoint" in done.stderr
    now = [(tmp_path / f"run/checkpoint_{n}/trajectory.txt").read_bytes() for n in (1, 2, 3)]
    assert now[0] == trajectories[0] and now[1] != trajectories[1] and now[2] != trajectories[2]
    assert "product (an integer)" in (tmp_path / "run/checkpoint_2/prompt.md").read_text()


def test_resume_after_changed_cases_grades_again_without_running_the_agent(tmp_path):
    problem = shutil.copytree(CALC, tmp_path / "calc")
    assert scripted(tmp_path / "run", problem=problem).returncode == 0
    trajectory = (tmp_path / "run/checkpoint_3/trajectory.txt").read_bytes()
    cases = problem / "cases/checkpoint_3/cases.yaml"
    cases.write_text(cases.read_text().replace('"-7\\n"', '"-8\\n"'))
    done = scripted(tmp_path / "run", problem=problem, extra=["--resume"])
    assert done.returncode == 0, done.stderr
    assert "checkpoint_3: its cases, data or limits changed since it was graded: its snapshot is graded again" \
        in done.stderr
    assert "checkpoint_1: its cases" not in done.stderr
    assert (tmp_path / "run/checkpoint_3/trajectory.txt").read_bytes() == trajectory
    assert states(tmp_path / "run")[2] == ("done", False, False, False)


def test_a_run_directory_is_never_taken_over_silently(tmp_path):
    assert scripted(tmp_path / "run").returncode == 0
    again = scripted(tmp_path / "run")
    assert again.returncode == 2 and "holds a run already: add --resume to continue it" in again.stderr
    other = scbench("run", CALC, "--agent", "replay", "--snapshots", REFERENCES, "--out", tmp_path / "run",
                    "--resume")
    assert other.returncode == 2
    assert "holds another experiment: agent 'command' (now 'replay')" in other.stderr
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/mine.txt").write_text("keep")
    taken = scripted(tmp_path / "notes")
    assert taken.returncode == 2 and "is not empty and holds no run.json" in taken.stderr
    assert (tmp_path / "notes/mine.txt").read_text() == "keep"


def test_a_secret_is_passed_by_name_and_never_written_into_the_run_directory(tmp_path):
    value = secrets.token_hex(16)
    done = scripted(tmp_path / "run", "--leak", "SCBENCH_TEST_SECRET", extra=["--secret", "SCBENCH_TEST_SECRET"],
                    env={**os.environ, "SCBENCH_TEST_SECRET": value})
    assert done.returncode == 0, done.stderr
    trajectory = (tmp_path / "run/checkpoint_1/trajectory.txt").read_text()
    assert "secret SCBENCH_TEST_SECRET=[SCBENCH_TEST_SECRET]" in trajectory
    assert (tmp_path / "run/checkpoint_3/snapshot/config.env").read_text() == \
        "SCBENCH_TEST_SECRET=[SCBENCH_TEST_SECRET]\n"
    written = [path for path in (tmp_path / "run").rglob("*") if path.is_file() and value.encode() in path.read_bytes()]
    assert written == []
    assert value not in done.stdout + done.stderr


def test_spend_is_read_from_the_stream_and_the_cost_limit_ends_the_run(tmp_path):
    done = scripted(tmp_path / "run", "--spend", "0.3", extra=["--usage", "claude-code", "--cost-limit", "0.5"])
    assert done.returncode == 1
    usage = json.loads((tmp_path / "run/checkpoint_1/usage.json").read_text())
    assert (usage["tokens_in"], usage["tokens_out"], usage["cost_usd"], usage["parser"]) == (1000, 200, 0.3,
                                                                                             "claude-code")
    assert (tmp_path / "run/checkpoint_1/trajectory.jsonl").exists()
    record = read_run(tmp_path / "run")
    assert [cp.status for cp in record.checkpoints] == ["done", "failed", "not_run"]
    assert record.checkpoint(2).stop_reason == "the agent passed the run's cost limit ($0.20 left at its start)"


def test_an_agent_over_its_time_limit_is_stopped(tmp_path):
    (tmp_path / "stall").touch()
    stall = os.path.relpath(tmp_path / "stall", ROOT)
    done = scripted(tmp_path / "run", "--stall-at", "1", stall, extra=["--timeout", "1"])
    assert done.returncode == 1
    assert read_run(tmp_path / "run").checkpoint(1).stop_reason == \
        "the agent timed out after 1 s (its per-checkpoint time limit)"


@pytest.mark.parametrize("level", ["local", "bwrap", "docker"])
def test_an_agent_command_that_cannot_start_ends_the_run_with_the_reason(tmp_path, level):
    done = scbench("run", CALC, "--agent-command", "no-such-agent {prompt_file}", "--out", tmp_path / "run",
                   "--sandbox", level, "--uncontained")
    assert done.returncode == 1
    assert read_run(tmp_path / "run").checkpoint(1).stop_reason == \
        "the agent exited with code 127: prlimit: failed to execute no-such-agent: No such file or directory"


@pytest.mark.parametrize("level", ["bwrap", "docker"])
def test_the_agent_sees_its_workspace_and_prompt_but_no_case_reference_or_later_spec(tmp_path, level):
    hidden = [CALC / "cases/checkpoint_1/cases.yaml", CALC / "checkpoint_3.md", REFERENCES / "checkpoint_3/calc.py",
              tmp_path / "run/run.json"]
    probe = "; ".join(f"p = {str(path)!r}; print(p, os.path.exists(p))" for path in hidden)
    command = f"{{python}} -c \"import os; {probe}; print(open({{prompt_file!r}}).read()[:200])\""
    done = scbench("run", CALC, "--agent-command", command.replace("{prompt_file!r}", "'{prompt_file}'"),
                   "--out", tmp_path / "run", "--sandbox", level)
    assert done.returncode == 0, done.stderr
    seen = (tmp_path / "run/checkpoint_1/trajectory.txt").read_text()
    assert [line.rsplit(" ", 1)[1] for line in seen.splitlines()[:4]] == ["False"] * 4
    assert "Write a program that fully satisfies the specification below" in seen
    assert read_run(tmp_path / "run").sandbox == level


def test_unknown_agents_and_missing_settings_are_usage_errors(tmp_path):
    assert "unknown agent 'nope'" in scbench("run", CALC, "--agent", "nope").stderr
    both = scbench("run", CALC, "--agent", "replay", "--agent-command", "true")
    assert both.returncode == 2 and "give exactly one of --agent NAME and --agent-command CMD" in both.stderr
    assert "give --snapshots" in scbench("run", CALC, "--agent", "replay").stderr
    assert "give --model" in scbench("run", CALC, "--agent", "codex", env={**os.environ, "OPENAI_API_KEY": "x"}).stderr
    placeholder = scbench("run", CALC, "--agent-command", "echo {secret}")
    assert placeholder.returncode == 2 and "unknown placeholder {secret}" in placeholder.stderr
    credentials = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN")
    bare = {key: value for key, value in os.environ.items() if key not in credentials}
    credential = scbench("run", CALC, "--agent", "claude-code", "--model", "m", env=bare)
    assert credential.returncode == 2
    assert "set one of these environment variables: ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN" in credential.stderr
