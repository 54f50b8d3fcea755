"""Spend, limits and failures through ``scbench run``: recorded harness streams (tests/fixtures/streams) played by
the scripted agent in real sandboxes, read live by the loop; run directories and reports read back."""

import json
import os

import pytest

from conftest import FIXTURES, ROOT, scbench
from scbench.rundir import attempts_of, read_run

CALC = FIXTURES / "calc"
SCRIPTED = "tests/fixtures/agents/scripted.py"
REFERENCES = CALC / "solutions" / "python"
STREAMS = "tests/fixtures/streams"
MODELS = {"claude-code": "claude-sonnet-4-5", "codex": "gpt-5.1-codex", "gemini-cli": "gemini-2.5-pro",
          "opencode": "anthropic/claude-sonnet-4-5", "aider": "anthropic/claude-sonnet-4-5"}
SUCCESS = {  # tokens_in, tokens_out, cached, cache write, reasoning, turns, tool calls, reported, computed, cost
    "claude-code": (32308, 290, 28000, 4300, None, 3, 1, 0.028899, 0.028899, 0.028899),
    "codex": (50000, 2600, 44000, None, 900, 2, 1, None, 0.039, 0.039),
    "gemini-cli": (28000, 2500, 12000, None, None, None, 3, None, 0.04872, 0.04872),
    "opencode": (26800, 380, 23000, 1700, 0, 2, 1, 0.025275, 0.025275, 0.025275),
    "aider": (10600, 777, 5300, 1200, None, 2, None, 0.03, 0.030045, 0.030045),
}
FIELDS = ("tokens_in", "tokens_out", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "turns",
          "tool_calls", "reported_cost_usd", "computed_cost_usd", "cost_usd")
EXTENSION = {"aider": "txt"}


def stream_of(harness, case):
    return f"{STREAMS}/{harness}.{case}.{EXTENSION.get(harness, 'jsonl')}"


def play(run_dir, harness, *options, extra=(), sandbox="bwrap"):
    """``scbench run`` of the scripted agent playing ``harness``'s stream with ``options``."""
    command = " ".join(["{python}", SCRIPTED, "{snapshots}", "{checkpoint}", *options])
    return scbench("run", CALC, "--agent-command", command, "--snapshots", REFERENCES, "--out", run_dir,
                   "--usage", harness, "--model", MODELS[harness], "--sandbox", sandbox, *extra)


def usage(run_dir, number):
    return json.loads((run_dir / f"checkpoint_{number}/usage.json").read_text())


@pytest.mark.parametrize("harness", sorted(SUCCESS))
def test_a_recorded_stream_gives_its_exact_tokens_and_cost_and_null_where_it_says_nothing(tmp_path, harness):
    done = play(tmp_path / "run", harness, "--stream", stream_of(harness, "success"), "--stream-at", "1")
    assert done.returncode == 0, done.stderr
    first = usage(tmp_path / "run", 1)
    assert tuple(first[key] for key in FIELDS) == SUCCESS[harness]
    assert (first["parser"], first["attempt"], first["failure"], first["refused"]) == (harness, 1, None, [])
    assert {key: usage(tmp_path / "run", 2)[key] for key in FIELDS} == dict.fromkeys(FIELDS)
    assert [cp.status for cp in read_run(tmp_path / "run").checkpoints] == ["done"] * 3


@pytest.mark.parametrize("harness", sorted(SUCCESS))
def test_the_cost_limit_stops_each_harness_mid_run(tmp_path, harness):
    done = play(tmp_path / "run", harness, "--stream", stream_of(harness, "success"), "--then-stall",
                extra=["--cost-limit", "0.01", "--timeout", "300"])
    assert done.returncode == 1
    record = read_run(tmp_path / "run")
    assert [(cp.status, cp.failure) for cp in record.checkpoints] == [("failed", "cost_limit"), ("not_run", None),
                                                                        ("not_run", None)]
    assert record.checkpoint(1).stop_reason == "the agent passed the run's cost limit ($0.01 left at its start)"
    assert usage(tmp_path / "run", 1)["cost_usd"] == SUCCESS[harness][-1]
    assert (tmp_path / "run/checkpoint_1/results.json").exists()  # a failed checkpoint's snapshot is graded


def test_the_checkpoint_cost_limit_stops_an_attempt_the_run_limit_would_let_go(tmp_path):
    done = play(tmp_path / "run", "codex", "--stream", stream_of("codex", "success"), "--then-stall",
                extra=["--cost-limit", "5", "--checkpoint-cost-limit", "0.02", "--timeout", "300"])
    assert done.returncode == 1
    record = read_run(tmp_path / "run")
    assert (record.checkpoint_cost_limit_usd, record.checkpoint(1).stop_reason) == (
        0.02, "the agent passed the checkpoint's cost limit ($0.02 left at its start)")
    assert json.loads(scbench("report", tmp_path / "run", "--json").stdout)["table"][0]["ended_by"] == \
        {"cost_limit": 1}
    assert "ended early: command / gpt-5.1-codex / just-solve: 0 run(s) ended by the provider or the " \
           "infrastructure, 1 by the agent or a limit (cost_limit 1)" in scbench("report", tmp_path / "run").stdout
    assert scbench("report", tmp_path / "run", "--html", tmp_path / "report.html").returncode == 0
    assert "<td>failure: cost_limit</td>" in (tmp_path / "report.html").read_text()


FAILURES = [  # harness, stream case, exit code, failure class
    ("claude-code", "api_error", 1, "authentication"), ("codex", "api_error", 1, "authentication"),
    ("gemini-cli", "api_error", 1, "authentication"), ("opencode", "api_error", 0, "rate_limit"),
    ("aider", "api_error", 0, "authentication"), ("gemini-cli", "killed", 53, "turn_limit")]


@pytest.mark.parametrize(("harness", "case", "code", "failure"), FAILURES)
def test_a_failure_the_stream_or_exit_code_reports_is_classified(tmp_path, harness, case, code, failure):
    done = play(tmp_path / "run", harness, "--stream", stream_of(harness, case), "--exit", str(code),
                extra=["--retries", "0"])
    assert done.returncode == 1
    record = read_run(tmp_path / "run")
    assert (record.checkpoint(1).status, record.checkpoint(1).failure) == ("failed", failure)
    assert usage(tmp_path / "run", 1)["failure"] == failure
    assert record.stop_reason.startswith("checkpoint_1: the agent")


def test_hostile_usage_lines_are_refused_flagged_and_never_crash_the_run(tmp_path):
    done = play(tmp_path / "run", "claude-code", "--stream", stream_of("claude-code", "malformed"))
    assert done.returncode == 0, done.stderr
    record = read_run(tmp_path / "run")
    assert [cp.status for cp in record.checkpoints] == ["done"] * 3
    assert record.checkpoint(1).refused == ["assistant usage input: 'many'", "assistant usage cached_input: '-5'",
                                            "result total_cost_usd: 'nan'", "turns: 'two'",
                                            "result total_cost_usd: '-3.5'", "result total_cost_usd: 'True'"]
    assert usage(tmp_path / "run", 1)["cost_usd"] == 0.00525


def test_usage_is_read_past_the_size_at_which_the_output_kept_is_cut(tmp_path):
    done = play(tmp_path / "run", "claude-code", "--flood", "70", "--stream", stream_of("claude-code", "success"),
                "--stream-at", "1")
    assert done.returncode == 0, done.stderr
    first = usage(tmp_path / "run", 1)
    assert (first["cost_usd"], first["truncated"]) == (0.028899, True)
    assert (tmp_path / "run/checkpoint_1/trajectory.jsonl").stat().st_size == 64 * 1024 * 1024


def test_a_transient_failure_is_retried_and_every_attempt_is_kept(tmp_path):
    (tmp_path / "flag").touch()
    flag = os.path.relpath(tmp_path / "flag", ROOT)
    done = play(tmp_path / "run", "codex", "--fail-first", flag, extra=["--retry-wait", "0", "--uncontained"],
                sandbox="local")
    assert done.returncode == 0, done.stderr
    assert "checkpoint_1: the agent's stream reports a failure (rate_limit): last status: 429 Too Many Requests; " \
           "retry 1 of 2 in 0 s" in done.stderr
    record = read_run(tmp_path / "run")
    assert [(cp.status, cp.attempts) for cp in record.checkpoints] == [("done", 2), ("done", 1), ("done", 1)]
    assert [(u.attempt, u.failure, u.cost_usd) for u in attempts_of(tmp_path / "run", 1)] == [
        (1, "rate_limit", 0.00225), (2, None, None)]
    assert not (tmp_path / "run/checkpoint_1/snapshot/half-written.txt").exists()
    assert scbench("report", tmp_path / "run", "--html", tmp_path / "report.html").returncode == 0
    assert "(2 attempts)" in (tmp_path / "report.html").read_text()


def test_a_resumed_run_keeps_the_failed_attempts_spend_and_the_report_counts_it(tmp_path):
    (tmp_path / "flag").touch()
    flag = os.path.relpath(tmp_path / "flag", ROOT)
    options = ("--stream", stream_of("claude-code", "success"), "--stream-at", "2", "--exit", "3", "--exit-if", flag)
    assert play(tmp_path / "run", "claude-code", *options).returncode == 1
    (tmp_path / "flag").unlink()
    done = play(tmp_path / "run", "claude-code", *options, extra=["--resume"])
    assert done.returncode == 0, done.stderr
    assert [(u.attempt, u.failure, u.cost_usd) for u in attempts_of(tmp_path / "run", 2)] == [
        (1, "agent_error", 0.028899), (2, None, 0.028899)]
    assert read_run(tmp_path / "run").harness_version == "2.0.51"
    report = json.loads(scbench("report", tmp_path / "run", "--json").stdout)
    assert report["table"][0]["total_cost_usd"]["value"] == 0.057798


def test_whatever_the_agent_leaves_the_run_record_ends_in_a_terminal_state(tmp_path):
    done = play(tmp_path / "run", "claude-code", "--fifo")
    statuses = [cp.status for cp in read_run(tmp_path / "run").checkpoints]
    assert set(statuses) <= {"done", "failed", "not_run"}, (statuses, done.stderr)


def test_a_fault_of_scbench_mid_run_still_ends_the_record_in_a_terminal_state_and_is_raised(tmp_path):
    from scbench.agent.invoke import Call
    from scbench.agent.loop import Experiment, run_problem
    from scbench.agent.table import Agent
    from scbench.problem.compiler import compile_problem
    from scbench.sandbox.local import Local

    broken = Agent(command="true", usage="no-such-format")  # what problems_of refuses before a run
    experiment = Experiment(Call(broken, 60, {}, (), (), Local), "broken", None, "just-solve", "python")
    with pytest.raises(KeyError, match="no-such-format"):
        run_problem(tmp_path / "run", compile_problem(CALC), experiment)
    record = read_run(tmp_path / "run")
    assert [cp.status for cp in record.checkpoints] == ["failed", "not_run", "not_run"]
    assert record.stop_reason == "scbench failed: KeyError('no-such-format')"
