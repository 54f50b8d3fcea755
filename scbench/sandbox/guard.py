"""Kills the runs' trees when scbench dies before it could (a SIGKILL leaves no ``finally``).

``python -S guard.py``, started by the ``local`` level once per sandbox, in a session of its own, reads lines on
its standard input: ``watch PGID [CGROUP_DIR...]`` when a run starts, ``forget PGID`` once scbench ended that run
itself. At the end of its input (the sandbox stopped, or scbench died) it SIGKILLs the process group and every
process in the cgroups of each run still watched (daemons included), and removes those cgroups. Standard
library only.
"""

import contextlib
import os
import signal
import sys
import time


def _members(cgroups: list[str]) -> list[int]:
    found = []
    for directory in cgroups:
        with contextlib.suppress(OSError), open(os.path.join(directory, "cgroup.procs")) as procs:
            found += [int(pid) for pid in procs.read().split()]
    return found


def kill_tree(group: int, cgroups: list[str]) -> None:
    """SIGKILL process group ``group`` and everything in ``cgroups`` until they are empty (up to 5 s), then
    remove the cgroups."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while (members := _members(cgroups)) and time.monotonic() < deadline:
        for pid in members:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    for directory in cgroups:
        with contextlib.suppress(OSError):
            os.rmdir(directory)


def still_watched(lines) -> dict[int, list[str]]:
    """The runs (process group -> cgroup directories) still watched when ``lines`` end."""
    watched: dict[int, list[str]] = {}
    for line in lines:
        verb, *words = line.split()
        if verb == "watch":
            watched[int(words[0])] = words[1:]
        else:
            del watched[int(words[0])]
    return watched


if __name__ == "__main__":
    for group, cgroups in still_watched(sys.stdin).items():
        kill_tree(group, cgroups)
