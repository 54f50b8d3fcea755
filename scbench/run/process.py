"""Run one untrusted process: own session, deterministic environment, bounded output,
and a timeout that kills its whole process group and any descendant that left it.

``spawn`` starts a process (used for servers); ``run`` starts one and waits for it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

OUTPUT_LIMIT = 8 * 1024 * 1024
"""Bytes kept per output stream; the rest is read and dropped so the process never blocks."""

KILL_GRACE = 0.2
"""Seconds a process may take to exit after SIGTERM before its group gets SIGKILL."""


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


@dataclass
class BoundedReader:
    """Drains a pipe on a thread, keeping the first ``OUTPUT_LIMIT`` bytes."""

    stream: object
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        for chunk in iter(lambda: self.stream.read1(65536), b""):
            room = OUTPUT_LIMIT - len(self.data)
            self.data += chunk[:room]
            self.truncated |= len(chunk) > room
        self.stream.close()

    def result(self, wait: float = 2.0) -> bytes:
        """What was read so far, waiting up to ``wait`` seconds for the pipe to close."""
        self.thread.join(wait)
        return bytes(self.data)


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


class Process:
    """A started process in its own session; ``kill`` ends its whole process group."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None):
        self.started = time.monotonic()
        self.marker = uuid.uuid4().hex
        self.popen = subprocess.Popen(
            argv, cwd=cwd, env={**env, MARKER: self.marker}, start_new_session=True,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.stdout = BoundedReader(self.popen.stdout)
        self.stderr = BoundedReader(self.popen.stderr)
        if stdin is not None:
            threading.Thread(target=self._feed, args=(stdin,), daemon=True).start()

    def _feed(self, data: bytes) -> None:
        try:
            self.popen.stdin.write(data)
            self.popen.stdin.close()
        except BrokenPipeError:
            pass  # the process exited without reading all its input: not an error of ours

    def kill(self) -> None:
        """SIGTERM the process group, give the process up to ``KILL_GRACE`` seconds to exit,
        SIGKILL whatever is left of the group, then SIGKILL every process still carrying this
        process's environment marker (descendants that left the group with setsid)."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(KILL_GRACE)
        for pid in pids_with(f"{MARKER}={self.marker}".encode()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def wait(self, timeout: float) -> ProcessResult:
        """Wait up to ``timeout`` seconds, then tear the group down and collect the result."""
        waiter = threading.Thread(target=self.popen.wait, daemon=True)  # Popen.wait(timeout) polls in 50 ms steps
        waiter.start()
        waiter.join(timeout)
        timed_out = waiter.is_alive()
        duration = time.monotonic() - self.started
        self.kill()
        self.popen.wait()
        return ProcessResult(self.popen.returncode, self.stdout.result(), self.stderr.result(), timed_out,
                             duration, self.stdout.truncated or self.stderr.truncated)


def run(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None, timeout: float) -> ProcessResult:
    """Run ``argv`` to completion or ``timeout`` seconds. Raises ``OSError`` (e.g.
    ``FileNotFoundError``) when the program cannot be started."""
    return Process(argv, cwd, env, stdin).wait(timeout)
