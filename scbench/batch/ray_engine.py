"""The Ray engine: one Ray task per job, spread over the nodes of a Ray cluster.

Each task gets the compiled bundle (put in the object store once per problem) and the job with
its solution and previous snapshot packed as tar archives (nodes need not share a filesystem);
on its node it unpacks them into a scratch directory and runs the local engine on that one job
(set-up cached per content on the node, the node's sandbox level, ``workers`` cases at once on
``workers`` reserved CPUs), and returns the outcome. The driver writes what comes back, as
the local engine does, so results are the local engine's: the same verdicts, figures and
``solution`` path; only timings, ``started`` and ``entry`` (paths on the node) differ.

Ray is an optional dependency (``pip install 'scbench[ray]'``); it is imported when a batch
uses this engine.
"""

from __future__ import annotations

import io
import logging
import socket
import tarfile
import tempfile
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from pathlib import Path

from scbench import content
from scbench.batch.resolve import Job
from scbench.batch.scheduler import Hooks, JobOutcome, run_local
from scbench.problem.bundle import Bundle

PROBE_TIMEOUT = 5.0
"""Seconds to wait for a TCP connection to a cluster's ``HOST:PORT`` before calling it unreachable."""


class ClusterUnreachable(Exception):
    """No Ray cluster answers at the address given; the message says which and why."""


def pack(directory: Path) -> bytes:
    """The content of ``directory`` (:func:`scbench.content.walk`, modes kept) as a gzipped tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in content.walk(directory):
            archive.add(path, arcname=str(path.relative_to(directory)), recursive=False)
    return buffer.getvalue()


def unpack(archive: bytes, directory: Path) -> Path:
    """Extract a :func:`pack` archive into ``directory`` (created); returns it. Members stay inside
    ``directory``; a symbolic link keeps its target, wherever it points (as the local engine copies
    it: only the sandbox resolves it)."""
    directory.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as opened:
        opened.extractall(directory, filter="tar")
    return directory


@dataclass(frozen=True)
class Shipment:
    """A job as sent to a node: the job itself and its solution and previous snapshot packed."""

    job: Job
    solution: bytes
    previous: bytes | None


@dataclass(frozen=True)
class Returned:
    """What a task sends back: the outcome of its job on the node, and the node's Ray id."""

    outcome: JobOutcome
    node: str


def evaluate_shipment(bundle: Bundle, shipment: Shipment, workers: int) -> Returned:
    """The body of one Ray task (runs on a node): unpack, run the local engine on the one job."""
    import ray
    outcomes: list[JobOutcome] = []
    with tempfile.TemporaryDirectory(prefix="scbench-ray-") as scratch:
        job = shipment.job
        previous = unpack(shipment.previous, Path(scratch) / "previous") if shipment.previous is not None else None
        local = replace(job, target=replace(job.target, solution=unpack(shipment.solution, Path(scratch) / "solution")),
                        previous=previous)
        run_local([local], {job.problem: bundle}, workers, Hooks(outcomes.append))
    outcome = outcomes[0]
    results = outcome.results and outcome.results.model_copy(update={"solution": str(job.target.solution)})
    return Returned(JobOutcome(job, results, outcome.error), ray.get_runtime_context().get_node_id())


def _connect(ray, address: str | None) -> None:
    """Connect to the cluster at ``address``; a ``HOST:PORT`` where nothing listens fails at once
    (Ray itself would keep retrying for minutes)."""
    host, _, port = (address or "").rpartition(":")
    try:
        if "://" not in (address or "://") and port.isdigit():
            socket.create_connection((host, int(port)), timeout=PROBE_TIMEOUT).close()
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False, configure_logging=True)
    except (ConnectionError, OSError) as error:
        raise ClusterUnreachable(f"no Ray cluster answers at {address or 'the default address'}: {error}") from None


class RayPool(Executor):
    """A ``concurrent.futures`` executor whose calls run as Ray tasks of one CPU each on the cluster at ``address``
    (as :func:`run_ray` finds it), connected on creation and disconnected by :meth:`shutdown`; the function and
    its arguments are pickled to the node, so they must not name paths only this machine has. Raises
    :class:`ClusterUnreachable`."""

    def __init__(self, address: str | None = None):
        import ray
        _connect(ray, address)
        self.ray = ray
        self.tasks: dict[Callable, object] = {}

    def submit(self, fn: Callable, /, *args, **kwargs) -> Future:
        """``fn(*args, **kwargs)`` as a task on the cluster; its future."""
        if fn not in self.tasks:
            self.tasks[fn] = self.ray.remote(fn).options(num_cpus=1)
        return self.tasks[fn].remote(*args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Disconnect from the cluster (tasks still running are cancelled by Ray)."""
        self.ray.shutdown()


def run_ray(jobs: list[Job], bundles: dict[str, Bundle], workers: int, hooks: Hooks,
            address: str | None = None) -> int:
    """The Ray engine: every job as a task of ``workers`` CPUs on the cluster at ``address``
    (``None``: ``RAY_ADDRESS``, else a cluster started on this machine, else a new local one).
    Returns the cluster's CPUs. Interrupted, it cancels the tasks not finished and re-raises. Raises
    :class:`ClusterUnreachable`."""
    import ray
    _connect(ray, address)
    try:
        bundle_refs = {name: ray.put(bundle) for name, bundle in bundles.items()}
        task = ray.remote(evaluate_shipment).options(num_cpus=workers, scheduling_strategy="SPREAD")
        pending = {task.remote(bundle_refs[job.problem], Shipment(job, pack(job.target.solution), job.previous and
                                                                  pack(job.previous)), workers): job for job in jobs}
        nodes = _collect(ray, pending, hooks)
        hooks.note(f"ray: {len(jobs)} evaluation(s) ran on {len(nodes)} node(s) of the cluster")
        return int(ray.cluster_resources().get("CPU", workers))
    finally:
        ray.shutdown()


def _collect(ray, pending: dict, hooks: Hooks) -> set[str]:
    nodes: set[str] = set()
    try:
        while pending:
            finished, _ = ray.wait(list(pending), num_returns=1)
            returned: Returned = ray.get(finished[0])
            pending.pop(finished[0])
            nodes.add(returned.node)
            for case in returned.outcome.results.cases if returned.outcome.results else ():
                hooks.case(returned.outcome.job, case)
            hooks.done(returned.outcome)
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    return nodes
