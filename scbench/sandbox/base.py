"""The sandbox interface every containment level implements, and the registry of levels.

A sandbox is started once for one solution at one checkpoint (or one agent run) and stopped
after; in between it runs commands (``spawn`` / ``exec``), serves one port of a command to the
host (``serve``) and copies files in and out. Paths are the same inside and outside: a sandbox
shows the host's ``visible`` paths read-only and each run's ``writable`` directory read-write at
the paths the host uses, so a runner writes inputs and reads outputs with ordinary file calls.
This is the shape of Harbor's and inspect_ai's environments (start, exec with a time limit and
an environment, copy in and out, stop).

A run that must reach the network (a track's set-up fetching packages, an agent calling its API)
names the hosts it may reach in ``network``: a contained level still gives it no network of its own,
only a way out through the host's egress proxy to those hosts (:mod:`scbench.sandbox.egress`).

A long-running command in a persistent directory (an agent working on its workspace): start a
level with the workspace's parent among ``writable`` (and ``network`` naming the hosts of the API
the command calls), ``copy_in`` the workspace, ``own`` it, ``spawn`` the command with ``cwd`` the
workspace, an environment from ``base_environment`` plus ``host_variables(["API_KEY", ...])``,
and ``wait`` with its time limit; ``copy_out`` the workspace when done, then stop.
"""

from __future__ import annotations

import os
import pwd
import random
import shutil
import socket
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

from scbench import content
from scbench.paths import owned_tempdir, release
from scbench.sandbox.cgroup import Cgroup, hierarchies
from scbench.sandbox.egress import EgressProxy
from scbench.sandbox.limits import Limits
from scbench.sandbox.process import Process, ProcessResult

HOST = "127.0.0.1"
SETUP_VARIABLES = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_TRUSTED_HOST",
                   "PIP_CERT", "PIP_CLIENT_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_RETRIES", "NPM_CONFIG_REGISTRY",
                   "NPM_CONFIG_CAFILE", "NPM_CONFIG_STRICT_SSL", "npm_config_registry", "npm_config_cafile",
                   "CARGO_REGISTRIES_", "CARGO_REGISTRY_", "CARGO_HTTP_CAINFO", "CARGO_NET_", "GOPROXY", "GONOPROXY",
                   "GOPRIVATE", "GONOSUMDB", "GOSUMDB", "GOINSECURE", "SSL_CERT_FILE", "SSL_CERT_DIR",
                   "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
"""The host variables track set-up sees, by name or, ending in ``_``, by prefix: where the package registries
are and which certificates to trust. Nothing that changes how a toolchain builds (``CARGO_TARGET_DIR``,
``GOFLAGS``, ``PIP_TARGET``) and no proxy: a contained set-up reaches registries through the egress proxy only;
the hosts of URLs in these values (a mirror's ``PIP_INDEX_URL``) are registries too (:func:`hosts_of`)."""
DEFAULT_LIMITS = Limits()
RELAY = Path(__file__).with_name("relay.py")
"""The bridge between a sandbox with no network and the host: a served port out, the egress proxy in."""
RUN_UID = int(os.environ.get("SCBENCH_SANDBOX_UID", "2000000000"))
"""The uid and gid that solutions, set-up and agents run as under the contained levels when scbench runs as
root: no account of this machine (:func:`run_uid_refusal`), so it owns nothing on the host and reads only what
every user may read. ``SCBENCH_SANDBOX_UID`` chooses another. When scbench runs as another user, runs are
that user: unprivileged already."""
RUN_OWNER = (RUN_UID, RUN_UID) if os.getuid() == 0 else None
"""``owner`` of the contained levels: who runs write as, when it differs from scbench's own user."""


def run_uid_refusal() -> str:
    """Why :data:`RUN_UID` cannot be used here (``""`` when it can): under root it must be no account."""
    if RUN_OWNER is None:
        return ""
    try:
        account = pwd.getpwuid(RUN_UID).pw_name
    except KeyError:
        return ""
    return (f"uid {RUN_UID} is the account {account!r} of this machine, and runs must own nothing: "
            "set SCBENCH_SANDBOX_UID to an unused uid")


def _passed(name: str) -> bool:
    return any(name.startswith(entry) if entry.endswith("_") else name == entry for entry in SETUP_VARIABLES)


def setup_variables() -> dict[str, str]:
    """The host's values of :data:`SETUP_VARIABLES`."""
    return {name: value for name, value in os.environ.items() if _passed(name)}


def hosts_of(values: Iterable[str]) -> tuple[str, ...]:
    """The host names of the URLs in ``values`` (each a URL or a comma- or space-separated list of them,
    as ``GOPROXY`` is), sorted: e.g. a registry mirror named by ``PIP_INDEX_URL``."""
    words = (word for value in values for word in value.replace(",", " ").split())
    return tuple(sorted({urlsplit(word).hostname for word in words if "://" in word} - {None}))


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
    holds the runs' own directories); ``network`` names the hosts runs may reach (HTTPS, through
    the egress proxy where the level confines the network; none by default: cases never reach
    any); up to ``parallel`` runs happen at once. Used as a context manager (``start`` /
    ``stop``). ``contains`` and ``gaps`` say plainly what the level contains and what not;
    ``python`` is the interpreter track setup uses inside; ``owner`` the uid and gid runs write
    as, when they differ from scbench's own; ``tracks`` the tracks it has toolchains for
    (``None``: the host's); ``confines_network`` whether runs have no network but the egress; ``contained``
    whether it contains anything at all (``local`` does not: runs may change anything scbench's user may)."""

    name: ClassVar[str]
    contains: ClassVar[tuple[str, ...]] = ()
    gaps: ClassVar[tuple[str, ...]] = ()
    python: ClassVar[str] = sys.executable
    owner: ClassVar[tuple[int, int] | None] = None
    tracks: ClassVar[tuple[str, ...] | None] = None
    confines_network: ClassVar[bool] = True
    contained: ClassVar[bool] = True

    def __init__(self, limits: Limits = DEFAULT_LIMITS, visible: Sequence[Path] = (), network: Sequence[str] = (),
                 writable: Sequence[Path] = (), parallel: int = 1):
        self.limits = limits
        self.visible = tuple(visible)
        self.network = tuple(network)
        self.writable = tuple(writable)
        self.parallel = parallel
        self.scratch: Path | None = None
        self.sweeper: ThreadPoolExecutor | None = None
        self.egress: EgressProxy | None = None
        self.refused: list[str] = []
        """What runs tried to reach through the egress proxy and were refused, in order."""

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
        locale, and the host's :func:`setup_variables` (registries and certificates)."""
        return {**setup_variables(), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                "LANG": "C.UTF-8"}

    def run_variables(self) -> dict[str, str]:
        """Variables every run's environment gets beside ``base_environment``: none by default."""
        return {}

    def start(self) -> Sandbox:
        """Make the sandbox ready to run commands (a fresh ``scratch``, removed at the next start of any scbench
        should this one be killed, and the egress proxy when runs may reach ``network`` and the level confines
        it); returns it."""
        self.scratch = owned_tempdir("scbench-")
        self.sweeper = ThreadPoolExecutor(1, thread_name_prefix="scbench-discard")
        if self.network and self.confines_network:
            self.egress = EgressProxy(self.scratch / "egress.sock", self.network, self.refused.append).start()
            os.chmod(self.egress.server_address, 0o777)  # runs connect to it as RUN_UID
        return self

    def cgroup(self) -> Cgroup | None:
        """A fresh cgroup for one run's whole tree, bounded by the limits' memory and process count (``None``
        where no cgroup is writable): a run joins it before it starts anything, and every process in it is
        killed with the run, daemons included (:meth:`Cgroup.remove`)."""
        return Cgroup(self.limits.memory_mb * 1024 * 1024, self.limits.processes) if hierarchies() else None

    def reaching(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """``argv`` and ``env`` of a run that may reach ``network`` through the egress proxy: started after
        the outbound relay (listening on a random loopback port of the sandbox), with the proxy variables
        of pip, npm, cargo, go and curl naming it. Unchanged when there is no egress."""
        if self.egress is None:
            return argv, env
        port = str(random.randint(20000, 60000))
        proxy = f"http://{HOST}:{port}"
        names = ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "npm_config_proxy",
                 "npm_config_https_proxy", "CARGO_HTTP_PROXY")
        # The relay (this Python, -S, relay.py --outbound PORT SOCKET) returns once it listens; ``shift 4``
        # drops its arguments and ``exec "$@"`` replaces the shell with the run's own command.
        wrapped = ["sh", "-c", '"$0" -S "$1" "$2" "$3" "$4" && shift 4 && exec "$@"', self.python, str(RELAY),
                   "--outbound", port, self.egress.server_address, *argv]
        return wrapped, {**env, **dict.fromkeys(names, proxy), "NO_PROXY": "", "no_proxy": ""}

    def stop(self) -> None:
        """Tear the sandbox down; nothing it started survives, ``scratch`` is removed."""
        if self.egress is not None:
            self.egress.stop()
            self.egress = None
        if self.sweeper is not None:
            self.sweeper.shutdown()
            self.sweeper = None
        if self.scratch is not None:
            release(self.scratch)
            self.scratch = None

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def discard(self, path: Path) -> None:
        """Remove ``path``, a finished run's directory under ``scratch``, in the background: removing a tree
        costs milliseconds per file where the file system discards freed blocks (about 20 ms for a case's
        few files here), time no case should wait for. :meth:`stop` waits until every discarded tree is gone."""
        self.sweeper.submit(shutil.rmtree, path, ignore_errors=True)

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

    @classmethod
    def own(cls, path: Path) -> None:
        """Make ``path`` (a tree under a run's writable dir) writable by the runs: give it and
        everything under it to ``owner``, if that is another user."""
        if cls.owner is None:
            return
        os.lchown(path, *cls.owner)
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                os.lchown(os.path.join(root, name), *cls.owner)

    def copy_in(self, source: Path, target: Path) -> None:
        """Copy the file or tree ``source`` of the host to ``target`` in the sandbox (links as links)."""
        copy(source, target)

    def copy_out(self, source: Path, target: Path) -> None:
        """Copy the file or tree ``source`` of the sandbox to ``target`` on the host; a link the run
        left is copied as a link, never followed on the host."""
        copy(source, target)


def copy(source: Path, target: Path) -> None:
    """Copy the file or tree ``source`` to ``target`` as content is copied (:func:`scbench.content.copy`):
    symbolic links as links (none followed), no setuid, setgid or sticky bit, no special file."""
    if source.is_symlink():
        target.symlink_to(os.readlink(source))
    elif source.is_dir():
        content.copy(source, target)
    else:
        content.copy_file(source, target)


def host_variables(names: Iterable[str]) -> dict[str, str]:
    """The host's values of the environment variables ``names`` that it has: how a run gets
    a credential or a setting passed in by name, without the rest of the host's environment."""
    return {name: os.environ[name] for name in names if name in os.environ}
