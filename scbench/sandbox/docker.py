"""``docker``: one container per sandbox (one solution at one checkpoint), one ``exec`` per run.

The container runs the image built by ``scbench sandbox build-image`` (a Debian rootfs, no
registry) with no network (``--network none``; a served port is bridged to the host through a
Unix socket), a read-only root, a private ``/tmp``, no capabilities, a non-root user, memory
and process limits sized for the runs it holds at once, and the sandbox's scratch directory,
``writable`` and ``visible`` paths bind-mounted at the host's paths. Each run is an ``exec``
waited for through a pidfd on its host PID and killed from the host like a local process;
then the processes without an environment marker that it left (adopted by the container's
init, or children of its own dying processes) are killed with their descendants, so one that
cleared its environment dies with its run, while the runs beside it, and an exec still
starting (which has no marker yet), are left alone.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import signal
import socket
import threading
import time
import uuid
from functools import cache
from pathlib import Path

from scbench.sandbox.base import RELAY, Sandbox
from scbench.sandbox.limits import MIB
from scbench.sandbox.process import MARKER, BoundedReader, Process, signal_from_shell_status

IMAGE = os.environ.get("SCBENCH_DOCKER_IMAGE", "scbench-sandbox:3")
"""The image runs use; ``scbench sandbox build-image`` builds it. Its tag is the version of the
recipe (:mod:`scbench.sandbox.image`): a changed recipe gets a new tag, so that machines build it."""

SANDBOX_UID = 1000
TRUST_STORE = Path("/etc/ssl/certs/ca-certificates.crt")
"""The host's CA bundle, shown to setup containers (which download packages) in place of the image's."""


@cache
def client():
    """A Docker SDK client for the engine of the environment (``DOCKER_HOST`` or the local socket)."""
    import docker
    return docker.from_env()


def user() -> str:
    """``uid:gid`` of the container's runs: the host user's, or 1000 when scbench runs as root."""
    return f"{os.getuid()}:{os.getgid()}" if os.getuid() else f"{SANDBOX_UID}:{SANDBOX_UID}"


EXITING = ""
"""The marker :func:`container_processes` gives a process whose environment is gone."""


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


def kill_unmarked(container_id: str, marker: str) -> None:
    """SIGKILL, with their descendants, the processes without a marker (another environment, or
    none: an empty one reads as :data:`EXITING`) whose parent in the container is the container's
    own (its init), one of the ended run's (``marker``) or exiting: descendants of the run
    ``marker`` that cleared their environment. Other runs are spared: their processes descend
    from an ``exec`` (whose parent is outside the container, also while it starts and has no
    marker yet) or from a process with their marker."""
    processes = container_processes(container_id)
    ended = {EXITING, marker, "container"}
    doomed = [pid for pid, (parent, mark) in processes.items()
              if mark in (None, EXITING) and parent in processes and processes[parent][1] in ended]
    while doomed:
        pid = doomed.pop()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        doomed += [child for child, (parent, _) in processes.items() if parent == pid]


class DockerExec(Process):
    """``argv`` run with ``docker exec`` in ``container`` (stdout and stderr demultiplexed);
    once it is killed, so are the processes without a marker it left (:func:`kill_unmarked`)."""

    def __init__(self, container, argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None,
                 output_limit: int):
        from docker.utils.socket import frames_iter
        api = client().api
        # The marker, a variable set in this exec's environment only, is how this run's processes are told
        # apart from its neighbours' in the shared container once it is killed (kill_unmarked); the pid is
        # the exec's main process on the host, which this Process waits for and signals through a pidfd.
        self.marker = uuid.uuid4().hex
        self.after_kill = functools.partial(kill_unmarked, container.id, self.marker)
        self.exec_id = api.exec_create(container.id, argv, stdin=stdin is not None, workdir=str(cwd),
                                       environment={**env, MARKER: self.marker}, user=user())["Id"]
        self.socket = api.exec_start(self.exec_id, socket=True)._sock
        self.pid = self._started_pid()
        super().__init__()
        self.stdout, self.stderr = BoundedReader(output_limit), BoundedReader(output_limit)
        readers = {1: self.stdout, 2: self.stderr}
        self.stdout.thread = self.stderr.thread = threading.Thread(
            target=lambda: [readers[stream].add(chunk) for stream, chunk in frames_iter(self.socket, False)],
            daemon=True)
        self.stdout.thread.start()
        if stdin is not None:
            threading.Thread(target=self._feed, args=(stdin,), daemon=True).start()

    def _inspect(self) -> dict:
        return client().api.exec_inspect(self.exec_id)

    def _started_pid(self) -> int:
        while (info := self._inspect())["Pid"] == 0 and (info["Running"] or info["ExitCode"] is None):
            time.sleep(0.001)
        return info["Pid"]

    def _feed(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # the process exited without reading all its input
            self.socket.sendall(data)
            self.socket.shutdown(socket.SHUT_WR)

    def signal(self, sig: int) -> None:
        """Signal the main process through its pidfd: its number may be another process's by now."""
        if self.pidfd is not None:
            signal.pidfd_send_signal(self.pidfd, sig)

    def exit_code(self) -> int:
        while (info := self._inspect())["Running"]:
            time.sleep(0.001)
        return signal_from_shell_status(info["ExitCode"])


class Docker(Sandbox):
    """Runs commands in one container (see the module docstring). Runs write as uid 1000
    when scbench runs as root, as the host user otherwise; the image has the ``python`` and
    ``node`` tracks' toolchains."""

    name = "docker"
    python = "python3"
    tracks = ("python", "node")
    owner = None if os.getuid() else (SANDBOX_UID, SANDBOX_UID)
    gaps = ("runs of one sandbox share the container: its loopback, its /tmp and each other's files",)

    container = None

    @classmethod
    def unavailable(cls) -> str:
        if importlib.util.find_spec("docker") is None:
            return "the Docker SDK is not installed: pip install 'scbench[docker]'"
        import docker
        try:
            client().ping()
        except docker.errors.DockerException as error:
            return f"no Docker engine answers ({error})"
        try:
            client().images.get(IMAGE)
        except docker.errors.ImageNotFound:
            return f"the image {IMAGE} is not built: run `scbench sandbox build-image`"
        return ""

    @classmethod
    def setup_key(cls) -> str:
        return "docker-" + client().images.get(IMAGE).id.split(":")[-1][:12]

    @property
    def description(self) -> str:
        return f"docker ({IMAGE})"

    def _volumes(self) -> dict[str, dict[str, str]]:
        shown = {str(path): "ro" for path in (*self.visible, RELAY)}
        if self.network and TRUST_STORE.is_file():
            shown[str(TRUST_STORE)] = "ro"
        shown.update({str(path): "rw" for path in (self.scratch, *self.writable)})
        return {path: {"bind": path, "mode": mode} for path, mode in shown.items()}

    def start(self) -> Docker:
        super().start()
        self.own(self.scratch)
        limits = self.limits.scaled(self.parallel)
        self.container = client().containers.run(
            IMAGE, ["sleep", "infinity"], detach=True, init=True, user=user(),
            network_mode="bridge" if self.network else "none", read_only=True, tmpfs={"/tmp": ""},
            cap_drop=["ALL"], security_opt=["no-new-privileges"], mem_limit=limits.memory_mb * MIB,
            memswap_limit=limits.memory_mb * MIB, pids_limit=limits.processes, volumes=self._volumes(),
            environment={MARKER: "container"}, labels={"scbench": "sandbox"})
        return self

    def stop(self) -> None:
        if self.container is not None:
            self.container.remove(force=True)
            self.container = None
        super().stop()

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        return DockerExec(self.container, self.limits.prlimit() + argv, cwd, env, stdin, self.limits.output_bytes)
