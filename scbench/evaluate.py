"""Evaluate one solution at one checkpoint: prepare it, run its suite in parallel, grade.

This is the library behind ``scbench eval`` and ``scbench check``; the commands only parse
arguments and call :func:`evaluate`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from scbench.grade.cli import grade_cli_step
from scbench.grade.http import grade_http_step
from scbench.problem.bundle import Bundle, CompiledCase
from scbench.quality.measure import delta, measure
from scbench.results import CaseResult, RunResults, StepResult, Summary
from scbench.run.cli_case import run_cli_case
from scbench.run.context import RunContext
from scbench.run.http_case import run_http_case
from scbench.run.tracks import Prepared, prepare, resolve_entry
from scbench.sandbox.base import Sandbox, choose
from scbench.sandbox.limits import Limits
from scbench.sandbox.local import Local


@dataclass(frozen=True)
class CaseKind:
    """How one kind of case is run (-> observations) and each observation graded (-> failures)."""

    run: Callable
    grade: Callable


CASE_KINDS: dict[str, CaseKind] = {
    "cli": CaseKind(run_cli_case, grade_cli_step),
    "http": CaseKind(lambda case, ctx: run_http_case(case, ctx, lambda obs: not grade_http_step(obs)),
                     grade_http_step),
}
"""Case ``kind`` -> runner and grader (HTTP polling steps retry until the grader accepts)."""


def run_case(compiled: CompiledCase, category: str, ctx: RunContext) -> CaseResult:
    """Run and grade one case; a case passes when every one of its steps ran and passed."""
    started = time.monotonic()
    kind = CASE_KINDS[compiled.case.kind]
    steps = []
    for number, obs in enumerate(kind.run(compiled.case, ctx), 1):
        failures = kind.grade(obs)
        steps.append(StepResult(name=obs.step.name or f"step {number}", passed=not failures,
                                failures=failures, duration_s=round(obs.duration, 4)))
    passed = len(steps) == len(compiled.case.steps) and all(step.passed for step in steps)
    return CaseResult(id=compiled.case.id, checkpoint=compiled.checkpoint, category=category,
                      source=f"{compiled.source}:{compiled.line}", passed=passed,
                      duration_s=round(time.monotonic() - started, 4), steps=steps)


@dataclass(frozen=True)
class Target:
    """The solution under test: its directory, either a track or an explicit entry command,
    and the sandbox level it runs in (``None``: the first available, see
    :func:`scbench.sandbox.base.choose`)."""

    solution: Path
    track: str | None = None
    entry: str | None = None
    sandbox: str | None = None

    def prepare(self, entry_file: str, level: type[Sandbox] = Local) -> Prepared:
        """Set the solution up (cached) in a sandbox of ``level`` and return its directory and
        entry argv. Raises ``SetupError``."""
        if self.entry is None:
            return prepare(self.solution, self.track or "python", entry_file, level)
        directory = self.solution.resolve()
        return Prepared(directory, resolve_entry(self.entry, directory, {"solution": str(directory)}))


def limits_of(bundle: Bundle, number: int) -> Limits:
    """The limits of checkpoint ``number``'s runs: the defaults, then the problem's, then the
    checkpoint's overrides."""
    overrides = (bundle.config.limits, bundle.checkpoint(number).config.limits)
    return Limits(**{k: v for config in overrides for k, v in config.model_dump(exclude_none=True).items()})


def evaluate(bundle: Bundle, number: int, target: Target, jobs: int | None = None,
             on_case: Callable[[CaseResult], None] = lambda result: None) -> RunResults:
    """Run checkpoint ``number``'s suite (own cases plus regressions) against ``target``
    with ``jobs`` parallel cases (default: CPU count) and return the graded results.
    ``on_case`` is called as each case finishes; every case runs in one sandbox of
    ``target.sandbox``'s level. Raises ``KeyError`` for an unknown checkpoint, ``SetupError``
    when the solution cannot be set up and ``SandboxUnavailable`` for a level this machine lacks."""
    started = time.monotonic()
    checkpoint = bundle.checkpoint(number)
    level = choose(target.sandbox)
    prepared = target.prepare(bundle.config.entry_file, level)
    workers = jobs or os.cpu_count() or 2
    with level(limits_of(bundle, number), [prepared.directory, bundle.data_dir()], parallel=workers) as sandbox:
        ctx = RunContext(entry=prepared.entry, data=bundle.data_dir(), env=checkpoint.config.env,
                         solution=prepared.directory, sandbox=sandbox)

        def one(item: tuple[CompiledCase, str]) -> CaseResult:
            result = run_case(item[0], item[1], ctx)
            on_case(result)
            return result

        with ThreadPoolExecutor(max_workers=workers) as pool:
            cases = list(pool.map(one, bundle.suite(number)))
    return RunResults(problem=bundle.config.name, checkpoint=checkpoint.name, track=target.track, entry=prepared.entry,
                      solution=str(target.solution), sandbox=sandbox.level, bundle=bundle.digest,
                      summary=Summary.of(cases), duration_s=round(time.monotonic() - started, 3), cases=cases)


def with_quality(results: RunResults, snapshot: Path, previous: Path | None = None) -> RunResults:
    """``results`` with the snapshot's erosion and verbosity (and their parts) recorded, plus
    ``delta`` (after minus before, per figure) from the ``previous`` checkpoint's snapshot."""
    report = measure(snapshot)
    change = delta(measure(previous), report) if previous is not None else None
    return results.model_copy(update={"quality": {**report.to_dict(), "delta": change}})
