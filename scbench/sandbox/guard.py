"""Kills a run's tree when scbench dies before it could (a SIGKILL leaves no ``finally``).

``python -S guard.py PGID [CGROUP_DIR...]``, started by the ``local`` level beside each run, in a session of its
own: it waits for its standard input to close. scbench writes ``done`` first when it ended the run itself; an
end without it means scbench died, and the guard SIGKILLs the run's process group and every process in its
cgroups (daemons included), then removes the cgroups. Standard library only.
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


if __name__ == "__main__":
    if sys.stdin.buffer.read() != b"done":
        kill_tree(int(sys.argv[1]), sys.argv[2:])
