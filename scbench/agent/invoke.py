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
from scbench.harness.failures import FailureClass, classify
from scbench.harness.formats import FORMATS
from scbench.harness.stream import Meter
from scbench.harness.tally import Tally
from scbench.rundir import Usage
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
    dollars the attempt may spend (``None``: no limit) and whose limit that is (``the run's``, ``the
    checkpoint's``), the hosts it may reach besides the
    agent's own (``--allow-host``) and the track's package registries (reached only by an agent
    that reaches any host)."""

    agent: Agent
    timeout_s: float
    values: dict[str, str]
    secrets: tuple[str, ...]
    env: tuple[str, ...]
    level: type[Sandbox]
    budget_usd: float | None = None
    budget_of: str = "the run's"
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
        return {**base_environment(home, tmp), **self.agent.settings, **host_variables(names)}


@dataclass(frozen=True)
class Outcome:
    """How an agent attempt ended: its process result, its usage (with the class of its failure), why it
    ended the run (``None``: it finished normally), and the version its harness reported."""

    result: ProcessResult
    usage: Usage
    stop_reason: str | None
    version: str | None = None


def _over(budget: float | None, spend: float | None) -> bool:
    return budget is not None and spend is not None and spend > budget


def _watch(process: Process, timeout_s: float, over_budget: Callable[[], bool]) -> bool:
    """Wait for ``process`` up to ``timeout_s``; True as soon as ``over_budget()`` (checked every
    :data:`POLL_S`)."""
    deadline = time.monotonic() + timeout_s
    while not process.finished(min(POLL_S, max(deadline - time.monotonic(), 0))):
        if over_budget():
            return True
        if time.monotonic() >= deadline:
            return False
    return False


def _tail(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    return f": {lines[-1][:300]}" if lines else ""


@dataclass(frozen=True)
class Ending:
    """What an attempt's end is judged on: the call, its process result, its stream's tally, whether
    it passed its budget."""

    call: Call
    result: ProcessResult
    tally: Tally
    over: bool

    def exit_class(self) -> FailureClass:
        """The class of a non-zero exit: what the harness's exit code means, else what its last
        line of standard error says."""
        code = FORMATS[self.call.agent.usage].exit_codes.get(self.result.exit_code)
        return code or classify(_tail(self.result.stderr))


STOP_REASONS: tuple[tuple[Callable[[Ending], bool], Callable[[Ending], FailureClass], Callable[[Ending], str]],
                    ...] = (
    (lambda end: end.over, lambda end: "cost_limit",
     lambda end: f"the agent passed {end.call.budget_of} cost limit (${end.call.budget_usd:.2f} left at its start)"),
    (lambda end: end.result.timed_out, lambda end: "time_limit",
     lambda end: f"the agent timed out after {end.call.timeout_s:g} s (its per-checkpoint time limit)"),
    (lambda end: end.tally.failure is not None, lambda end: end.tally.failure[0],
     lambda end: f"the agent's stream reports a failure ({end.tally.failure[0]}): {end.tally.failure[1]}"),
    (lambda end: end.result.exit_code < 0, lambda end: "agent_error",
     lambda end: f"the agent was killed by signal {-end.result.exit_code}{_tail(end.result.stderr)}"),
    (lambda end: end.result.exit_code > 0, Ending.exit_class,
     lambda end: f"the agent exited with code {end.result.exit_code}{_tail(end.result.stderr)}"),
)
"""(ended the run?, its failure class, why) in order of precedence: cost limit, time limit, a failure its
stream reports (even when it exits 0), signal, exit code."""


def _run(call: Call, sandbox: Sandbox, argv: list[str], area: Path, prompt: str,
         meter: Meter) -> tuple[ProcessResult, bool]:
    """Run ``argv`` in ``sandbox`` until it ends, its time limit passes or it passes the budget
    (then True), its output read into ``meter`` as it comes. A command that is not found ends with
    prlimit's code 127 and its message."""
    process = sandbox.spawn(argv, area / "workspace", call.environment(area / "home", area / "tmp"), area,
                            prompt.encode() if call.agent.stdin else None)
    process.stdout.listen(meter.feed)
    try:
        over = _watch(process, call.timeout_s, lambda: _over(call.budget_usd, meter.read(Tally.spend)))
    finally:  # also when scbench is interrupted: the agent's tree never outlives its checkpoint
        finished = process.wait(0)
    return finished, over


def usage_of(tally: Tally, call: Call, result: ProcessResult, failure: FailureClass | None) -> Usage:
    """The usage record of an attempt whose stream gave ``tally`` and that ended in ``failure`` (secret values
    redacted from what it refused)."""
    tokens = tally.tokens()
    inputs = [tokens[kind] for kind in ("input", "cached_input", "cache_write") if tokens[kind] is not None]
    secrets = call.secret_values()
    return Usage(tokens_in=sum(inputs) if inputs else None, tokens_out=tokens["output"], input_tokens=tokens["input"],
                 cached_input_tokens=tokens["cached_input"], cache_write_tokens=tokens["cache_write"],
                 reasoning_tokens=tokens["reasoning"], turns=tally.turns, tool_calls=tally.tool_calls,
                 reported_cost_usd=tally.reported(), computed_cost_usd=tally.computed(), cost_usd=tally.spend(),
                 wall_s=round(result.duration, 3), parser=call.agent.usage, model=tally.model,
                 refused=[redact(line.encode(), secrets).decode() for line in tally.refused[:100]],
                 failure=failure, truncated=result.truncated)


def call_agent(call: Call, area: Path, number: int, prompt: str) -> Outcome:
    """Run ``call.agent`` on checkpoint ``number``: ``prompt`` in ``area/prompt.md``, the workspace
    ``area/workspace`` (persistent), a fresh ``area/home`` and ``area/tmp`` removed after. The
    outcome's output and stop reason have every secret value redacted."""
    session = (area / "home", area / "tmp")
    for directory in session:
        directory.mkdir()
    (area / "prompt.md").write_text(prompt, encoding="utf-8")
    values = {**call.values, "prompt_file": str(area / "prompt.md"), "workspace": str(area / "workspace"),
              "checkpoint": str(number), "python": call.level.python, "builtins": str(BUILTINS)}
    roots = [BUILTINS, *([Path(call.values["snapshots"])] if "snapshots" in call.values else [])]
    argv, shown = call.agent.argv(values, roots)
    meter = Meter(call.agent.usage, call.values.get("model"))
    with call.level(agent_limits(call.timeout_s), shown, network=call.network(), writable=[area]) as sandbox:
        sandbox.own(area)
        finished, over = _run(call, sandbox, argv, area, prompt, meter)
    for directory in session:
        shutil.rmtree(directory)
    (area / "prompt.md").unlink()
    tally = meter.close()
    secrets = call.secret_values()
    result = replace(finished, stdout=redact(finished.stdout, secrets), stderr=redact(finished.stderr, secrets))
    end = Ending(call, result, tally, over or _over(call.budget_usd, tally.spend()))
    stop = next(((failure(end), why(end)) for applies, failure, why in STOP_REASONS if applies(end)), (None, None))
    reason = redact(stop[1].encode(), secrets).decode() if stop[1] else None
    return Outcome(result, usage_of(tally, call, result, stop[0]), reason, tally.version)
