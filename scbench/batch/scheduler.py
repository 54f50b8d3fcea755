"""The local engine: one case-level scheduler that runs the cases of many jobs on one pool.

``workers`` threads take the next task from one queue: a case of an opened job, or the opening
of the next job (set up, sandbox started) whenever fewer cases are queued than there are
workers, so every worker stays busy from the first case to the last and no job leaves an idle
tail. Cases of a job are queued in suite order and taken first in, first out, so jobs finish in
plan order and few sandboxes are open at once. The worker that finishes a job's last case
stops its sandbox, measures its quality and hands the outcome on (the store writes it). A
snapshot is measured once, though it is a job's solution and the next checkpoint's previous.

Interrupted (``KeyboardInterrupt`` in the thread calling :meth:`Scheduler.run`), the scheduler
starts nothing new, lets the running cases finish, stops every sandbox and re-raises; jobs
that were not finished are dropped whole.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, partial

from scbench.batch.resolve import Job
from scbench.evaluate.session import Evaluation, with_quality
from scbench.problem.bundle import Bundle
from scbench.quality.measure import measure
from scbench.results import CaseResult, RunResults
from scbench.run.tracks import SetupError

MEASURED = 64
JOIN_SLICE = 0.1
"""Seconds the calling thread waits on a worker at a time: the kernel may hand Ctrl-C to a worker thread, and
Python runs the handler (raising ``KeyboardInterrupt``) only when the calling thread next runs Python code."""
"""Quality reports a scheduler keeps, newest first: jobs finish about in plan order, so a job's
previous snapshot was measured as the job before's solution a moment ago."""


@dataclass(frozen=True)
class JobOutcome:
    """How a job ended: its results (quality measured), or why it could not be set up."""

    job: Job
    results: RunResults | None = None
    error: str = ""


@dataclass(frozen=True)
class Hooks:
    """What an engine reports as it goes: every finished job (``done``, from any thread), every
    finished case (``case``, for progress) and notes for the user (``note``)."""

    done: Callable[[JobOutcome], None]
    case: Callable[[Job, CaseResult], None] = lambda job, result: None
    note: Callable[[str], None] = lambda text: None


@dataclass
class _Opened:
    job: Job
    evaluation: Evaluation
    cases: list[CaseResult | None]
    remaining: int = field(init=False)

    def __post_init__(self) -> None:
        self.remaining = len(self.cases)


class Scheduler:
    """Runs ``jobs`` (of the problems ``bundles``) with ``workers`` cases at once; see the module
    docstring. Exceptions other than a failed setup stop the run and are raised by :meth:`run`."""

    def __init__(self, jobs: list[Job], bundles: dict[str, Bundle], workers: int, hooks: Hooks):
        self.pending = deque(jobs)
        self.bundles, self.workers, self.hooks = bundles, workers, hooks
        self.ready: deque[tuple[_Opened, int]] = deque()
        self.opened: list[_Opened] = []
        self.opening = 0
        self.stopping = False
        self.failure: BaseException | None = None
        self.lock = threading.Condition()
        self.measured = lru_cache(maxsize=MEASURED)(measure)

    def run(self) -> None:
        """Run every job to its outcome (or until interrupted); returns when all are done."""
        threads = [threading.Thread(target=self._work, daemon=True, name=f"batch-{n}") for n in range(self.workers)]
        for thread in threads:
            thread.start()
        try:
            self._join(threads)
        except KeyboardInterrupt:
            self.hooks.note("interrupted: finishing the cases that are running (Ctrl-C again to stop at once)")
            self._stop()
            self._join(threads)
            raise
        finally:
            for opened in self.opened:
                opened.evaluation.__exit__(None, None, None)
        if self.failure is not None:
            raise self.failure

    @staticmethod
    def _join(threads: list[threading.Thread]) -> None:
        for thread in threads:
            while thread.is_alive():
                thread.join(JOIN_SLICE)

    def _stop(self, failure: BaseException | None = None) -> None:
        with self.lock:
            self.stopping = True
            self.failure = self.failure or failure
            self.lock.notify_all()

    def _work(self) -> None:
        while (task := self._next()) is not None:
            try:
                task()
            except BaseException as error:  # handed to run(), which raises it in the calling thread
                self._stop(error)

    def _next(self) -> Callable[[], None] | None:
        with self.lock:
            while True:
                if self.stopping:
                    return None
                if self.ready and (len(self.ready) >= self.workers or not self.pending):
                    return partial(self._case, *self.ready.popleft())
                if self.pending:
                    self.opening += 1
                    return partial(self._open, self.pending.popleft())
                if not self.opening:
                    return None
                self.lock.wait()

    def _open(self, job: Job) -> None:
        try:
            evaluation = Evaluation(self.bundles[job.problem], job.checkpoint, job.target, self.workers).__enter__()
        except SetupError as error:
            self.hooks.done(JobOutcome(job, error=str(error)))
            return
        finally:
            with self.lock:
                self.opening -= 1
                self.lock.notify_all()
        opened = _Opened(job, evaluation, [None] * len(evaluation.suite))
        with self.lock:
            self.opened.append(opened)
            self.ready.extend((opened, index) for index in range(len(evaluation.suite)))
            self.lock.notify_all()
        if not evaluation.suite:
            self._close(opened)

    def _case(self, opened: _Opened, index: int) -> None:
        result = opened.evaluation.run(opened.evaluation.suite[index])
        self.hooks.case(opened.job, result)
        with self.lock:
            opened.cases[index] = result
            opened.remaining -= 1
            last = not opened.remaining
        if last:
            self._close(opened)

    def _close(self, opened: _Opened) -> None:
        with self.lock:
            self.opened.remove(opened)
        opened.evaluation.__exit__(None, None, None)
        results = opened.evaluation.results([case for case in opened.cases if case is not None])
        self.hooks.done(JobOutcome(opened.job, with_quality(results, opened.job.target.solution, opened.job.previous,
                                                         self.measured)))


def run_local(jobs: list[Job], bundles: dict[str, Bundle], workers: int, hooks: Hooks,
              address: str | None = None) -> int:
    """The local engine: every job on this machine through one :class:`Scheduler` of ``workers``
    threads (``address`` is the Ray engine's and unused here). Returns the cores the cases could use:
    ``workers`` or this process's CPUs, whichever is fewer."""
    Scheduler(jobs, bundles, workers, hooks).run()
    return min(workers, len(os.sched_getaffinity(0)))
