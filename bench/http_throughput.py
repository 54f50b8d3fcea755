"""Requests per second of the HTTP case runner against a trivial server, as a ratio to a
plain httpx loop against the same server in the same process.

    python bench/http_throughput.py [--requests 400]

The server is tests/fixtures/notes' Python reference. The runner's figure includes grading
each response and excludes server start-up: it is the difference between the best of three
cases of N+1 steps and the best of three cases of 1 step.
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

SERVER = Path(__file__).resolve().parent.parent / "tests/fixtures/notes/solutions/python/checkpoint_1/notes.py"
STEP = HttpStep(request=HttpRequest(path="/notes/1"),
                expect=HttpExpectation(status=404, body=OutputExpectation(format="json", value={"error": "not found"})))


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
            response = client.get("/notes/1")
            response.json()
        elapsed = time.perf_counter() - started
    server.kill()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    requests = parser.parse_args().requests
    ctx = RunContext(entry=[sys.executable, str(SERVER)], data=Path("/tmp"))
    runner = min(runner_seconds(requests + 1, ctx) for _ in range(3)) - min(runner_seconds(1, ctx) for _ in range(3))
    plain = min(plain_seconds(requests) for _ in range(3))
    print(f"{requests} sequential requests against a trivial server")
    print(f"runner, requests graded (best of 3) {requests / runner:8.0f} req/s")
    print(f"plain httpx loop (best of 3)        {requests / plain:8.0f} req/s")
    print(f"runner / plain throughput ratio     {plain / runner:8.3f}")


if __name__ == "__main__":
    main()
