"""Local runner: an HTTP service that runs shell commands in copies of persistent environments."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cache import Cache, key_of
from environments import Environments, mode_of
from errors import ApiError, invalid
from request import ExecuteRequest, environment_of, files_of, parse_execute
from runner import Outcome, Run, execute
from stats import Stats, rounded


class Service:
    """The state of one service process and its endpoints: each takes the decoded body and returns
    (status, JSON body)."""

    def __init__(self) -> None:
        self.stats = Stats()
        self.cache = Cache()
        self.environments = Environments()

    def create(self, body) -> tuple[int, dict]:
        if not isinstance(body, dict):
            raise invalid("the request body must be a JSON object")
        name = environment_of(body.get("name"), "INVALID_ENVIRONMENT")
        mode = mode_of(body.get("concurrency_mode", "never"))
        written = self.environments.create(name, mode, files_of(body.get("files", {})))
        return 201, {"name": name, "concurrency_mode": mode,
                     "files": {path: {"written_bytes": size} for path, size in written.items()}}

    def run(self, body) -> tuple[int, dict]:
        request = parse_execute(body)
        key = key_of(request)
        stored = None if request.force else self.cache.get(key)
        if stored is not None:
            self.stats.hit()
            return 201, {"id": str(uuid.uuid4()), **stored, "cached": True}
        answer = self.fresh(request)
        self.cache.put(key, answer)
        return 201, {"id": str(uuid.uuid4()), **answer, "cached": False}

    def fresh(self, request: ExecuteRequest) -> dict:
        """The answer (without ``id`` and ``cached``) of running ``request`` now in its environment,
        recorded in the stats."""
        with self.environments.get(request.environment).run() as (root, environment):
            run = execute(request, root)
        self.stats.record(run.duration, len(request.steps), [outcome.duration for _, outcome in run.results])
        answer = single(run) if isinstance(request.command, str) else chain(run)
        return {**answer, **({} if run.files is None else {"files": run.files}), "environment": environment}

    def report(self, _body) -> tuple[int, dict]:
        return 200, self.stats.report()


def outcome_fields(outcome: Outcome) -> dict:
    return {"stdout": outcome.stdout, "stderr": outcome.stderr, "exit_code": outcome.exit_code,
            "duration": rounded(outcome.duration), "timed_out": outcome.timed_out}


def single(run: Run) -> dict:
    """The answer fields of a string command: its one outcome."""
    return outcome_fields(run.results[0][1])


def chain(run: Run) -> dict:
    """The answer fields of a chain: one entry per command that ran, then the totals."""
    commands = [{"cmd": step.cmd, **outcome_fields(outcome), **({"required": True} if step.required else {})}
                for step, outcome in run.results]
    return {"commands": commands, "exit_code": run.exit_code, "duration": rounded(run.duration),
            "timed_out": run.timed_out}


def decode(raw: bytes):
    """The JSON value of a request body; raises ``ApiError`` (400) when it is not JSON."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise invalid(f"the body is not valid JSON: {error}", "INVALID_JSON") from error


def handler_for(service: Service) -> type[BaseHTTPRequestHandler]:
    """A request handler class routing to ``service``."""
    routes = {("POST", "/v1/execute"): service.run, ("POST", "/v1/environment"): service.create,
              ("GET", "/v1/stats/execution"): service.report}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def dispatch(self, method: str) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            endpoint = routes.get((method, self.path.split("?", 1)[0]))
            try:
                if endpoint is None:
                    raise ApiError(404, "NOT_FOUND", f"no endpoint {method} {self.path}")
                self.answer(*endpoint(decode(raw) if method == "POST" else None))
            except ApiError as error:
                self.answer(error.status, error.body())
            except Exception as error:  # an unexpected failure still gets the JSON error body
                traceback.print_exc(file=sys.stderr)
                self.answer(500, {"error": f"internal error: {error}", "code": "INTERNAL_ERROR"})

        def do_GET(self) -> None:
            self.dispatch("GET")

        def do_POST(self) -> None:
            self.dispatch("POST")

        def log_message(self, *_args) -> None:
            pass

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--address", default="0.0.0.0")
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.address, args.port), handler_for(Service()))
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
