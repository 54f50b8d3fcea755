"""Requests per second of the HTTP case runner against a trivial server, as a ratio to a
plain httpx loop against the same server in the same process.

    python bench/http_throughput.py [--requests 400] [--sandbox local|bwrap|docker]

The server is tests/fixtures/notes' Python reference; every request is a POST with a JSON body
(its headers and body go out as two writes, as a case's requests do). The runner's server runs
in the ``--sandbox`` level (default ``local``), so its figure includes that level's port relay;
the plain loop's server always runs on the host. The runner's figure includes grading each
response and excludes server start-up: it is the difference between the best of three cases of
N+1 steps and the best of three cases of 1 step.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import httpx

from scbench.grade.http import grade_http_step
from scbench.problem.model import HttpCase, HttpExpectation, HttpRequest, HttpStep, OutputExpectation, ServerSpec
from scbench.run.context import RunContext
from scbench.run.http_case import run_http_case
from scbench.run.server import HOST, free_port
from scbench.sandbox.process import HostProcess, base_environment
from scbench.sandbox.registry import choose

SERVER = Path(__file__).resolve().parent.parent / "tests/fixtures/notes/solutions/python/checkpoint_1/notes.py"
NOTE = {"text": "hello"}
STEP = HttpStep(request=HttpRequest(method="POST", path="/notes", json=NOTE),
                expect=HttpExpectation(status=201, body=OutputExpectation(format="json", value={**NOTE, "id": "[..]"})))


def runner_seconds(steps: int, ctx: RunContext) -> float:
    case = HttpCase(id="bench", kind="http", server=ServerSpec(), steps=[STEP] * steps)
    started = time.perf_counter()
    failures = [grade_http_step(observation) for observation in run_http_case(case, ctx)]
    assert not any(failures), f"the server did not answer as expected: {failures[:1]}"
    return time.perf_counter() - started


def plain_seconds(requests: int) -> float:
    port = free_port()
    server = HostProcess([sys.executable, str(SERVER), "--port", str(port)], Path("/tmp"),
                         base_environment(Path("/tmp"), Path("/tmp")))
    with httpx.Client(base_url=f"http://{HOST}:{port}", trust_env=False) as client:
        while True:
            try:
                client.get("/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        started = time.perf_counter()
        for _ in range(requests):
            response = client.post("/notes", json=NOTE)
            response.json()
        elapsed = time.perf_counter() - started
    server.kill()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--sandbox", default="local", help="the level the runner's server runs in [default: local]")
    args = parser.parse_args()
    requests = args.requests
    with choose(args.sandbox)(visible=[SERVER.parent]) as sandbox:
        ctx = RunContext(entry=[sandbox.python, str(SERVER)], data=Path("/tmp"), sandbox=sandbox)
        runner = (min(runner_seconds(requests + 1, ctx) for _ in range(3))
                  - min(runner_seconds(1, ctx) for _ in range(3)))
    plain = min(plain_seconds(requests) for _ in range(3))
    print(f"{requests} sequential POST requests against a trivial server, the runner's in {args.sandbox}")
    print(f"runner, requests graded (best of 3) {requests / runner:8.0f} req/s")
    print(f"plain httpx loop (best of 3)        {requests / plain:8.0f} req/s")
    print(f"runner / plain throughput ratio     {plain / runner:8.3f}")


if __name__ == "__main__":
    main()
