"""Case groups: the cases of a case file with ``group:`` run against one server, started once, after the
group's setup, in the file's order, so that each case finds the state the earlier ones left.

A group runs whole in the thread of the first of its cases asked for; the threads asking for its later cases
wait for their results. A selection (``-k``) that picks a later case of a group still runs the group's
earlier cases, as its setup: they are run, not graded, and not reported, unless the later case fails, whose
report then names those that failed.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from scbench.problem.bundle import Bundle, CompiledCase
from scbench.problem.model import CaseGroup
from scbench.results import CaseResult, Failure, StepResult
from scbench.run.context import RunContext

if TYPE_CHECKING:  # the HTTP client is imported where a group runs: a suite without groups never pays for it
    from scbench.run.http_case import HttpObservation, HttpSession

Item = tuple[CompiledCase, str]
"""A case of a suite and its category."""


def _name(case: CompiledCase) -> str:
    return f"{case.checkpoint}/{case.case.id}"


def _key(case: CompiledCase) -> str:
    """The group ``case`` belongs to, named with its checkpoint (group names are a case file's own)."""
    return f"{case.checkpoint}:{case.group}"


def _setup_step(failures: list[Failure]) -> list[StepResult]:
    """The step that stands for a failed group setup in each case of the group (none when it passed)."""
    return [StepResult(name="group setup", passed=False, failures=failures)] if failures else []


def _noted(result: CaseResult, setup: list[StepResult], failed_before: list[str], source: str) -> CaseResult:
    """``result`` of a case of the group ``source``: a failed setup before its steps, and, when it failed after
    earlier cases of its group had failed, a failure on its first failed step that names them."""
    steps = [*setup, *result.steps]
    if not result.passed and failed_before:
        index = next(index for index, step in enumerate(steps) if not step.passed)
        note = Failure(target="group", message=f"it ran after earlier cases of its group ({source}) that failed: "
                       f"{', '.join(failed_before)}; it may depend on what they should have created")
        steps[index] = steps[index].model_copy(update={"failures": [*steps[index].failures, note]})
    return result.model_copy(update={"steps": steps, "passed": result.passed and not setup, "group": source})


RunCase = Callable[[CompiledCase, str, RunContext, Callable[[], list]], CaseResult]
"""How a case is run and graded given its observations (``scbench.evaluate.session.run_case``)."""


class GroupRuns:
    """The groups of checkpoint ``number``'s suite of ``bundle`` as ``selected`` (the evaluation's selection)
    picks their cases, each run at most once, against ``ctx``, each case by ``run_case`` and each setup step
    graded by ``grade`` (an HTTP step's failures). :meth:`result` may be called from any thread."""

    def __init__(self, bundle: Bundle, number: int, selected: list[Item], ctx: RunContext, run_case: RunCase,
                 grade: Callable[[HttpObservation], list[Failure]]):
        self.ctx, self.run_case, self.grade = ctx, run_case, grade
        self.members: dict[str, list[Item]] = defaultdict(list)
        for item in bundle.suite(number):
            if item[0].group is not None:
                self.members[_key(item[0])].append(item)
        checkpoints = {checkpoint.name: checkpoint for checkpoint in bundle.checkpoints}
        self.specs: dict[str, CaseGroup] = {key: checkpoints[items[0][0].checkpoint].groups[items[0][0].group]
                                            for key, items in self.members.items()}
        self.results: dict[str, Future[CaseResult]] = {_name(case): Future() for case, _ in selected if case.group}
        self.started: set[str] = set()
        self.lock = threading.Lock()

    def result(self, item: Item) -> CaseResult:
        """The result of grouped case ``item``, running its whole group first if no other thread has."""
        key = _key(item[0])
        with self.lock:
            first = key not in self.started
            self.started.add(key)
        if first:
            self._run_reporting(key)
        return self.results[_name(item[0])].result()

    def _run_reporting(self, key: str) -> None:
        """:meth:`_run`; should it raise, every result of the group still awaited raises the same error."""
        try:
            self._run(key)
        except BaseException as error:
            for name in (_name(case) for case, _ in self.members[key]):
                if name in self.results and not self.results[name].done():
                    self.results[name].set_exception(error)
            raise

    def _run(self, key: str) -> None:
        """Start the group's server, run its setup, then its cases up to the last one selected, in order."""
        from scbench.run.http_case import HttpSession
        spec = self.specs[key]
        with HttpSession(self.ctx, spec.server, spec.env, spec.files) as session:
            setup = session.run(spec.setup, {}, self.accept) if spec.setup else []
            captures = {name: value for obs in setup for name, value in obs.captured.items()}
            self._cases(key, session, captures, _setup_step([failure for obs in setup for failure in self.grade(obs)]))

    def accept(self, obs: HttpObservation) -> bool:
        """Whether a polling step's response is good enough: it passes."""
        return not self.grade(obs)

    def _cases(self, key: str, session: HttpSession, captures: dict, setup: list[StepResult]) -> None:
        """Run the group's cases up to the last one selected on ``session``, each knowing the setup's
        ``captures``, and hand each selected one's result to the thread waiting for it."""
        members = self.members[key]
        last = max(index for index, (case, _) in enumerate(members) if _name(case) in self.results)
        failed_before: list[str] = []
        for case, category in members[:last + 1]:
            result = _noted(self.run_case(case, category, self.ctx, lambda case=case: session.run(
                case.case.steps, captures, self.accept)), setup, failed_before, case.group)
            if _name(case) in self.results:
                self.results[_name(case)].set_result(result)
            failed_before += [] if result.passed else [_name(case)]
