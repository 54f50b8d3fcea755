"""``docker``: one container per sandbox (one solution at one checkpoint), one ``exec`` per run.

The container runs the image built by ``scbench sandbox build-image`` (a Debian rootfs, no
registry) with no network (``--network none``; a served port is bridged to the host through a
Unix socket, and a run allowed hosts reaches them only through the egress proxy), a read-only
root, a private ``/tmp``, no capabilities, ``no-new-privileges``, the unused uid
:data:`~scbench.sandbox.base.RUN_UID` (under root; the host user otherwise), memory and process
limits sized for the runs it holds at once, and the sandbox's scratch directory, ``writable``
and ``visible`` paths bind-mounted at the host's paths. The engine must be this machine's: runs
are waited for and killed by their host pids. Each run is an ``exec``
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

from scbench.paths import held
from scbench.sandbox.base import RELAY, RUN_OWNER, RUN_UID, Sandbox, run_uid_refusal
from scbench.sandbox.limits import MIB
from scbench.sandbox.process import MARKER, OUTPUT_WAIT_S, BoundedReader, Process, signal_from_shell_status

IMAGE = os.environ.get("SCBENCH_DOCKER_IMAGE", "scbench-sandbox:4")
"""The image runs use; ``scbench sandbox build-image`` builds it. Its tag is the version of the
recipe (:mod:`scbench.sandbox.image`): a changed recipe gets a new tag, so that machines build it."""

LOCK_LABEL = "scbench.lock"
"""The label naming the lock of the scratch directory of a container's sandbox: held while its scbench lives."""
ENGINE_DEADLINE_S = 30.0
"""Seconds the engine may take to start an exec, or to report one ended after its process exited."""
POLL_CAP_S = 0.016
"""The longest pause between two questions to the engine while waiting for it (:func:`_until`)."""
TRUST_STORE = Path("/etc/ssl/certs/ca-certificates.crt")
"""The host's CA bundle, shown to setup containers (which download packages) in place of the image's."""


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


def _until(ready, what: str) -> dict:
    """Poll :meth:`DockerExec._inspect`-like ``ready()`` (``(done, info)``) until done, first after a
    millisecond, then at doubling intervals up to :data:`POLL_CAP_S` (each poll is a request the engine
    serves: a run starts in about 0.1 s, and polling every millisecond cost as much CPU as the run);
    ``OSError`` naming ``what`` after :data:`ENGINE_DEADLINE_S`."""
    deadline, pause = time.monotonic() + ENGINE_DEADLINE_S, 0.001
    while not (state := ready())[0]:
        if time.monotonic() > deadline:
            raise OSError(f"the Docker engine did not {what} within {ENGINE_DEADLINE_S:g} s")
        time.sleep(pause)
        pause = min(2 * pause, POLL_CAP_S)
    return state[1]


EXITING = ""
"""The marker :func:`container_processes` gives a process whose environment is gone."""


def reap_stale() -> list[str]:
    """Remove the containers whose scbench died without removing them (a SIGKILL): those labelled with the lock
    of a scratch directory no live process holds (:func:`scbench.paths.held`). Returns their ids."""
    stale = [container for container in client().containers.list(all=True, filters={"label": LOCK_LABEL})
             if not held(Path(container.labels[LOCK_LABEL]))]
    for container in stale:
        container.remove(force=True)
    return [container.id for container in stale]


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
        connection = api.exec_start(self.exec_id, socket=True)
        self.socket = socket.socket(fileno=os.dup(connection.fileno()))
        connection.close()
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
        def started() -> tuple[bool, dict]:
            info = self._inspect()
            return info["Pid"] != 0 or not (info["Running"] or info["ExitCode"] is None), info
        return _until(started, "start the run")["Pid"]

    def _feed(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # the process exited without reading all its input
            self.socket.sendall(data)
            self.socket.shutdown(socket.SHUT_WR)

    def signal(self, sig: int) -> None:
        """Signal the main process through its pidfd: its number may be another process's by now."""
        if self.pidfd is not None:
            signal.pidfd_send_signal(self.pidfd, sig)

    def exit_code(self) -> int:
        # The engine records the exit before it closes the exec's output stream: once the stream has ended
        # (or after the time the result waits for it anyway), the first question is answered.
        self.stdout.thread.join(OUTPUT_WAIT_S)

        def ended() -> tuple[bool, dict]:
            info = self._inspect()
            return not info["Running"], info
        return signal_from_shell_status(_until(ended, "report the run ended")["ExitCode"])


class Docker(Sandbox):
    """Runs commands in one container (see the module docstring). Runs write as :data:`RUN_UID`
    when scbench runs as root, as the host user otherwise; the image has the ``python`` and
    ``node`` tracks' toolchains."""

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
                f"the host user (otherwise)")
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
        shown = {str(path): "ro" for path in (*self.visible, RELAY)}
        if self.network and TRUST_STORE.is_file():
            shown[str(TRUST_STORE)] = "ro"
        shown.update({str(path): "rw" for path in (self.scratch, *self.writable)})
        return {path: {"bind": path, "mode": mode} for path, mode in shown.items()}

    def start(self) -> Docker:
        reap_stale()
        super().start()
        self.own(self.scratch)
        limits = self.limits.scaled(self.parallel)
        self.container = client().containers.run(
            IMAGE, ["sleep", "infinity"], detach=True, init=True, user=user(),
            network_mode="none", read_only=True, tmpfs={"/tmp": ""},
            cap_drop=["ALL"], security_opt=["no-new-privileges"], mem_limit=limits.memory_mb * MIB,
            memswap_limit=limits.memory_mb * MIB, pids_limit=limits.processes, volumes=self._volumes(),
            environment={MARKER: "container"},
            labels={"scbench": "sandbox", LOCK_LABEL: str(self.scratch.with_suffix(".lock"))})
        return self

    def stop(self) -> None:
        if self.container is not None:
            self.container.remove(force=True)
            self.container = None
        super().stop()

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
              stdin: bytes | None = None) -> Process:
        argv, env = self.reaching(argv, env)
        return DockerExec(self.container, self.limits.prlimit() + argv, cwd, env, stdin, self.limits.output_bytes)
