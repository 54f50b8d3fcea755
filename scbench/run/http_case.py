"""Run an HTTP case: a fresh server on a free port, then each request step in order,
feeding captured values into later steps, polling where asked, sending concurrent requests at once."""

from __future__ import annotations

import base64
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from scbench.formats import PARSERS
from scbench.problem.model import HttpCase, HttpStep, InputFile, ServerSpec
from scbench.run.context import RunContext, fill
from scbench.run.server import HOST, Server, client, free_port, tail
from scbench.run.workdir import CaseDirs, write_inputs
from scbench.sandbox import process

CAPTURE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")


@dataclass(frozen=True)
class HttpObservation:
    """One step's response (status, lower-cased headers, body bytes) or the ``error`` that
    prevented it, the values it captured, what could not be captured, and every capture
    ``known`` at this point (earlier steps' and its own: expectations may use them). A step
    that uses a capture an earlier step failed to take is not sent: ``skipped`` says why. A
    concurrent step's observation holds one observation per request sent, in ``parts``."""

    step: HttpStep
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    duration: float = 0.0
    error: str = ""
    captured: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    known: dict[str, Any] = field(default_factory=dict)
    skipped: str = ""
    parts: list[HttpObservation] = field(default_factory=list)


def substitute(item: Any, captures: dict[str, Any]) -> Any:
    """``item`` with ``{{name}}`` replaced by captured values, recursively; a string that is
    exactly one ``{{name}}`` takes the captured value with its JSON type."""
    if isinstance(item, dict):
        return {key: substitute(value, captures) for key, value in item.items()}
    if isinstance(item, list):
        return [substitute(value, captures) for value in item]
    if not isinstance(item, str):
        return item
    whole = CAPTURE.fullmatch(item)
    if whole and whole.group(1) in captures:
        return captures[whole.group(1)]
    return CAPTURE.sub(lambda m: str(captures.get(m.group(1), m.group(0))), item)


def _capture(step: HttpStep, response: httpx.Response) -> tuple[dict[str, Any], list[str]]:
    import jsonpath  # loaded by the suites that capture from bodies only

    captured, missing = {}, []
    for name, capture in step.capture.items():
        if capture.header is not None:
            found = [response.headers[capture.header]] if capture.header in response.headers else []
        else:
            try:
                found = jsonpath.findall(capture.jsonpath, PARSERS["json"](response.text))
            except ValueError:  # not JSON, or over its depth and size limits: nothing to capture
                found = []
        if found:
            captured[name] = found[0]
        else:
            missing.append(name)
    return captured, missing


BODY_CONTENT: dict[str, Callable[[Any, Path], bytes | str]] = {
    "text": lambda text, data: text,
    "base64": lambda encoded, data: base64.b64decode(encoded),
    "copy": lambda name, data: (data / name).read_bytes(),
}
"""Request fields whose value becomes the body's content -> how (``data``: the problem's data directory)."""


def _parts(step: HttpStep) -> list[tuple[HttpStep, float]]:
    """The requests of a concurrent step, each as a step of its own (``repeat`` times each), named by number,
    with its delay in seconds."""
    items = [item for item in step.concurrent.requests for _ in range(item.repeat)]
    return [(HttpStep(name=f"{step.name or 'concurrent'} #{number}", request=item.request, expect=item.expect,
                      timeout=step.timeout), item.delay) for number, item in enumerate(items, 1)]


@dataclass(frozen=True)
class Line:
    """The way to one running ``server``: an HTTP ``client`` to it and the problem's ``data`` directory
    (request bodies copied from data files)."""

    client: httpx.Client
    server: Server
    data: Path

    def send(self, step: HttpStep, captures: dict[str, Any]) -> HttpObservation:
        request = substitute(step.request.model_dump(by_alias=True), captures)
        content = next((read(request[key], self.data) for key, read in BODY_CONTENT.items()
                        if request[key] is not None), None)
        started = time.monotonic()
        response = self.client.request(request["method"], request["path"], params=request["query"] or None,
                                       headers=request["headers"], json=request["json"], content=content,
                                       data=request["form"], timeout=step.timeout)
        captured, missing = _capture(step, response)
        return HttpObservation(step, response.status_code, {k.lower(): v for k, v in response.headers.items()},
                               response.content, time.monotonic() - started, captured=captured, missing=missing,
                               known={**captures, **captured})

    def attempt(self, step: HttpStep, captures: dict[str, Any]) -> HttpObservation:
        """:meth:`send`, or the observation of why no response came."""
        try:
            return self.send(step, captures)
        except httpx.TimeoutException:
            return HttpObservation(step, error=f"no response within {step.timeout:g}s")
        except httpx.HTTPError as error:
            reason = self.server.died() or f"request failed: {type(error).__name__}: {error}"
            return HttpObservation(step, error=f"{reason}\n{tail(self.server.process)}")

    def together(self, step: HttpStep, captures: dict[str, Any]) -> HttpObservation:
        """Every request of concurrent ``step`` sent at once: one thread each, released by one barrier once all
        are ready, each after its delay; the observation holds each one's as ``parts``, in the order written."""
        parts = _parts(step)
        barrier = threading.Barrier(len(parts))

        def one(part: tuple[HttpStep, float]) -> HttpObservation:
            barrier.wait()
            time.sleep(part[1])
            return self.attempt(part[0], captures)

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=len(parts)) as pool:
            done = list(pool.map(one, parts))
        return HttpObservation(step, duration=time.monotonic() - started, known=captures, parts=done)

    def step(self, step: HttpStep, captures: dict[str, Any],
             accept: Callable[[HttpObservation], bool]) -> HttpObservation:
        """Run one step: concurrent requests together, or one request, repeated while it polls and ``accept``
        refuses its response."""
        if step.concurrent is not None:
            return self.together(step, captures)
        observation = self.attempt(step, captures)
        deadline = time.monotonic() + (step.poll.timeout if step.poll else 0)
        while step.poll and not observation.error and not accept(observation) and time.monotonic() < deadline:
            time.sleep(step.poll.interval)
            observation = self.attempt(step, captures)
        return observation


def _skip_reason(step: HttpStep, failed: dict[str, str]) -> str:
    """Why ``step`` cannot be sent: the captures it uses that earlier steps did not take
    (``failed``: capture name -> ``step 'create' did not capture``); empty when it can."""
    used = set(CAPTURE.findall(step.model_dump_json(include={"request", "concurrent", "expect"}))) & set(failed)
    return "; ".join(f"it uses {{{{{name}}}}}, which {failed[name]}" for name in sorted(used))


def _failed_captures(observation: HttpObservation, label: str) -> dict[str, str]:
    """The captures ``observation``'s step did not take, each with why: missing from its
    response, or every capture of a step that was not sent."""
    if observation.skipped:
        return dict.fromkeys(observation.step.capture, f"{label} did not capture (it was not sent)")
    return dict.fromkeys(observation.missing, f"{label} did not capture")


class HttpSession:
    """A server of the solution started for ``server`` in a fresh case directory (``files`` written into it,
    ``env`` added to the checkpoint's), on a free port of ``ctx``'s sandbox; steps run against it with
    :meth:`run`, any number of times. A context manager: the server's process tree is killed on exit."""

    def __init__(self, ctx: RunContext, server: ServerSpec, env: dict[str, str], files: dict[str, InputFile]):
        self.ctx, self.spec, self.env, self.files = ctx, server, env, files

    def __enter__(self) -> HttpSession:
        self.stack = ExitStack()
        with self.stack:
            dirs = self.stack.enter_context(CaseDirs(self.ctx.sandbox, self.ctx.solution))
            values = {"cwd": str(dirs.work), "data": str(self.ctx.data), "port": str(free_port()), "host": HOST}
            write_inputs(dirs.work, self.files, self.ctx.data, values)
            dirs.own()
            env = {**process.base_environment(dirs.home, dirs.tmp), **self.ctx.sandbox.run_variables(),
                   **self.ctx.env,
                   **{k: fill(v, values) for k, v in {**self.env, **self.spec.env}.items()}}
            argv = self.ctx.entry_in(dirs.solution_copy) + [fill(arg, values) for arg in self.spec.args]
            self.server = self.stack.enter_context(Server(self.ctx.sandbox, argv, dirs.work, env, dirs.root,
                                                          self.spec.ready, int(values["port"])))
            self.line = Line(self.stack.enter_context(client(self.server.endpoint)), self.server, self.ctx.data)
            self.stack = self.stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()

    def run(self, steps: list[HttpStep], captures: dict[str, Any],
            accept: Callable[[HttpObservation], bool]) -> list[HttpObservation]:
        """Run ``steps`` in order, ``captures`` known from the start; stop at the first step whose request could
        not be made (server dead, timeout). A step that uses a capture an earlier one failed to take is skipped;
        a server that never became ready gives one observation, of the first step, saying why."""
        if self.server.error:
            return [HttpObservation(steps[0], error=f"{self.server.error}\n{tail(self.server.process)}")]
        observations: list[HttpObservation] = []
        captures, failed = dict(captures), {}
        for number, step in enumerate(steps, 1):
            reason = _skip_reason(step, failed)
            observations.append(HttpObservation(step, skipped=reason) if reason
                                else self.line.step(step, captures, accept))
            if observations[-1].error:
                break
            captures.update(observations[-1].captured)
            failed.update(_failed_captures(observations[-1], f"step {step.name or number!r}"))
        return observations


def run_http_case(case: HttpCase, ctx: RunContext,
                  accept: Callable[[HttpObservation], bool] = lambda obs: True) -> list[HttpObservation]:
    """Start a fresh server for ``case`` and run its steps in order (:meth:`HttpSession.run`). ``accept`` tells
    polling steps when a response is good enough. The server's process group is always killed."""
    with HttpSession(ctx, case.server, case.env, case.files) as session:
        return session.run(case.steps, {}, accept)
