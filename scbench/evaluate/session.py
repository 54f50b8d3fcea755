"""Evaluate one solution at one checkpoint: prepare it, run its suite in parallel, grade.

This is the library behind ``scbench eval`` and ``scbench check``; the commands only parse
arguments and call :func:`evaluate`. :class:`Evaluation` is its open state (set up, sandbox
started), which ``scbench batch`` uses to run the cases of many evaluations on one pool.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path

from scbench.about import version
from scbench.evaluate.groups import GroupRuns
from scbench.grade.cli import grade_cli_step
from scbench.grade.show import excerpt
from scbench.problem.bundle import Bundle, CompiledCase
from scbench.quality.measure import delta, measure
from scbench.quality.model import QualityReport
from scbench.results import CaseResult, Failure, Quality, RunResults, StepResult, Summary
from scbench.run.cli_case import run_cli_case
from scbench.run.context import RunContext
from scbench.run.tracks import Prepared, SetupError, check_entry, prepare, resolve_entry
from scbench.sandbox.base import Sandbox
from scbench.sandbox.limits import Limits
from scbench.sandbox.local import Local
from scbench.sandbox.registry import choose


@dataclass(frozen=True)
class CaseKind:
    """How one kind of case is run (-> observations), each observation graded (-> failures), and
    which of its outputs a failed step keeps (-> stdout and stderr bytes)."""

    run: Callable
    grade: Callable
    streams: Callable = lambda obs: (b"", b"")


def _cli_kind() -> CaseKind:
    return CaseKind(run_cli_case, grade_cli_step,
                    lambda obs: (obs.result.stdout, obs.result.stderr) if obs.result else (b"", b""))


def _http_kind() -> CaseKind:
    from scbench.grade.http import grade_http_step
    from scbench.run.http_case import run_http_case

    return CaseKind(lambda case, ctx: run_http_case(case, ctx, lambda obs: not grade_http_step(obs)),
                    grade_http_step)


CASE_KINDS: dict[str, Callable[[], CaseKind]] = {"cli": _cli_kind, "http": _http_kind}
"""Case ``kind`` -> what builds its runner, grader and kept outputs (HTTP polling steps retry until the grader
accepts). Built on first use (:func:`case_kind`): a suite of CLI cases never loads the HTTP client."""


@cache
def case_kind(name: str) -> CaseKind:
    """The :class:`CaseKind` of case kind ``name`` (a key of :data:`CASE_KINDS`), built once."""
    return CASE_KINDS[name]()


def _steps(compiled: CompiledCase, ctx: RunContext, observe: Callable[[], list] | None) -> list[StepResult]:
    kind = case_kind(compiled.case.kind)
    steps = []
    for number, obs in enumerate(observe() if observe else kind.run(compiled.case, ctx), 1):
        failures = kind.grade(obs)
        streams = dict(zip(("stdout", "stderr"), map(excerpt, kind.streams(obs)), strict=True)) if failures else {}
        steps.append(StepResult(name=obs.step.name or f"step {number}", passed=not failures,
                                failures=failures, duration_s=round(obs.duration, 4), **streams))
    return steps


def _internal_error(error: Exception) -> StepResult:
    """The step that stands for an unexpected exception while running or grading a case."""
    return StepResult(name="scbench", passed=False, failures=[Failure(
        target="internal error", message=f"{type(error).__name__}: {error} (a bug of scbench, or a broken "
                                         "environment or cache: the traceback follows)",
        diff="".join(traceback.format_exception(error)).rstrip())])


def run_case(compiled: CompiledCase, category: str, ctx: RunContext,
             observe: Callable[[], list] | None = None) -> CaseResult:
    """Run and grade one case; a case passes when every one of its steps ran and passed. An unexpected
    exception fails the case alone, with an ``internal error`` step holding its traceback. ``observe`` runs
    the case's steps where its kind's runner would not (a case of a group, on the group's server)."""
    started = time.monotonic()
    try:
        steps = _steps(compiled, ctx, observe)
    except Exception as error:  # recorded with its traceback; the other cases still run
        steps = [_internal_error(error)]
    passed = len(steps) == len(compiled.case.steps) and all(step.passed for step in steps)
    return CaseResult(id=compiled.case.id, checkpoint=compiled.checkpoint, category=category,
                      source=f"{compiled.source}:{compiled.line}", passed=passed,
                      duration_s=round(time.monotonic() - started, 4), steps=steps)


def suite_runner(bundle: Bundle, number: int, suite: list[tuple[CompiledCase, str]],
                 ctx: RunContext) -> Callable[[tuple[CompiledCase, str]], CaseResult]:
    """What runs and grades one ``(case, category)`` of ``suite`` (part of checkpoint ``number``'s) against
    ``ctx``, from any thread: a case alone by :func:`run_case`, a case of a group with its group
    (:class:`scbench.evaluate.groups.GroupRuns`, each group run once)."""
    groups = GroupRuns(bundle, number, suite, ctx, run_case, lambda obs: case_kind("http").grade(obs))
    return lambda item: groups.result(item) if item[0].group else run_case(item[0], item[1], ctx)


@dataclass(frozen=True)
class Target:
    """The solution under test: its directory, either a track or an explicit entry command,
    and the sandbox level it runs in (``None``: the first available, see
    :func:`scbench.sandbox.registry.choose`), and the trust domain whose set-ups share their toolchains' caches
    (``toolchains``, see :func:`scbench.run.tracks.prepare`; ``None``: none shared)."""

    solution: Path
    track: str | None = None
    entry: str | None = None
    sandbox: str | None = None
    toolchains: str | None = None

    def prepare(self, entry_file: str, level: type[Sandbox] = Local) -> Prepared:
        """Set the solution up (cached) in a sandbox of ``level`` and return its directory and
        entry argv. Raises ``SetupError``."""
        if self.entry is None:
            return prepare(self.solution, self.track or "python", entry_file, level, self.toolchains)
        directory = self.solution.resolve()
        return Prepared(directory, resolve_entry(self.entry, directory, {"solution": str(directory)}))


@dataclass(frozen=True)
class Selection:
    """Which cases of a suite run: those whose id or ``checkpoint_N/id`` matches the shell-style
    ``pattern`` (a pattern without wildcards matches as a substring), the earlier checkpoints' cases
    (category ``regression``) only when ``regressions``, and no new case once ``max_failures`` cases have
    failed; the results then hold the suite up to its ``max_failures``-th failure, whatever ran in parallel
    after it, so they are the same at any parallelism."""

    pattern: str | None = None
    max_failures: int | None = None
    regressions: bool = True

    def suite(self, bundle: Bundle, number: int) -> list[tuple[CompiledCase, str]]:
        """The selected part of checkpoint ``number``'s suite, in suite order."""
        pattern = self.pattern if self.pattern is None or set("*?[") & set(self.pattern) else f"*{self.pattern}*"
        return [(case, category) for case, category in bundle.suite(number)
                if (self.regressions or category != "regression") and (pattern is None or any(
                    fnmatchcase(name, pattern) for name in (case.case.id, f"{case.checkpoint}/{case.case.id}")))]

    @property
    def whole(self) -> bool:
        """Whether the selection is the checkpoint's whole suite (``max_failures`` aside): only then do
        results claim a solve rate."""
        return self.pattern is None and self.regressions

    def kept(self, cases: list[CaseResult]) -> list[CaseResult]:
        """``cases`` (in suite order) up to and including the ``max_failures``-th failure. Every case
        before it ran: a case is skipped only once that many cases before it in the suite failed."""
        failed = [index for index, case in enumerate(cases) if not case.passed]
        return cases if self.max_failures is None or len(failed) < self.max_failures \
            else cases[:failed[self.max_failures - 1] + 1]


def limits_of(bundle: Bundle, number: int) -> Limits:
    """The limits of checkpoint ``number``'s runs: the defaults, then the problem's, then the
    checkpoint's overrides."""
    overrides = (bundle.config.limits, bundle.checkpoint(number).config.limits)
    return Limits(**{k: v for config in overrides for k, v in config.model_dump(exclude_none=True).items()})


class Evaluation:
    """One solution at one checkpoint, opened for running: ``target`` set up, the cases
    ``selection`` picks from checkpoint ``number``'s suite in ``suite``, and (inside ``with``)
    a started sandbox of ``target.sandbox``'s level for up to ``workers`` parallel runs.
    :meth:`run` may be called from any thread, for any item of ``suite``; :meth:`results`
    grades what ran. This is what lets one scheduler feed cases of many evaluations to one
    pool of workers. Raises ``KeyError`` for an unknown checkpoint, ``SetupError`` when the
    solution cannot be set up and ``SandboxUnavailable`` for a level this machine lacks."""

    def __init__(self, bundle: Bundle, number: int, target: Target, workers: int,
                 selection: Selection = Selection()):
        self.started, self.clock = datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic()
        self.bundle, self.number, self.target, self.selection = bundle, number, target, selection
        self.checkpoint = bundle.checkpoint(number)
        self.suite = selection.suite(bundle, number)
        self.failed: list[str] = []
        level = choose(target.sandbox)
        self.prepared = target.prepare(bundle.config.entry_file, level)
        self.sandbox = level(limits_of(bundle, number), [self.prepared.directory, bundle.data_dir(),
                                                          *self.prepared.visible],
                             parallel=workers)
        self.ctx = RunContext(entry=self.prepared.entry, data=bundle.data_dir(), env=self.checkpoint.config.env,
                              solution=self.prepared.directory, sandbox=self.sandbox)
        self.run_item = suite_runner(bundle, number, self.suite, self.ctx)

    def __enter__(self) -> Evaluation:
        """Start the sandbox, and check that the entry's program exists in it (``SetupError`` if not)."""
        self.sandbox.start()
        try:
            check_entry(self.sandbox, self.prepared.entry)
        except SetupError:
            self.sandbox.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.sandbox.stop()

    def run(self, item: tuple[CompiledCase, str]) -> CaseResult | None:
        """Run and grade one ``(case, category)`` of ``suite``; ``None`` (not run) once
        ``selection.max_failures`` cases have failed."""
        if self.selection.max_failures is not None and len(self.failed) >= self.selection.max_failures:
            return None
        result = self.run_item(item)
        if not result.passed:
            self.failed.append(result.id)
        return result

    def results(self, ran: list[CaseResult]) -> RunResults:
        """The graded results of the cases that ``ran`` (in suite order), as ``selection`` keeps them."""
        cases = self.selection.kept(ran)
        return RunResults(problem=self.bundle.config.name, checkpoint=self.checkpoint.name, scbench=version(),
                          started=self.started, track=self.target.track, entry=self.prepared.entry,
                          solution=str(self.target.solution), sandbox=self.sandbox.description,
                          bundle=self.bundle.digest,
                          select=self.selection.pattern, not_run=len(self.suite) - len(cases),
                          summary=Summary.of(cases, self.selection.whole and len(cases) == len(self.suite)),
                          duration_s=round(time.monotonic() - self.clock, 3), cases=cases)


def default_jobs() -> int:
    """Cases run at once when ``-j`` is not given: the CPU count plus one. A case does not keep a
    core busy all the time (it waits for its server to start and answer, and for the harness to
    grade), and one case more than there are cores fills those gaps. On 2 cores, ``scbench batch``
    of dynamic_config_service_api's references took 43 s at 2 cases at once, 32 s at 3, 34 s at 4;
    of forge's checkpoints 6 and 7, 139 s, 122 s and 138 s."""
    return (os.cpu_count() or 1) + 1


def evaluate(bundle: Bundle, number: int, target: Target, jobs: int | None = None,
             on_case: Callable[[CaseResult], None] = lambda result: None,
             selection: Selection = Selection()) -> RunResults:
    """Run checkpoint ``number``'s suite (own cases plus regressions, as ``selection`` selects)
    against ``target`` with ``jobs`` parallel cases (default: :func:`default_jobs`) and return the graded
    results. ``on_case`` is called as each case finishes; every case runs in one sandbox of
    ``target.sandbox``'s level. Raises as :class:`Evaluation` does."""
    workers = jobs or default_jobs()
    with Evaluation(bundle, number, target, workers, selection) as evaluation:

        def one(item: tuple[CompiledCase, str]) -> CaseResult | None:
            result = evaluation.run(item)
            if result is not None:
                on_case(result)
            return result

        with ThreadPoolExecutor(max_workers=workers) as pool:
            cases = [result for result in pool.map(one, evaluation.suite) if result is not None]
    return evaluation.results(cases)


def quality_of(snapshot: Path, previous: Path | None = None,
               measured: Callable[[Path], QualityReport] = measure) -> Quality:
    """The snapshot's erosion and verbosity (and their parts), plus ``delta`` (after minus before,
    per figure) from the ``previous`` checkpoint's snapshot: the ``quality`` of :class:`RunResults`.
    ``measured`` measures one snapshot (a batch passes a cached :func:`measure`)."""
    report = measured(snapshot)
    change = delta(measured(previous), report) if previous is not None else None
    return Quality.model_validate({**report.to_dict(), "delta": change})


def with_quality(results: RunResults, snapshot: Path, previous: Path | None = None,
                 measured: Callable[[Path], QualityReport] = measure) -> RunResults:
    """``results`` with :func:`quality_of` the snapshot recorded."""
    return results.model_copy(update={"quality": quality_of(snapshot, previous, measured)})


def evaluate_measured(run: Callable[[], RunResults], snapshot: Path, previous: Path | None = None) -> RunResults:
    """``run()``'s results with :func:`quality_of` the snapshot, measured in a second thread while
    ``run`` evaluates (the measurement reads only the snapshot, never the solution's run copies)."""
    with ThreadPoolExecutor(max_workers=1) as side:
        quality = side.submit(quality_of, snapshot, previous)
        results = run()
        return results.model_copy(update={"quality": quality.result()})
