"""One checkpoint of an agent: its command run in a fresh sandbox on the persistent workspace.

The sandbox (the level the cases run in) shows the agent only its area (``area/workspace``, the
prompt file, a fresh ``HOME`` and ``TMPDIR``), the scripts its command names and, for built-ins,
the one snapshot they replay: never the problem's cases, references, data or later specs, nor
the run directory. Its environment is :func:`~scbench.sandbox.process.base_environment` plus the
variables the agent's entry names, passed by name (:func:`~scbench.sandbox.base.host_variables`).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from scbench.agent.snapshot import redact
from scbench.agent.table import BUILTINS, Agent
from scbench.agent.usage import PARSERS
from scbench.rundir import Spend, Usage
from scbench.sandbox.base import Sandbox, host_variables, hosts_of
from scbench.sandbox.limits import Limits
from scbench.sandbox.process import Process, ProcessResult, base_environment

POLL_S = 1.0
"""Seconds between two readings of a running agent's spend (for the cost limit)."""


def agent_limits(timeout_s: float) -> Limits:
    """Limits of an agent's process tree: room for a harness (a Node.js CLI, its tools, a venv
    being built), CPU seconds per process up to the checkpoint's time limit."""
    return Limits(memory_mb=8192, processes=1024, cpu_s=int(timeout_s) + 1, file_mb=4096, output_mb=64)


@dataclass(frozen=True)
class Call:
    """What one checkpoint's agent call needs: the agent, its time limit, the values of the
    placeholders that do not depend on the checkpoint (``model``, ``snapshots``), the variables
    passed besides the agent's own (``--secret`` and ``--env`` names), the sandbox level, the
    dollars the run may still spend (``None``: no limit), the hosts it may reach besides the
    agent's own (``--allow-host``) and the track's package registries (reached only by an agent
    that reaches any host)."""

    agent: Agent
    timeout_s: float
    values: dict[str, str]
    secrets: tuple[str, ...]
    env: tuple[str, ...]
    level: type[Sandbox]
    budget_usd: float | None = None
    hosts: tuple[str, ...] = ()
    registries: tuple[str, ...] = ()

    def secret_values(self) -> list[tuple[str, str]]:
        """``(name, value)`` of every secret set in scbench's environment: what must never be written."""
        return list(host_variables((*self.agent.secrets, *self.secrets)).items())

    def network(self) -> tuple[str, ...]:
        """The hosts the agent may reach: its own, the call's, the track's registries and those of URLs in
        the variables passed to it (a base URL); none when the agent and the call name none."""
        if not (self.agent.hosts or self.hosts):
            return ()
        passed = host_variables((*self.agent.env, *self.env)).values()
        return tuple(dict.fromkeys((*self.agent.hosts, *self.hosts, *self.registries, *hosts_of(passed))))

    def environment(self, home: Path, tmp: Path) -> dict[str, str]:
        """The agent's whole environment."""
        names = (*self.agent.secrets, *self.secrets, *self.agent.env, *self.env)
        return {**base_environment(home, tmp), **host_variables(names)}


@dataclass(frozen=True)
class Outcome:
    """How an agent call ended: its process result, its usage, and why it ended the run (``None``:
    it finished normally)."""

    result: ProcessResult
    usage: Usage
    stop_reason: str | None


def _over(budget: float | None, spend: Spend) -> bool:
    return budget is not None and spend.cost_usd is not None and spend.cost_usd > budget


def _watch(process: Process, timeout_s: float, over_budget: Callable[[bytes], bool]) -> bool:
    """Wait for ``process`` up to ``timeout_s``; True as soon as its output says it passed the budget."""
    deadline = time.monotonic() + timeout_s
    while not process.finished(min(POLL_S, max(deadline - time.monotonic(), 0))):
        if over_budget(bytes(process.stdout.data)):
            return True
        if time.monotonic() >= deadline:
            return False
    return False


def _tail(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    return f": {lines[-1][:300]}" if lines else ""


STOP_REASONS: tuple[tuple[Callable[[Call, ProcessResult, bool], bool], Callable[[Call, ProcessResult], str]], ...] = (
    (lambda call, result, over: over,
     lambda call, result: f"the agent passed the run's cost limit (${call.budget_usd:.2f} left at its start)"),
    (lambda call, result, over: result.timed_out,
     lambda call, result: f"the agent timed out after {call.timeout_s:g} s (its per-checkpoint time limit)"),
    (lambda call, result, over: result.exit_code < 0,
     lambda call, result: f"the agent was killed by signal {-result.exit_code}{_tail(result.stderr)}"),
    (lambda call, result, over: result.exit_code > 0,
     lambda call, result: f"the agent exited with code {result.exit_code}{_tail(result.stderr)}"),
)
"""(ended the run?, why) in order of precedence: cost limit, time limit, signal, exit code."""


def _run(call: Call, sandbox: Sandbox, argv: list[str], area: Path, prompt: str) -> tuple[ProcessResult, bool]:
    """Run ``argv`` in ``sandbox`` until it ends, its time limit passes or it passes the budget
    (then True). A command that is not found ends with prlimit's code 127 and its message."""
    parse = PARSERS[call.agent.usage]
    process = sandbox.spawn(argv, area / "workspace", call.environment(area / "home", area / "tmp"), area,
                            prompt.encode() if call.agent.stdin else None)
    try:
        over = _watch(process, call.timeout_s, lambda output: _over(call.budget_usd, parse(output)))
    finally:  # also when scbench is interrupted: the agent's tree never outlives its checkpoint
        finished = process.wait(0)
    return finished, over


def call_agent(call: Call, area: Path, number: int, prompt: str) -> Outcome:
    """Run ``call.agent`` on checkpoint ``number``: ``prompt`` in ``area/prompt.md``, the workspace
    ``area/workspace`` (persistent), a fresh ``area/home`` and ``area/tmp`` removed after. The
    outcome's output has every secret value redacted."""
    session = (area / "home", area / "tmp")
    for directory in session:
        directory.mkdir()
    (area / "prompt.md").write_text(prompt, encoding="utf-8")
    values = {**call.values, "prompt_file": str(area / "prompt.md"), "workspace": str(area / "workspace"),
              "checkpoint": str(number), "python": call.level.python, "builtins": str(BUILTINS)}
    roots = [BUILTINS, *([Path(call.values["snapshots"])] if "snapshots" in call.values else [])]
    argv, shown = call.agent.argv(values, roots)
    with call.level(agent_limits(call.timeout_s), shown, network=call.network(), writable=[area]) as sandbox:
        sandbox.own(area)
        finished, over = _run(call, sandbox, argv, area, prompt)
    for directory in session:
        shutil.rmtree(directory)
    (area / "prompt.md").unlink()
    secrets = call.secret_values()
    result = replace(finished, stdout=redact(finished.stdout, secrets), stderr=redact(finished.stderr, secrets))
    spend = PARSERS[call.agent.usage](result.stdout)
    over = over or _over(call.budget_usd, spend)
    reason = next((why(call, result) for applies, why in STOP_REASONS if applies(call, result, over)), None)
    return Outcome(result, Usage(**spend.model_dump(), wall_s=round(result.duration, 3), parser=call.agent.usage),
                   reason)
