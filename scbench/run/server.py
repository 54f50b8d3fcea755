"""A solution started as a server for one HTTP case: free port, readiness, teardown."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx

from scbench.problem.model import ReadyProbe
from scbench.sandbox.base import HOST, Endpoint, Sandbox
from scbench.sandbox.process import Process

PROBE_INTERVAL = 0.01
"""Seconds between readiness probes (a probe costs well under a millisecond of CPU; a server that
is ready waits for the next one, half an interval on average)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def client(endpoint: Endpoint) -> httpx.Client:
    """An HTTP client for the server at ``endpoint`` (through its Unix socket, if it has one).
    It speaks plain HTTP only, so it loads no CA bundle (``verify=True`` would, for every client:
    about 20 ms of CPU, more than most requests take)."""
    return httpx.Client(base_url=f"http://{endpoint.host}:{endpoint.port}", trust_env=False,
                        transport=httpx.HTTPTransport(uds=endpoint.uds, verify=False))


def _probe(ready: ReadyProbe, endpoint: Endpoint) -> bool:
    """Whether the server is ready: it accepts a connection and, where ``ready.http`` names a
    path, answers it below 500 (the HTTP request only once a connection is accepted: an HTTP
    client costs far more to make than a refused connect)."""
    try:
        endpoint.connect(0.5).close()
    except OSError:
        return False
    if ready.http is None:
        return True
    try:
        with client(endpoint) as probe:
            return probe.get(ready.http, timeout=0.5).status_code < 500
    except httpx.HTTPError:
        return False


def tail(process: Process, limit: int = 1500) -> str:
    """The last ``limit`` characters of the server's stdout and stderr: so far while it runs, and once it has
    exited all it wrote (its streams given up to :data:`~scbench.sandbox.process.OUTPUT_WAIT_S` to end: its last
    words may still be in the pipe when its exit is seen)."""
    ended = process.finished()
    parts = {name: reader.result() if ended else reader.data
             for name, reader in (("stdout", process.stdout), ("stderr", process.stderr))}
    return "\n".join(f"{name} (last part):\n{bytes(data[-limit:]).decode('utf-8', 'replace') or '(empty)'}"
                     for name, data in parts.items())


class Server:
    """Start ``argv`` in ``cwd`` (inside ``writable``) as a server on ``port`` of ``sandbox``
    and wait until ``ready`` passes; ``error`` says why not. Used as a context manager: the
    whole process tree is killed on exit."""

    def __init__(self, sandbox: Sandbox, argv: list[str], cwd: Path, env: dict[str, str], writable: Path,
                 ready: ReadyProbe, port: int):
        self.process, self.endpoint = sandbox.serve(argv, cwd, env, writable, port)
        self.error = self._wait(ready)

    def _wait(self, ready: ReadyProbe) -> str:
        deadline = time.monotonic() + ready.deadline
        while time.monotonic() < deadline:
            if self.process.finished():
                return f"server exited with code {self.process.exit_code()} before it was ready"
            if _probe(ready, self.endpoint):
                return ""
            time.sleep(PROBE_INTERVAL)
        return f"server not ready within {ready.deadline:g}s"

    def died(self, grace: float = 0.5) -> str:
        """Why the server is gone, waiting up to ``grace`` seconds for a dying server to
        finish exiting (``""`` if it still runs then)."""
        return f"server exited with code {self.process.exit_code()}" if self.process.finished(grace) else ""

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
