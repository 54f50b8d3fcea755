"""The results tree of a batch: per job ``results.json``, ``junit.xml`` and ``inputs.json``.

``inputs.json`` records what the results were computed from (the digests of the solution's
content, of its previous snapshot and of the bundle, and how it ran); a job whose inputs are
unchanged is current and is not run again. Every file is written to a temporary name in its
directory and renamed over the old one, and ``inputs.json`` last, so a process killed at any
moment (SIGKILL included) leaves each file whole, old or new, and a job whose writing was cut
short is not current.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from scbench.batch.resolve import Job
from scbench.evaluate.junit import write_junit
from scbench.problem.bundle import Bundle
from scbench.results import RunResults

INPUTS = "inputs.json"
RESULTS = "results.json"
JUNIT = "junit.xml"
TEMPORARY = ".tmp"


def inputs_of(job: Job, bundle: Bundle, digest: Callable[[Path], str]) -> dict[str, str | None]:
    """What ``job``'s results depend on: ``bundle``'s digest, ``digest`` of its solution and of its
    previous snapshot (``None`` without one), its track, entry command and sandbox level asked for."""
    target = job.target
    return {"bundle": bundle.digest, "solution": digest(target.solution),
            "previous": digest(job.previous) if job.previous else None,
            "track": target.track, "entry": target.entry, "sandbox": target.sandbox}


@contextlib.contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """A temporary path next to ``path`` to write; renamed over ``path`` when the block ends,
    removed if it raises."""
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY)
    os.close(handle)
    try:
        yield Path(name)
        os.replace(name, path)
    finally:
        Path(name).unlink(missing_ok=True)


class Store:
    """The results tree under ``root``: ``root/PROBLEM/NAME/checkpoint_N/`` per job."""

    def __init__(self, root: Path):
        self.root = root

    def directory(self, job: Job) -> Path:
        return self.root / job.key

    def current(self, job: Job, inputs: dict[str, str | None]) -> bool:
        """Whether ``job`` has results computed from exactly ``inputs``."""
        directory = self.directory(job)
        recorded = directory / INPUTS
        return recorded.is_file() and (directory / RESULTS).is_file() and json.loads(recorded.read_text()) == inputs

    def results(self, job: Job) -> RunResults:
        """The results stored for ``job``. Raises ``OSError`` when it has none."""
        return RunResults.model_validate_json((self.directory(job) / RESULTS).read_bytes())

    def save(self, job: Job, inputs: dict[str, str | None], results: RunResults) -> None:
        """Write ``results`` (JSON and JUnit) then ``inputs``, each atomically; temporary files a
        killed run left in the job's directory are removed first."""
        directory = self.directory(job)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob(f".*{TEMPORARY}"):
            stale.unlink()
        (directory / INPUTS).unlink(missing_ok=True)
        with atomic(directory / RESULTS) as path:
            path.write_text(results.model_dump_json(indent=2))
        with atomic(directory / JUNIT) as path:
            write_junit(results, path)
        with atomic(directory / INPUTS) as path:
            path.write_text(json.dumps(inputs, indent=2))
