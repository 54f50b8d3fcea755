"""A batch: which jobs are current in the results tree, running the others on an engine, and
what became of each."""

from __future__ import annotations

import threading
from functools import cache

from scbench.batch.engines import ENGINES
from scbench.batch.resolve import Job
from scbench.batch.scheduler import Hooks, JobOutcome
from scbench.batch.store import Store, inputs_of
from scbench.batch.summary import Row
from scbench.content import digest as content_digest
from scbench.problem.bundle import Bundle


class Batch:
    """``jobs`` of the problems ``bundles`` against the results tree ``store``: those whose
    inputs are unchanged are ``resumed`` (not run again, unless ``rerun``), the others
    ``pending``; :meth:`run` runs them, :meth:`rows` says what became of every job."""

    def __init__(self, jobs: list[Job], bundles: dict[str, Bundle], store: Store, rerun: bool = False):
        digest = cache(content_digest)
        self.jobs, self.bundles, self.store = jobs, bundles, store
        self.inputs = {job.key: inputs_of(job, bundles[job.problem], digest) for job in jobs}
        self.resumed = {job.key for job in jobs if not rerun and store.current(job, self.inputs[job.key])}
        self.pending = [job for job in jobs if job.key not in self.resumed]
        self.outcomes: dict[str, JobOutcome] = {}
        self.lock = threading.Lock()

    def run(self, engine: str, workers: int | None, hooks: Hooks, address: str | None = None) -> int:
        """Run the pending jobs on ``engine`` (a name of ``ENGINES``) with ``workers`` cases at
        once (``None``: the engine's default), saving each finished job's results; ``hooks.done``
        is called after the save. Returns the cores the cases could use (0 when nothing was pending).
        Raises what the engine raises (``KeyboardInterrupt`` when interrupted: the jobs saved so far stay saved)."""
        chosen = ENGINES[engine]
        if not self.pending:  # everything is current: no engine to start (nor cluster to reach)
            return 0

        def done(outcome: JobOutcome) -> None:
            if outcome.results is not None:
                self.store.save(outcome.job, self.inputs[outcome.job.key], outcome.results)
            with self.lock:
                self.outcomes[outcome.job.key] = outcome
            hooks.done(outcome)

        return chosen.run(self.pending, self.bundles, workers or chosen.workers(), Hooks(done, hooks.case, hooks.note),
                   address)

    def rows(self) -> list[Row]:
        """One row per job that has results or an error, in plan order."""
        return [self._row(job) for job in self.jobs if job.key in self.resumed or job.key in self.outcomes]

    def _row(self, job: Job) -> Row:
        if job.key in self.resumed:
            return Row.of(job, "resumed", self.store.results(job))
        outcome = self.outcomes[job.key]
        return Row.of(job, "ran" if outcome.results else "setup failed", outcome.results, outcome.error)
