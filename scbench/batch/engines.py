"""Batch engines by name: how a list of jobs is run (``scbench batch --engine NAME``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass

from scbench.batch.ray_engine import RayPool, run_ray
from scbench.batch.scheduler import run_local
from scbench.evaluate.session import default_jobs


@dataclass(frozen=True)
class Engine:
    """``run(jobs, bundles, workers, hooks, address)`` runs every job, reports through the hooks and returns the
    cores the cases could use;
    ``unavailable()`` says why it cannot be used here (``""`` when it can); ``workers()`` is the
    default number of cases run at once (per machine for local, per task for Ray); ``pool(jobs, address)`` an
    executor of the engine for other work than jobs (``scbench calibrate``'s measurements): ``jobs`` processes
    here (``None``: the CPU count), or the cluster at ``address``."""

    run: Callable
    unavailable: Callable[[], str]
    workers: Callable[[], int]
    pool: Callable[[int | None, str | None], Executor]


def _ray_missing() -> str:
    return "" if importlib.util.find_spec("ray") else "Ray is not installed: pip install 'scbench[ray]'"


ENGINES: dict[str, Engine] = {
    "local": Engine(run_local, lambda: "", default_jobs, lambda jobs, address: ProcessPoolExecutor(jobs)),
    "ray": Engine(run_ray, _ray_missing, lambda: 1, lambda jobs, address: RayPool(address)),
}
"""Engine name -> :class:`Engine`; add an engine by adding an entry."""
