"""``bwrap``: each run in fresh namespaces with bubblewrap.

Every run gets its own PID namespace (the tree dies with its first process, whatever it does
to its session, group or environment), network namespace (only a private loopback; a served
port is bridged to the host through a Unix socket, and a run allowed hosts reaches them only
through the egress proxy), an empty root with the system directories, the toolchains and
``visible`` paths read-only, its ``writable`` directory read-write, a private ``/tmp`` and
``/dev/shm``, and nothing of the user's home. Limits: rlimits, plus a cgroup per run (memory,
processes) where one is writable.

Its identity: under root, bwrap makes the namespaces as root (no user namespace, which would map
the run to root outside) and ``setpriv`` then drops the run to :data:`RUN_UID`, an unused uid,
with no capability, no supplementary group and ``no_new_privs``: it reads only what every user
may read (not ``/etc/shadow``, not private keys) and owns nothing on the host. Under another
user, a user namespace maps the run (uid 1000 inside) to that user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

from scbench.sandbox.base import RELAY, RUN_OWNER, RUN_UID, Sandbox, run_uid_refusal
from scbench.sandbox.cgroup import hierarchies
from scbench.sandbox.process import HostProcess, Process

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Host directories every run sees read-only (symlinks among them are recreated as symlinks)."""

NAMESPACE_UID = 1000
"""The uid a run has inside its user namespace, when scbench does not run as root."""
PRIVILEGED = RUN_OWNER is not None
"""scbench runs as root: namespaces are made as root and the run drops to :data:`RUN_UID`."""


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


def _identity() -> list[str]:
    """bwrap's options for who the run is (see the module docstring); every namespace but the user one is new."""
    if PRIVILEGED:
        return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return ["--unshare-all", "--unshare-user", "--uid", str(NAMESPACE_UID), "--gid", str(NAMESPACE_UID)]


def _drop() -> list[str]:
    """The command prefix that drops a run started as root to :data:`RUN_UID` for good."""
    if not PRIVILEGED:
        return []
    return ["setpriv", f"--reuid={RUN_UID}", f"--regid={RUN_UID}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--"]


def _parents(paths: list[str]) -> list[str]:
    """Options making each missing parent of ``paths`` (outside the system directories) a directory every
    user may traverse: bwrap would make it ``0700`` like a home, which a run as :data:`RUN_UID` cannot enter."""
    parents = {str(parent) for path in paths for parent in Path(path).parents
               if str(parent) != "/" and not str(parent).startswith(SYSTEM)}
    return [arg for parent in sorted(parents, key=lambda p: (p.count("/"), p)) for arg in ("--perms", "0755",
                                                                                          "--dir", parent)]


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
    owner = RUN_OWNER
    contains = ("processes: a PID namespace per run; the whole tree dies with the run",
                "files: an empty root with the system directories and toolchains read-only, the run's own "
                "directory writable, a private /tmp; nothing of the home",
                "network: none for cases; set-up (and agents) reach only their allowed hosts over HTTPS, "
                "through the egress proxy",
                f"uid: {RUN_UID}, no account of this machine, no capabilities (under root); the user itself "
                f"in a user namespace (otherwise)",
                "toolchains: the host's, read-only (those of /usr and of PATH; rustup's with RUSTUP_HOME set)")
    gaps = ("the system directories (/usr, /etc, /opt) and the toolchains are readable where every user may "
            "read them",
            "without a writable cgroup, the process count and a tree's total memory are not bounded")

    @classmethod
    def unavailable(cls) -> str:
        if not shutil.which("bwrap"):
            return "bubblewrap is not installed (apt-get install bubblewrap)"
        if PRIVILEGED and not shutil.which("setpriv"):
            return "setpriv (util-linux) is not installed: under root, runs drop to an unused uid with it"
        probe = subprocess.run(["bwrap", *_identity(), "--ro-bind", "/", "/", "--", *_drop(), "true"],
                               capture_output=True, text=True, check=False)
        if probe.returncode:
            return f"bwrap cannot create namespaces here: {probe.stderr.strip()}"
        return run_uid_refusal()

    @property
    def description(self) -> str:
        return f"bwrap ({'cgroup' if hierarchies() else 'rlimits only'})"

    def setup_environment(self, home: Path) -> dict[str, str]:
        """As for every level, plus ``RUSTUP_HOME`` pointing at the host's toolchains (rustup
        looks for them under ``HOME``, which setup does not see)."""
        return {"RUSTUP_HOME": rustup_home(), **super().setup_environment(home)}

    def run_variables(self) -> dict[str, str]:
        """``RUSTUP_HOME`` pointing at the host's toolchains, shown read-only, when there are some: a run's
        ``HOME`` is a scratch directory, so rustup's ``cargo`` (a harness-owned step building generated code)
        would find none."""
        return {"RUSTUP_HOME": rustup_home()} if Path(rustup_home()).is_dir() else {}

    def _argv(self, argv: list[str], cwd: Path, writable: Path) -> list[str]:
        shown = [*toolchains(), str(RELAY), *map(str, self.visible)]
        written = list(dict.fromkeys([*map(str, self.writable), str(writable),
                                      *([self.egress.server_address] if self.egress else [])]))
        args = ["bwrap", *_identity(), "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev",
                "--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/dev/shm", *_system_view(),
                *_parents(shown + written)]
        for path in shown:
            args += ["--ro-bind-try", path, path]
        for path in written:
            args += ["--bind", path, path]
        return [*args, "--chdir", str(cwd), "--", *_drop(), *self.limits.prlimit(), *argv]

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        cgroup = self.cgroup()
        prefix = cgroup.prefix() if cgroup else []
        argv, env = self.reaching(argv, env)
        return HostProcess(prefix + self._argv(argv, cwd, writable), cwd, env, stdin, self.limits.output_bytes,
                           shell_status=True, after_kill=cgroup.remove if cgroup else None, contained=True)
