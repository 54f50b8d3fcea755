"""Persistent environments: named snapshots of files that runs start from and, by their mode, commit to."""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from errors import ApiError, invalid
from runner import write_files


@dataclass(frozen=True)
class Mode:
    """What a concurrency mode does: whether runs start from the current snapshot and commit to it, and
    whether runs may overlap."""

    commits: bool
    overlaps: bool


MODES = {"never": Mode(commits=True, overlaps=False), "fork": Mode(commits=True, overlaps=True),
         "base": Mode(commits=False, overlaps=True)}
"""Each concurrency mode by name."""


def mode_of(value) -> str:
    if not isinstance(value, str) or value not in MODES:
        raise invalid("concurrency_mode must be one of never, fork, base", "INVALID_CONCURRENCY_MODE")
    return value


class Environment:
    """One environment: its base snapshot (never changed), its current snapshot, the runs in progress, and
    the scratch directory their working directories go in."""

    def __init__(self, name: str, mode: str, base: Path, scratch: Path):
        self.name = name
        self.mode = mode
        self._scratch = scratch
        self._base = base
        self._current = base
        self._active = 0
        self._lock = threading.Lock()

    def _start(self, work: Path) -> str:
        """Copy the snapshot a new run starts from into ``work``; its ``snapshot_source``."""
        mode = MODES[self.mode]
        with self._lock:
            if self._active and not mode.overlaps:
                raise ApiError(423, "ENVIRONMENT_IN_USE", f"environment {self.name!r} has a run in progress")
            shutil.copytree(self._current if mode.commits else self._base, work, dirs_exist_ok=True)
            source = "base" if not mode.commits else "current" if self._active else "exclusive"
            self._active += 1
        return source

    def _end(self, work: Path, succeeded: bool) -> None:
        """Commit ``work`` as the current snapshot when the mode commits a run that succeeded, else
        remove it."""
        commit = succeeded and MODES[self.mode].commits
        with self._lock:
            self._active -= 1
            if commit:  # the run becomes the current snapshot; the snapshot it replaces is removed
                work, self._current = self._current, work
        if work != self._base:
            shutil.rmtree(work, ignore_errors=True)

    @contextmanager
    def run(self) -> Iterator[tuple[Path, dict]]:
        """A working directory holding the snapshot this run starts from, and the answer's
        ``environment`` object; on a normal exit the run is committed or thrown away by the mode, on an
        exception thrown away. Raises ``ApiError`` (423) when a ``never`` environment has a run in progress."""
        work = Path(tempfile.mkdtemp(prefix="run-", dir=self._scratch))
        try:
            source = self._start(work)
        except ApiError:
            shutil.rmtree(work)
            raise
        succeeded = False
        try:
            yield work, {"name": self.name, "snapshot_source": source, "committed": MODES[self.mode].commits}
            succeeded = True
        finally:
            self._end(work, succeeded)


class Environments:
    """Every environment of the service by name, their snapshots under one scratch directory."""

    def __init__(self) -> None:
        self.scratch = Path(tempfile.mkdtemp(prefix="environments-"))
        self._lock = threading.Lock()
        self._by_name: dict[str, Environment] = {}

    def create(self, name: str, mode: str, files: dict[str, object]) -> dict[str, int]:
        """Write ``files`` as the base snapshot of a new environment; bytes written per path. Raises
        ``ApiError``: 400 for a refused file, 404 when ``name`` is taken (nothing changes)."""
        base = Path(tempfile.mkdtemp(prefix="base-", dir=self.scratch))
        try:
            written = write_files(base, files)
            with self._lock:
                if name in self._by_name:
                    raise ApiError(404, "ENVIRONMENT_EXISTS", f"environment {name!r} already exists")
                self._by_name[name] = Environment(name, mode, base, self.scratch)
        except ApiError:
            shutil.rmtree(base)
            raise
        return written

    def get(self, name: str) -> Environment:
        """The environment called ``name``; raises ``ApiError`` (404) when there is none."""
        with self._lock:
            found = self._by_name.get(name)
        if found is None:
            raise ApiError(404, "ENVIRONMENT_NOT_FOUND", f"no environment {name!r}")
        return found
