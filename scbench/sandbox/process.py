"""A started process tree: bounded output, a timeout, and a kill that ends the whole tree.

:class:`Process` is what every sandbox returns; :class:`HostProcess` is a child of ours (the
process itself for ``local``, ``bwrap`` wrapping it for ``bwrap``). Waiting is on a pidfd, so a
process that is not our child (one the docker level's spawner started) is waited for the same way.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

KILL_GRACE = 0.2
"""Seconds a process may take to exit after SIGTERM before its tree gets SIGKILL."""
OUTPUT_WAIT_S = 2.0
"""Seconds a finished process's output streams may take to end (a descendant may hold them a moment longer)."""

MARKER = "SCBENCH_PROCESS"
"""Environment variable carrying a unique id per started process; descendants inherit it, so
those that leave the process group (``setsid``, daemons) can still be found and killed."""


def pids_with(needle: bytes) -> list[int]:
    """PIDs of the processes whose environment contains ``needle`` (``NAME=value``); processes
    that vanish or cannot be read while scanning ``/proc`` are passed over."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
    return found


def unsupported_host() -> str:
    """Why this machine cannot run solutions at all (``""`` when it can): processes are waited for
    through pidfds (Linux 5.3 or later) and their descendants found in ``/proc``."""
    if not hasattr(os, "pidfd_open") or not Path("/proc/self/stat").is_file():
        return f"scbench runs solutions on Linux only (it needs pidfds and /proc); this is {sys.platform}"
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as error:
        return f"this kernel has no pidfds (Linux 5.3 or later is needed): {error.strerror}"
    return ""


def base_environment(home: Path, tmp: Path) -> dict[str, str]:
    """The deterministic environment every solution process starts from: PATH from the
    host, C.UTF-8 locale, UTC, HOME and TMPDIR inside the case's temp dir, no colours."""
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC",
        "HOME": str(home), "TMPDIR": str(tmp),
        "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
        "NO_COLOR": "1", "TERM": "dumb",
    }


def signal_from_shell_status(code: int) -> int:
    """``code`` as :class:`ProcessResult` reports it: a shell-style ``128 + N`` (how ``bwrap``
    reports death by signal ``N``) becomes ``-N``; other codes are kept."""
    return -(code - 128) if 128 < code < 128 + signal.NSIG else code


@dataclass
class BoundedReader:
    """Keeps the first ``limit`` bytes of a stream and drops the rest, so the writer never
    blocks; ``thread`` is the thread draining the stream (see :meth:`drain`)."""

    limit: int
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    thread: threading.Thread | None = None
    listener: Callable[[bytes], None] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def listen(self, listener: Callable[[bytes], None]) -> None:
        """Hand ``listener`` what was kept so far, then every chunk as it comes, whole, past the limit
        too (it runs on the draining thread). Call it once, before the stream is cut."""
        with self.lock:
            listener(bytes(self.data))
            self.listener = listener

    def drain(self, chunks: Iterable[bytes]) -> BoundedReader:
        """Start a thread that adds every chunk of ``chunks``; returns self."""
        self.thread = threading.Thread(target=lambda: [self.add(chunk) for chunk in chunks], daemon=True)
        self.thread.start()
        return self

    def add(self, chunk: bytes) -> None:
        """Keep what fits of ``chunk``; hand all of it to the listener."""
        with self.lock:
            room = self.limit - len(self.data)
            self.data += chunk[:room]
            self.truncated |= len(chunk) > room
            if self.listener:
                self.listener(chunk)

    def result(self, wait: float = OUTPUT_WAIT_S) -> bytes:
        """What was read so far, waiting up to ``wait`` seconds for the stream to end."""
        if self.thread:
            self.thread.join(wait)
        return bytes(self.data)


def feed(stream, data: bytes) -> None:
    """Write ``data`` to the pipe ``stream`` and close it; a process that exits without reading all
    its input is no error."""
    with contextlib.suppress(BrokenPipeError), stream:
        stream.write(data)


def pipe_chunks(stream):
    """The chunks read from a pipe until it closes (the pipe is closed then)."""
    with stream:
        yield from iter(lambda: stream.read1(65536), b"")


@dataclass(frozen=True)
class ProcessResult:
    """A finished process: exit code (negative = killed by that signal), captured output,
    whether the timeout fired, and wall-clock duration in seconds."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    timed_out: bool
    duration: float
    truncated: bool = False


class Process(ABC):
    """A started process tree. Subclasses set ``pid`` (a host PID), ``marker``, ``stdout``
    and ``stderr`` (:class:`BoundedReader`) and say how the exit code is read and how the
    tree is signalled; waiting and killing are shared."""

    pid: int
    marker: str
    stdout: BoundedReader
    stderr: BoundedReader
    after_kill: Callable[[], None] | None = None
    contained: bool = False
    """Whether every descendant dies with the main process (a PID namespace's): then no
    process needs looking for by its marker after the kill."""

    def __init__(self, pidfd: int | None = None) -> None:
        """Start the clock; ``pidfd`` is the main process's, where another process opened it (the pid is
        then only what ``/proc`` said of it: the pidfd keeps pointing at the process once the number is reused)."""
        self.started = time.monotonic()
        try:
            self.pidfd: int | None = os.pidfd_open(self.pid) if pidfd is None else pidfd
        except ProcessLookupError:  # not our child, and already gone
            self.pidfd = None

    @abstractmethod
    def exit_code(self) -> int:
        """The exit code of the finished main process (negative: killed by that signal)."""

    @abstractmethod
    def signal(self, sig: int) -> None:
        """Send ``sig`` to the main process (and, where it has one, its process group)."""

    def finished(self, wait: float = 0.0) -> bool:
        """Whether the main process has exited, waiting up to ``wait`` seconds for it."""
        if self.pidfd is None:
            return True
        poller = select.poll()
        poller.register(self.pidfd, select.POLLIN)
        return bool(poller.poll(max(wait, 0) * 1000))

    def kill(self) -> None:
        """SIGTERM the main process (and its group), give it up to ``KILL_GRACE`` seconds,
        SIGKILL it, then SIGKILL every process still carrying this process's environment
        marker (descendants that left the group with setsid); then ``after_kill``, once."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                self.signal(sig)
            self.finished(KILL_GRACE)
        for pid in pids_with(f"{MARKER}={self.marker}".encode()) if not self.contained else ():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if self.after_kill:
            self.after_kill()
            self.after_kill = None
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None

    def wait(self, timeout: float) -> ProcessResult:
        """Wait up to ``timeout`` seconds, then tear the tree down and collect the result."""
        timed_out = not self.finished(timeout)
        duration = time.monotonic() - self.started
        self.kill()
        return ProcessResult(self.exit_code(), self.stdout.result(), self.stderr.result(), timed_out, duration,
                             self.stdout.truncated or self.stderr.truncated)


class HostProcess(Process):
    """``argv`` started as our child in its own session, with a unique environment marker.
    ``shell_status`` says the program reports signal deaths as ``128 + N`` (``bwrap``);
    ``contained`` that its descendants die with it (``bwrap``: pid 1 of its PID namespace; a cgroup's tasks,
    killed by ``after_kill``);
    ``after_kill`` is called once the tree is killed."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None,
                 output_limit: int = 8 * 1024 * 1024, shell_status: bool = False,
                 after_kill: Callable[[], None] | None = None, contained: bool = False):
        self.marker = uuid.uuid4().hex
        self.shell_status, self.contained = shell_status, contained
        self.after_kill = after_kill
        self.popen = subprocess.Popen(
            argv, cwd=cwd, env={**env, MARKER: self.marker}, start_new_session=True,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.pid = self.popen.pid
        super().__init__()
        self.stdout = BoundedReader(output_limit).drain(pipe_chunks(self.popen.stdout))
        self.stderr = BoundedReader(output_limit).drain(pipe_chunks(self.popen.stderr))
        if stdin is not None:
            threading.Thread(target=feed, args=(self.popen.stdin, stdin), daemon=True).start()

    def signal(self, sig: int) -> None:
        """Signal the process group, unless the main process was reaped already (its number
        may belong to another process by now; what is left of the group carries the marker)."""
        if self.popen.returncode is None:
            os.killpg(self.pid, sig)

    def exit_code(self) -> int:
        code = self.popen.wait()
        return signal_from_shell_status(code) if self.shell_status else code
