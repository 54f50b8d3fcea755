"""``local``: no containment beyond a process group, a fixed environment and rlimits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from scbench.sandbox.base import HOST, Endpoint, Sandbox
from scbench.sandbox.process import HostProcess, Process, unsupported_host

GUARD = Path(__file__).with_name("guard.py")


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
                "uid: scbench's own user",
                "toolchains: the host's")
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

    def start(self) -> Local:
        """As every level starts, plus the guard (``guard.py``, one per sandbox, in a session of its own) that
        kills the runs still going when the sandbox stops or scbench dies first."""
        super().start()
        self.guard = subprocess.Popen([sys.executable, "-S", str(GUARD)], stdin=subprocess.PIPE,
                                      start_new_session=True, env={})
        return self

    def stop(self) -> None:
        self.guard.communicate()
        super().stop()

    def _tell(self, *words: object) -> None:
        """One line to the guard, in one write (atomic on a pipe: runs start and end on many threads)."""
        os.write(self.guard.stdin.fileno(), (" ".join(map(str, words)) + "\n").encode())

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        """Start ``argv`` in a fresh cgroup (where one is writable), watched by the guard until its tree is
        killed (then the cgroup is removed and the guard told to forget it). In a cgroup, its descendants are
        the cgroup's tasks, killed with it: ``/proc`` is not searched for its environment marker."""
        cgroup = self.cgroup()
        process = HostProcess([*(cgroup.prefix() if cgroup else []), *self.limits.prlimit(), *argv], cwd, env,
                              stdin, self.limits.output_bytes, contained=cgroup is not None)
        self._tell("watch", process.pid, *(cgroup.dirs if cgroup else []))

        def ended() -> None:
            if cgroup:
                cgroup.remove()
            self._tell("forget", process.pid)

        process.after_kill = ended
        return process

    def serve(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              port: int) -> tuple[Process, Endpoint]:
        return self.spawn(argv, cwd, env, writable), Endpoint(HOST, port)
