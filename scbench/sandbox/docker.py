"""``docker``: one container per sandbox (one solution at one checkpoint), its spawner starting each run.

The container runs the image built by ``scbench sandbox build-image`` (a Debian rootfs, no
registry) with no network (``--network none``; a served port is bridged to the host through a
Unix socket, and a run allowed hosts reaches them only through the egress proxy), a read-only
root, a private ``/tmp``, no capabilities, ``no-new-privileges``, the unused uid
:data:`~scbench.sandbox.base.RUN_UID` (under root; the host user otherwise), memory and process
limits sized for the runs it holds at once, and the sandbox's scratch directory, ``writable``
and ``visible`` paths bind-mounted at the host's paths. The engine must be this machine's: runs
are waited for and killed by their host pids. The container's main process is the spawner
(:mod:`scbench.sandbox.spawner`): each run is started by it, at a fork's cost (a ``docker exec``
costs the engine about 0.1 s), waited for through the pidfd it sends and killed from the host
like a local process; then the processes without an environment marker that it left (adopted by
the container's init, or children of its own dying processes) are killed with their
descendants, so one that cleared its environment dies with its run, while the runs beside it,
and a run still starting (which carries the spawner's marker until it is started), are left alone.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import threading
import time
import uuid
from functools import cache
from pathlib import Path

from scbench.paths import held
from scbench.sandbox.base import RELAY, RUN_OWNER, RUN_UID, Sandbox, run_uid_refusal
from scbench.sandbox.limits import MIB
from scbench.sandbox.process import MARKER, BoundedReader, Process, feed, pipe_chunks
from scbench.sandbox.spawner import SOCKET, receive_line, send_line

IMAGE = os.environ.get("SCBENCH_DOCKER_IMAGE", "scbench-sandbox:6")
"""The image runs use; ``scbench sandbox build-image`` builds it. Its tag is the version of the
recipe (:mod:`scbench.sandbox.image`): a changed recipe gets a new tag, so that machines build it."""

LOCK_LABEL = "scbench.lock"
"""The label naming the lock of the scratch directory of a container's sandbox: held while its scbench lives."""
ENGINE_DEADLINE_S = 30.0
"""Seconds a container may take to be ready for runs, and its spawner to answer a request (to start a run, or
to report one ended after its process exited)."""
POLL_CAP_S = 0.016
"""The longest pause between two looks at whether the container is ready (:func:`_until`)."""
TRUST_STORE = Path("/etc/ssl/certs/ca-certificates.crt")
"""The host's CA bundle, shown to setup containers (which download packages) in place of the image's."""
SPAWNER = Path(__file__).with_name("spawner.py")
"""The container's main process, which starts its runs (:mod:`scbench.sandbox.spawner`)."""


@cache
def client():
    """A Docker SDK client for the engine of the environment (``DOCKER_HOST`` or the local socket)."""
    import docker
    return docker.from_env()


def user() -> str:
    """``uid:gid`` of the container's runs: :data:`RUN_UID` when scbench runs as root, the host user's otherwise."""
    return f"{RUN_UID}:{RUN_UID}" if RUN_OWNER else f"{os.getuid()}:{os.getgid()}"


def remote_engine() -> str:
    """Why the engine ``DOCKER_HOST`` names is not this machine's (``""``: it is local)."""
    host = os.environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return (f"DOCKER_HOST={host} is not a local engine: runs are waited for and killed by their host "
                "pids, so the engine must run on this machine (unset DOCKER_HOST, or a unix:// socket)")
    return ""


def _until(ready, what: str) -> None:
    """Call ``ready()`` until it is true, first after a millisecond, then at doubling intervals up to
    :data:`POLL_CAP_S`; ``OSError`` naming ``what`` after :data:`ENGINE_DEADLINE_S`."""
    deadline, pause = time.monotonic() + ENGINE_DEADLINE_S, 0.001
    while not ready():
        if time.monotonic() > deadline:
            raise OSError(f"the Docker engine did not {what} within {ENGINE_DEADLINE_S:g} s")
        time.sleep(pause)
        pause = min(2 * pause, POLL_CAP_S)


EXITING = ""
"""The marker :func:`container_processes` gives a process whose environment is gone."""


def reap_stale() -> list[str]:
    """Remove the containers whose scbench died without removing them (a SIGKILL): those labelled with the lock
    of a scratch directory no live process holds (:func:`scbench.paths.held`). Returns their ids.

    Containers are listed as the engine summarises them (a listing through the SDK's models inspects each one,
    and fails on one that another scbench removes meanwhile); one already gone when it is removed was reaped by
    another scbench starting at the same time."""
    import docker
    api = client().api
    stale = [summary["Id"] for summary in api.containers(all=True, filters={"label": LOCK_LABEL})
             if not held(Path(summary["Labels"][LOCK_LABEL]))]
    for container in stale:
        with contextlib.suppress(docker.errors.NotFound):
            api.remove_container(container, force=True)
    return stale


def container_processes(container_id: str) -> dict[int, tuple[int, str | None]]:
    """The processes of the container, seen from the host: ``{pid: (parent pid, its marker)}``,
    the marker None where it has none and :data:`EXITING` where its environment is gone (an
    exiting process); processes that vanish while ``/proc`` is scanned are passed over."""
    prefix, found = f"{MARKER}=".encode(), {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and container_id in (entry / "cgroup").read_text():
                # /proc/PID/stat is "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the
                # fields are counted after its last ")": state first, then the parent's pid.
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                environ = (entry / "environ").read_bytes()
                marks = [item[len(prefix):].decode() for item in environ.split(b"\0") if item.startswith(prefix)]
                found[int(entry.name)] = (parent, marks[0] if marks else None if environ else EXITING)
    return found


def kill_strays(container_id: str, live: set[str], spawner: int) -> None:
    """SIGKILL the processes of the container that belong to no live run: each belongs to the run whose marker
    it carries, or, where it has none (another environment, or none: an empty one reads as :data:`EXITING`), to
    its nearest ancestor's. Spared are the ``spawner`` (a host pid) and its parent, the container's init, a
    run the spawner is starting (its child, still carrying the spawner's marker, or none while ``execve``
    replaces its memory) and the processes of the ``live`` runs; killed are those of ended runs, orphans
    adopted by the init, and any that copied the spawner's marker to pass for it (a daemon a run left to
    tamper with the runs after it). ``live`` is the set other threads add runs to before they start them: it is
    read once the processes are seen, so every run seen is in it unless it has ended."""
    processes = container_processes(container_id)
    owned = frozenset(live)
    spared = {spawner, processes[spawner][0]}

    def owner(pid: int) -> str | None:
        while processes[pid][1] in (None, EXITING) and processes[pid][0] in processes:
            pid = processes[pid][0]
        return processes[pid][1]

    for pid, (parent, mark) in processes.items():
        starting = parent == spawner and mark in ("container", None, EXITING)
        if pid not in spared and not starting and owner(pid) not in owned:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def host_pid(pidfd: int) -> int:
    """The pid, in this machine's PID namespace, of the process ``pidfd`` refers to (``-1``: it has exited)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/self/fdinfo/{pidfd}").read_text().splitlines())
    return int(fields["Pid"])


class SpawnedRun(Process):
    """``argv`` started by the container's spawner (:mod:`scbench.sandbox.spawner`) through its socket
    ``address``, with pipes of ours as its stdin, stdout and stderr; waited for and signalled through the
    pidfd the spawner sends; once it is killed, so are the processes without a marker it left
    (:func:`kill_strays`). Raises ``OSError`` when the spawner cannot start it."""

    def __init__(self, box: Docker, argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None):
        # The marker, a variable set in this run's environment only, is how this run's processes are told
        # apart from its neighbours' in the shared container once it is killed (kill_strays).
        self.marker = uuid.uuid4().hex
        self.box = box
        box.live.add(self.marker)
        self.connection = socket.socket(socket.AF_UNIX)
        self.connection.settimeout(ENGINE_DEADLINE_S)
        self.connection.connect(box.address)
        (out, out_end), (err, err_end) = os.pipe(), os.pipe()
        (stdin_end, writer) = os.pipe() if stdin is not None else (os.open(os.devnull, os.O_RDONLY), None)
        try:
            send_line(self.connection, {"argv": argv, "cwd": str(cwd), "env": {**env, MARKER: self.marker}},
                      (stdin_end, out_end, err_end))
        finally:
            for fd in (stdin_end, out_end, err_end):
                os.close(fd)
        started, fds = receive_line(self.connection, 1)
        if "error" in started:
            box.live.discard(self.marker)
            for fd in (out, err, writer, self.connection.detach()):
                if fd is not None:
                    os.close(fd)
            raise OSError(started["error"])
        self.pid = host_pid(fds[0])
        super().__init__(fds[0])
        self.stdout = BoundedReader(box.limits.output_bytes).drain(pipe_chunks(os.fdopen(out, "rb")))
        self.stderr = BoundedReader(box.limits.output_bytes).drain(pipe_chunks(os.fdopen(err, "rb")))
        if writer is not None:
            threading.Thread(target=feed, args=(os.fdopen(writer, "wb"), stdin), daemon=True).start()
        self.code: int | None = None

    def signal(self, sig: int) -> None:
        """Signal the main process through its pidfd: its number may be another process's by now."""
        if self.pidfd is not None:
            signal.pidfd_send_signal(self.pidfd, sig)

    def after_kill(self) -> None:
        """Once the run is killed, so are the processes of the container no live run owns (:func:`kill_strays`)."""
        self.box.live.discard(self.marker)
        kill_strays(self.box.container.id, self.box.live, self.box.spawner)

    def exit_code(self) -> int:
        if self.code is None:
            with self.connection:
                self.code = receive_line(self.connection, 1)[0]["exit"]
        return self.code


class Docker(Sandbox):
    """Runs commands in one container (see the module docstring). Runs write as :data:`RUN_UID`
    when scbench runs as root, as the host user otherwise; the image has the ``python`` and
    ``node`` tracks' toolchains, and g++ and cargo for harness-owned steps that build generated code."""

    name = "docker"
    python = "python3"
    tracks = ("python", "node")
    owner = RUN_OWNER
    contains = ("processes: a container per solution and checkpoint, removed with every process in it (one whose "
                "scbench was killed is removed when the next docker sandbox starts)",
                "files: the image's root read-only, the run's own directories writable, a private /tmp",
                "network: none for cases; set-up (and agents) reach only their allowed hosts over HTTPS, "
                "through the egress proxy",
                f"uid: {RUN_UID}, no account of this machine, no capabilities, no-new-privileges (under root); "
                f"the host user (otherwise)",
                "toolchains: the image's: python3 (venv, pip), node 20 with npm, g++ 12 (C++17), cargo and rustc "
                "1.63 (a crate without dependencies builds offline), the base system's programs and bzip2")
    gaps = ("runs of one sandbox share the container: its loopback, its /tmp and each other's files",)

    container = None

    @classmethod
    def unavailable(cls) -> str:
        if importlib.util.find_spec("docker") is None:
            return "the Docker SDK is not installed: pip install 'scbench[docker]'"
        import docker
        if remote_engine():
            return remote_engine()
        try:
            client().ping()
        except docker.errors.DockerException as error:
            return f"no Docker engine answers ({error})"
        try:
            client().images.get(IMAGE)
        except docker.errors.ImageNotFound:
            return f"the image {IMAGE} is not built: run `scbench sandbox build-image`"
        return run_uid_refusal()

    @classmethod
    def setup_key(cls) -> str:
        return "docker-" + client().images.get(IMAGE).id.split(":")[-1][:12]

    @property
    def description(self) -> str:
        return f"docker ({IMAGE})"

    def _volumes(self) -> dict[str, dict[str, str]]:
        shown = {str(path): "ro" for path in (*self.visible, RELAY, SPAWNER)}
        if self.network and TRUST_STORE.is_file():
            shown[str(TRUST_STORE)] = "ro"
        shown.update({str(path): "rw" for path in (self.scratch, *self.writable)})
        return {path: {"bind": path, "mode": mode} for path, mode in shown.items()}

    def start(self) -> Docker:
        reap_stale()
        super().start()
        self.own(self.scratch)
        limits = self.limits.scaled(self.parallel)
        home = self.scratch / "spawner"
        home.mkdir()
        self.own(home)
        self.container = client().containers.run(
            IMAGE, ["python3", "-S", str(SPAWNER), str(home)], detach=True, init=True, user=user(),
            network_mode="none", read_only=True, tmpfs={"/tmp": ""},
            cap_drop=["ALL"], security_opt=["no-new-privileges"], mem_limit=limits.memory_mb * MIB,
            memswap_limit=limits.memory_mb * MIB, pids_limit=limits.processes, volumes=self._volumes(),
            environment={MARKER: "container"},
            labels={"scbench": "sandbox", LOCK_LABEL: str(self.scratch.with_suffix(".lock"))})
        _until(lambda: (home / SOCKET).exists(), "start the container's spawner")
        # Once it listens, the runs (the spawner's uid) may no longer replace its socket: under root the
        # directory becomes root's; as another user runs are that user anyway. The host reaches the socket
        # through a descriptor of its directory, as its whole path may be longer than a socket address may be.
        os.chown(home, os.getuid(), os.getgid())
        os.chmod(home, 0o755)
        self.home = os.open(home, os.O_PATH)
        self.address = f"/proc/self/fd/{self.home}/{SOCKET}"
        processes = container_processes(self.container.id)  # the init, and its only child: the spawner
        self.spawner = next(pid for pid, (parent, _) in processes.items() if parent in processes)
        self.live: set[str] = set()
        """The markers of the runs in flight."""
        return self

    def stop(self) -> None:
        if self.container is not None:
            self.container.remove(force=True)
            self.container = None
            os.close(self.home)
        super().stop()

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        argv, env = self.reaching(argv, env)
        return SpawnedRun(self, self.limits.prlimit() + argv, cwd, env, stdin)
