"""``local``: no containment beyond a process group, a fixed environment and rlimits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from scbench.sandbox.base import HOST, Endpoint, Sandbox
from scbench.sandbox.cgroup import Cgroup
from scbench.sandbox.process import HostProcess, Process, unsupported_host

GUARD = Path(__file__).with_name("guard.py")


def _guarded(process: HostProcess, cgroup: Cgroup | None) -> HostProcess:
    """``process`` with a guard (``guard.py``) that kills its group and cgroup should scbench die first; the
    process's end (its ``after_kill``) removes the cgroup, then tells the guard it is done."""
    dirs = [str(directory) for directory in cgroup.dirs] if cgroup else []
    guard = subprocess.Popen([sys.executable, "-S", str(GUARD), str(process.pid), *dirs], stdin=subprocess.PIPE,
                             start_new_session=True, env={})

    def ended() -> None:
        if cgroup:
            cgroup.remove()
        guard.communicate(b"done")

    process.after_kill = ended
    return process


class Local(Sandbox):
    """Runs commands as ordinary processes of the user: own session and process group, a cgroup where one is
    writable, the given environment only, rlimits (memory, CPU time, file size) through ``prlimit``; the
    whole group, the cgroup and every descendant still carrying its environment marker is killed at the
    end, and by a guard process should scbench be killed first. For machines with neither bwrap nor Docker."""

    name = "local"
    confines_network = False
    contained = False
    contains = ("processes: its own session, process group and (where one is writable) cgroup, killed with "
                "every descendant in them or that keeps the run's environment marker (and, should scbench be "
                "killed, the group and cgroup by a guard process)",
                "files: a fresh working directory per case, HOME and TMPDIR inside it",
                "network: the host's, for set-up and cases alike",
                "uid: scbench's own user")
    gaps = ("reads and writes anywhere the user can, the home directory included",
            "connects to the network and to the host's loopback",
            "without a writable cgroup, a descendant that clears its environment and leaves the session outlives "
            "its run, and the number of processes and the memory of a whole tree are not bounded",
            "a run as root may leave its cgroup")

    @classmethod
    def unavailable(cls) -> str:
        return unsupported_host() or ("" if shutil.which("prlimit") else "prlimit (util-linux) is not installed")

    def setup_environment(self, home: Path) -> dict[str, str]:
        """The host's whole environment, its HOME included: setup runs as the user would run it."""
        return dict(os.environ)

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        cgroup = self.cgroup()
        return _guarded(HostProcess([*(cgroup.prefix() if cgroup else []), *self.limits.prlimit(), *argv], cwd, env,
                                    stdin, self.limits.output_bytes), cgroup)

    def serve(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              port: int) -> tuple[Process, Endpoint]:
        return self.spawn(argv, cwd, env, writable), Endpoint(HOST, port)
