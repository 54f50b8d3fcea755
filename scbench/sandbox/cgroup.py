"""A cgroup per run (memory and process count of the whole tree), where one is writable.

cgroup v2 (one hierarchy, ``memory.max`` and ``pids.max``) or v1 (``memory`` and ``pids``
hierarchies). Runs get ``scbench/<id>`` below the root; a command joins it through a shell
prefix before it starts anything (:meth:`Cgroup.prefix`), so no child escapes the limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from functools import cache
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
V1 = {ROOT / "memory" / "scbench": {"memory": "memory.limit_in_bytes"}, ROOT / "pids" / "scbench": {"pids": "pids.max"}}
V2 = {ROOT / "scbench": {"memory": "memory.max", "pids": "pids.max"}}
"""Parent cgroup of the runs -> limit -> the file that sets it, for cgroup v1 and v2."""


@cache
def hierarchies() -> dict[Path, dict[str, str]]:
    """The parents of :data:`V2` (when this machine has a unified hierarchy with memory and
    pids) or of :data:`V1`, created on first use; empty when they are not writable here."""
    unified = set(_read(ROOT / "cgroup.controllers").split()) >= {"memory", "pids"}
    if unified and not all(_write(path, "+memory +pids") for path in (ROOT / "cgroup.subtree_control",)):
        return {}
    layout = V2 if unified else V1
    ready = all(_make(parent) for parent in layout) and (
        not unified or _write(ROOT / "scbench" / "cgroup.subtree_control", "+memory +pids"))
    return layout if ready else {}


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _make(path: Path) -> bool:
    try:
        path.mkdir(exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK)


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


class Cgroup:
    """One run's cgroups (one per hierarchy) limited to ``memory`` bytes and ``pids`` tasks."""

    def __init__(self, memory: int, pids: int):
        name = uuid.uuid4().hex
        values = {"memory": memory, "pids": pids}
        self.dirs = [parent / name for parent in hierarchies()]
        for directory, files in zip(self.dirs, hierarchies().values(), strict=True):
            directory.mkdir()
            for limit, file in files.items():
                (directory / file).write_text(str(values[limit]))

    def prefix(self) -> list[str]:
        """A command prefix that moves the shell into these cgroups, then execs the rest."""
        joins = "".join(f'echo $$ > {directory / "cgroup.procs"} || exit 125; ' for directory in self.dirs)
        return ["sh", "-c", joins + 'exec "$@"', "sh"]

    def remove(self) -> None:
        """SIGKILL every task left in the cgroups and remove them (waiting up to 2 s for the
        tasks to be gone)."""
        deadline = time.monotonic() + 2.0
        for directory in self.dirs:
            while directory.exists() and time.monotonic() < deadline:
                for pid in _read(directory / "cgroup.procs").split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
                with contextlib.suppress(OSError):
                    directory.rmdir()
                time.sleep(0.001 if directory.exists() else 0)
