"""The sandbox interface every containment level implements, and the registry of levels.

A sandbox is started once for one solution at one checkpoint (or one agent run) and stopped
after; in between it runs commands (``spawn`` / ``exec``), serves one port of a command to the
host (``serve``) and copies files in and out. Paths are the same inside and outside: a sandbox
shows the host's ``visible`` paths read-only and each run's ``writable`` directory read-write at
the paths the host uses, so a runner writes inputs and reads outputs with ordinary file calls.
This is the shape of Harbor's and inspect_ai's environments (start, exec with a time limit and
an environment, copy in and out, stop).

A long-running command in a persistent directory (an agent working on its workspace): start a
level with the workspace's parent among ``writable`` (and ``network=True`` if the command must
reach an API), ``copy_in`` the workspace, ``own`` it, ``spawn`` the command with ``cwd`` the
workspace, an environment from ``base_environment`` plus ``host_variables(["API_KEY", ...])``,
and ``wait`` with its time limit; ``copy_out`` the workspace when done, then stop.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scbench.sandbox.limits import Limits
from scbench.sandbox.process import Process, ProcessResult

HOST = "127.0.0.1"
SETUP_VARIABLES = ("PIP_", "NPM_CONFIG_", "CARGO_", "RUSTUP_", "GOPROXY", "GOFLAGS", "SSL_CERT_",
                   "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy",
                   "https_proxy", "no_proxy")
"""Prefixes of the host variables track setup sees (package indexes, certificates, proxies)."""
DEFAULT_LIMITS = Limits()
RELAY = Path(__file__).with_name("relay.py")
"""The Unix-socket-to-loopback bridge that serves a port out of a sandbox with no network."""


@dataclass(frozen=True)
class Endpoint:
    """Where the host reaches a served port: TCP ``host:port``, or through the Unix socket
    ``uds`` (requests still name ``host:port``, which is where the server listens inside)."""

    host: str
    port: int
    uds: str | None = None

    def connect(self, timeout: float) -> socket.socket:
        """A connected socket to the served port. Raises ``OSError`` when nothing listens."""
        family, address = (socket.AF_UNIX, self.uds) if self.uds else (socket.AF_INET, (self.host, self.port))
        sock = socket.socket(family)
        sock.settimeout(timeout)
        try:
            sock.connect(address)
        except OSError:
            sock.close()
            raise
        return sock


class Sandbox(ABC):
    """One containment level. ``limits`` apply to every run; ``visible`` paths are shown
    read-only and ``writable`` ones read-write (besides ``scratch``, a fresh directory that
    holds the runs' own directories); ``network`` lets runs reach the network (track setup
    only); up to ``parallel`` runs happen at once. Used as a context manager (``start`` /
    ``stop``). ``gaps`` says plainly what the level does not contain; ``python`` is the
    interpreter track setup uses inside; ``owner`` the uid and gid runs write as, when they
    differ from scbench's own; ``tracks`` the tracks it has toolchains for (``None``: the host's)."""

    name: ClassVar[str]
    gaps: ClassVar[tuple[str, ...]] = ()
    python: ClassVar[str] = sys.executable
    owner: ClassVar[tuple[int, int] | None] = None
    tracks: ClassVar[tuple[str, ...] | None] = None

    def __init__(self, limits: Limits = DEFAULT_LIMITS, visible: Sequence[Path] = (), network: bool = False,
                 writable: Sequence[Path] = (), parallel: int = 1):
        self.limits = limits
        self.visible = tuple(visible)
        self.network = network
        self.writable = tuple(writable)
        self.parallel = parallel
        self.scratch: Path | None = None

    @classmethod
    @abstractmethod
    def unavailable(cls) -> str:
        """Why this level cannot be used on this machine (``""`` when it can)."""

    @property
    def description(self) -> str:
        """What this sandbox contains, as recorded in ``results.json``: its name and details."""
        return self.name

    @classmethod
    def setup_key(cls) -> str:
        """Identifies where set-up products run: levels with the same key share them."""
        return "host"

    def setup_environment(self, home: Path) -> dict[str, str]:
        """The environment of track setup: ``PATH``, ``HOME`` (a scratch ``home``), a UTF-8
        locale, and the host's variables named in ``SETUP_VARIABLES`` (package index and proxy
        settings)."""
        passed = {name: value for name, value in os.environ.items() if name.startswith(SETUP_VARIABLES)}
        return {**passed, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}

    def start(self) -> Sandbox:
        """Make the sandbox ready to run commands (a fresh ``scratch``); returns it."""
        self.scratch = Path(tempfile.mkdtemp(prefix="scbench-"))
        return self

    def stop(self) -> None:
        """Tear the sandbox down; nothing it started survives, ``scratch`` is removed."""
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @abstractmethod
    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        """Start ``argv`` in ``cwd`` (inside ``writable``) with exactly ``env`` and the limits.
        Raises ``OSError`` when the command cannot be started."""

    def exec(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path, stdin: bytes | None,
             timeout: float) -> ProcessResult:
        """Run ``argv`` to completion or ``timeout`` seconds; the whole tree is gone after."""
        return self.spawn(argv, cwd, env, writable, stdin).wait(timeout)

    def serve(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              port: int) -> tuple[Process, Endpoint]:
        """Start a server that listens on ``port`` of the sandbox's loopback, and say where the
        host reaches it. Sandboxes without network bridge the port to a Unix socket in
        ``writable`` (see ``relay.py``)."""
        uds = str(writable / "port.sock")
        # One shell, two processes: ``"$0" -S "$1" "$2" "$3" &`` starts the relay (this Python, -S, relay.py,
        # the socket, the port) in the background; ``shift 3`` drops the relay's arguments, so ``exec "$@"``
        # replaces the shell with the server itself. The server is then the process the sandbox waits for and
        # kills, and the relay, started in the same sandbox, dies with its tree.
        wrapped = ["sh", "-c", '"$0" -S "$1" "$2" "$3" & shift 3; exec "$@"', self.python, str(RELAY), uds, str(port),
                   *argv]
        return self.spawn(wrapped, cwd, env, writable), Endpoint(HOST, port, uds)

    def own(self, path: Path) -> None:
        """Make ``path`` (a tree under a run's writable dir) writable by the runs: give it and
        everything under it to ``owner``, if that is another user."""
        if self.owner is None:
            return
        os.lchown(path, *self.owner)
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                os.lchown(os.path.join(root, name), *self.owner)

    def copy_in(self, source: Path, target: Path) -> None:
        """Copy the file or tree ``source`` of the host to ``target`` in the sandbox (links as links)."""
        copy(source, target)

    def copy_out(self, source: Path, target: Path) -> None:
        """Copy the file or tree ``source`` of the sandbox to ``target`` on the host; a link the run
        left is copied as a link, never followed on the host."""
        copy(source, target)


def copy(source: Path, target: Path) -> None:
    """Copy the file or tree ``source`` to ``target``, symbolic links as links (none followed)."""
    if source.is_dir() and not source.is_symlink():
        shutil.copytree(source, target, symlinks=True)
    else:
        shutil.copy2(source, target, follow_symlinks=False)


def host_variables(names: Iterable[str]) -> dict[str, str]:
    """The host's values of the environment variables ``names`` that it has: how a run gets
    a credential or a setting passed in by name, without the rest of the host's environment."""
    return {name: os.environ[name] for name in names if name in os.environ}
