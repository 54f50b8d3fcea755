"""Run an HTTP case: a fresh server on a free port, then each request step in order,
feeding captured values into later steps and polling where asked."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonpath

from scbench.formats import PARSERS
from scbench.problem.model import HttpCase, HttpStep
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
    that uses a capture an earlier step failed to take is not sent: ``skipped`` says why."""

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


def _send(client: httpx.Client, step: HttpStep, captures: dict[str, Any]) -> HttpObservation:
    request = substitute(step.request.model_dump(by_alias=True), captures)
    started = time.monotonic()
    response = client.request(request["method"], request["path"], params=request["query"] or None,
                              headers=request["headers"], json=request["json"], content=request["text"],
                              data=request["form"], timeout=step.timeout)
    captured, missing = _capture(step, response)
    return HttpObservation(step, response.status_code, {k.lower(): v for k, v in response.headers.items()},
                           response.content, time.monotonic() - started, captured=captured, missing=missing,
                           known={**captures, **captured})


def _attempt(client: httpx.Client, step: HttpStep, captures: dict[str, Any], server: Server) -> HttpObservation:
    try:
        return _send(client, step, captures)
    except httpx.TimeoutException:
        return HttpObservation(step, error=f"no response within {step.timeout:g}s")
    except httpx.HTTPError as error:
        reason = server.died() or f"request failed: {type(error).__name__}: {error}"
        return HttpObservation(step, error=f"{reason}\n{tail(server.process)}")


def _run_step(client, step: HttpStep, captures: dict[str, Any], server: Server,
              accept: Callable[[HttpObservation], bool]) -> HttpObservation:
    observation = _attempt(client, step, captures, server)
    deadline = time.monotonic() + (step.poll.timeout if step.poll else 0)
    while step.poll and not observation.error and not accept(observation) and time.monotonic() < deadline:
        time.sleep(step.poll.interval)
        observation = _attempt(client, step, captures, server)
    return observation


def _skip_reason(step: HttpStep, failed: dict[str, str]) -> str:
    """Why ``step`` cannot be sent: the captures it uses that earlier steps did not take
    (``failed``: capture name -> ``step 'create' did not capture``); empty when it can."""
    used = set(CAPTURE.findall(step.request.model_dump_json() + step.expect.model_dump_json())) & set(failed)
    return "; ".join(f"it uses {{{{{name}}}}}, which {failed[name]}" for name in sorted(used))


def _failed_captures(observation: HttpObservation, label: str) -> dict[str, str]:
    """The captures ``observation``'s step did not take, each with why: missing from its
    response, or every capture of a step that was not sent."""
    if observation.skipped:
        return dict.fromkeys(observation.step.capture, f"{label} did not capture (it was not sent)")
    return dict.fromkeys(observation.missing, f"{label} did not capture")


def run_http_case(case: HttpCase, ctx: RunContext,
                  accept: Callable[[HttpObservation], bool] = lambda obs: True) -> list[HttpObservation]:
    """Start a fresh server for ``case`` and run its steps in order; stop at the first step
    whose request could not be made (server dead, timeout). ``accept`` tells polling steps
    when a response is good enough. The server's process group is always killed."""
    with CaseDirs(ctx.sandbox, ctx.solution) as dirs:
        values = {"cwd": str(dirs.work), "data": str(ctx.data), "port": str(free_port()), "host": HOST}
        write_inputs(dirs.work, case.files, ctx.data, values)
        dirs.own()
        env = {**process.base_environment(dirs.home, dirs.tmp), **ctx.env,
               **{k: fill(v, values) for k, v in {**case.env, **case.server.env}.items()}}
        argv = ctx.entry_in(dirs.solution_copy) + [fill(arg, values) for arg in case.server.args]
        with Server(ctx.sandbox, argv, dirs.work, env, dirs.root, case.server.ready, int(values["port"])) as server:
            if server.error:
                return [HttpObservation(case.steps[0], error=f"{server.error}\n{tail(server.process)}")]
            observations: list[HttpObservation] = []
            captures: dict[str, Any] = {}
            failed: dict[str, str] = {}
            with client(server.endpoint) as http:
                for number, step in enumerate(case.steps, 1):
                    reason = _skip_reason(step, failed)
                    observations.append(HttpObservation(step, skipped=reason) if reason
                                        else _run_step(http, step, captures, server, accept))
                    if observations[-1].error:
                        break
                    captures.update(observations[-1].captured)
                    failed.update(_failed_captures(observations[-1], f"step {step.name or number!r}"))
            return observations
