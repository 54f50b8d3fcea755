"""``local``: no containment beyond a process group, a fixed environment and rlimits."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scbench.sandbox.base import HOST, Endpoint, Sandbox
from scbench.sandbox.process import HostProcess, Process, unsupported_host


class Local(Sandbox):
    """Runs commands as ordinary processes of the user: own session and process group, the
    given environment only, rlimits (memory, CPU time, file size) through ``prlimit``; the
    whole group and every descendant still carrying its environment marker is killed at the
    end. For machines with neither bwrap nor Docker."""

    name = "local"
    confines_network = False
    contains = ("processes: its own session and process group, killed with every descendant that keeps the "
                "run's environment marker",
                "files: a fresh working directory per case, HOME and TMPDIR inside it",
                "network: the host's, for set-up and cases alike",
                "uid: scbench's own user")
    gaps = ("reads and writes anywhere the user can, the home directory included",
            "connects to the network and to the host's loopback",
            "a descendant that clears its environment and leaves the session outlives its run",
            "no bound on the number of processes, nor on the memory of a whole tree")

    @classmethod
    def unavailable(cls) -> str:
        return unsupported_host() or ("" if shutil.which("prlimit") else "prlimit (util-linux) is not installed")

    def setup_environment(self, home: Path) -> dict[str, str]:
        """The host's whole environment, its HOME included: setup runs as the user would run it."""
        return dict(os.environ)

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        return HostProcess(self.limits.prlimit() + argv, cwd, env, stdin, self.limits.output_bytes)

    def serve(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              port: int) -> tuple[Process, Endpoint]:
        return self.spawn(argv, cwd, env, writable), Endpoint(HOST, port)
