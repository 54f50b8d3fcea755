"""``bwrap``: each run in fresh namespaces with bubblewrap.

Every run gets its own PID namespace (the tree dies with its first process, whatever it does
to its session, group or environment), network namespace (only a private loopback; a served
port is bridged to the host through a Unix socket), user namespace (uid 1000, no
capabilities), an empty root with the system directories, the toolchains and ``visible`` paths
read-only, its ``writable`` directory read-write, a private ``/tmp``, and nothing of the
user's home. Limits: rlimits, plus a cgroup per run (memory, processes) where one is writable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

from scbench.sandbox.base import RELAY, Sandbox
from scbench.sandbox.cgroup import Cgroup, hierarchies
from scbench.sandbox.process import HostProcess, Process

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Host directories every run sees read-only (symlinks among them are recreated as symlinks)."""

SANDBOX_UID = 1000


def rustup_home() -> str:
    """Where rustup keeps its toolchains (``RUSTUP_HOME``, by default ``~/.rustup``)."""
    return os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup"))


@cache
def toolchains() -> tuple[str, ...]:
    """Host directories outside ``SYSTEM`` that runs need read-only: this Python (its
    environment and its base installation, where track setup's ``{python}`` lives) and the
    directories of ``PATH`` (e.g. ``~/.cargo/bin``) with rustup's toolchains, when they exist.
    Version managers' ``shims`` directories are left out: their scripts need the manager's own
    home, and a command missing from them is looked up further along ``PATH``."""
    paths = [sys.prefix, sys.base_prefix, *os.environ.get("PATH", "").split(os.pathsep), rustup_home()]
    real = {str(Path(path).resolve()) for path in paths if path and Path(path).is_dir() and Path(path).name != "shims"}
    return tuple(sorted(path for path in real if not path.startswith(SYSTEM)))


def _system_view() -> list[str]:
    args = []
    for path in SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


class Bwrap(Sandbox):
    """Runs each command in its own bubblewrap sandbox (see the module docstring)."""

    name = "bwrap"
    gaps = ("the system directories (/usr, /etc, /opt) and the toolchains are readable",
            "without a writable cgroup, the process count and a tree's total memory are not bounded")

    @classmethod
    def unavailable(cls) -> str:
        if not shutil.which("bwrap"):
            return "bubblewrap is not installed (apt-get install bubblewrap)"
        probe = subprocess.run(["bwrap", "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "true"],
                               capture_output=True, text=True, check=False)
        return f"bwrap cannot create namespaces here: {probe.stderr.strip()}" if probe.returncode else ""

    @property
    def description(self) -> str:
        return f"bwrap ({'cgroup' if hierarchies() else 'rlimits only'})"

    def setup_environment(self, home: Path) -> dict[str, str]:
        """As for every level, plus ``RUSTUP_HOME`` pointing at the host's toolchains (rustup
        looks for them under ``HOME``, which setup does not see)."""
        return {"RUSTUP_HOME": rustup_home(), **super().setup_environment(home)}

    def _argv(self, argv: list[str], cwd: Path, writable: Path) -> list[str]:
        args = ["bwrap", "--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
                "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                *_system_view()]
        if self.network:
            args.append("--share-net")
        for path in (*toolchains(), str(RELAY), *map(str, self.visible)):
            args += ["--ro-bind-try", path, path]
        for path in dict.fromkeys([*map(str, self.writable), str(writable)]):
            args += ["--bind", path, path]
        return [*args, "--chdir", str(cwd), "--", *self.limits.prlimit(), *argv]

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        cgroup = Cgroup(self.limits.memory_mb * 1024 * 1024, self.limits.processes) if hierarchies() else None
        prefix = cgroup.prefix() if cgroup else []
        return HostProcess(prefix + self._argv(argv, cwd, writable), cwd, env, stdin, self.limits.output_bytes,
                           shell_status=True, after_kill=cgroup.remove if cgroup else None, contained=True)
