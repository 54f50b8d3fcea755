"""A solution started as a server for one HTTP case: free port, readiness, teardown."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import httpx

from scbench.problem.model import ReadyProbe
from scbench.run.process import Process

HOST = "127.0.0.1"
PROBE_INTERVAL = 0.05
"""Seconds between readiness probes."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _probe(ready: ReadyProbe, port: int) -> bool:
    if ready.http is not None:
        try:
            return httpx.get(f"http://{HOST}:{port}{ready.http}", timeout=0.5).status_code < 500
        except httpx.HTTPError:
            return False
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((HOST, port)) == 0


def tail(process: Process, limit: int = 1500) -> str:
    """The last ``limit`` characters of the server's stdout and stderr so far."""
    parts = {"stdout": process.stdout.data, "stderr": process.stderr.data}
    return "\n".join(f"{name} (last part):\n{bytes(data[-limit:]).decode('utf-8', 'replace') or '(empty)'}"
                     for name, data in parts.items())


class Server:
    """Start ``argv`` in ``cwd`` and wait until ``ready`` passes; ``error`` says why not.
    Used as a context manager: the whole process group is killed on exit."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], ready: ReadyProbe, port: int):
        self.process = Process(argv, cwd, env)
        self.port = port
        self.error = self._wait(ready)

    def _wait(self, ready: ReadyProbe) -> str:
        deadline = time.monotonic() + ready.deadline
        while time.monotonic() < deadline:
            code = self.process.popen.poll()
            if code is not None:
                return f"server exited with code {code} before it was ready"
            if _probe(ready, self.port):
                return ""
            time.sleep(PROBE_INTERVAL)
        return f"server not ready within {ready.deadline:g}s"

    def died(self, grace: float = 0.5) -> str:
        """Why the server is gone, waiting up to ``grace`` seconds for a dying server to
        finish exiting (``""`` if it still runs then)."""
        try:
            return f"server exited with code {self.process.popen.wait(grace)}"
        except subprocess.TimeoutExpired:
            return ""

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        self.process.popen.wait()
