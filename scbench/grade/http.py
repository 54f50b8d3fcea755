"""Grade an HTTP step's observation: the request itself, status, headers, body, captures."""

from __future__ import annotations

from scbench.grade import text
from scbench.grade.outputs import check_output
from scbench.results import Failure
from scbench.run.http_case import HttpObservation, substitute

SUBSTITUTED_TEXTS = ("contains", "not_contains")
"""Text checks of a body in which ``{{name}}`` takes a captured value, as text (a ``search`` regex is kept as
written)."""


def _status(obs: HttpObservation) -> list[Failure]:
    expected = obs.step.expect.status
    allowed = expected if isinstance(expected, list) else [expected]
    if expected is None or obs.status in allowed:
        return []
    shown = " or ".join(map(str, allowed))
    body = obs.body.decode("utf-8", "replace")[:300]
    return [Failure(target="status", message=f"expected {shown}, actual {obs.status}", diff=f"body: {body}")]


def _headers(obs: HttpObservation) -> list[Failure]:
    failures = []
    for name, expected in substitute(obs.step.expect.headers, obs.known).items():
        actual = obs.headers.get(name.lower())
        if actual is None or not text.matches(expected, actual):
            failures.append(Failure(target=f"header {name}", message=f"expected {expected!r}, actual {actual!r}"))
    return failures


def grade_http_step(obs: HttpObservation) -> list[Failure]:
    """Every failure of one HTTP step; a step without a response, or not sent, fails alone."""
    if obs.skipped:
        return [Failure(target="skipped", message=f"not sent: {obs.skipped}")]
    if obs.error:
        first, _, rest = obs.error.partition("\n")
        return [Failure(target="request", message=first, diff=rest)]
    body = obs.step.expect.body
    if body is not None and obs.known:
        texts = {key: [str(substitute(text, obs.known)) for text in getattr(body, key)] for key in SUBSTITUTED_TEXTS}
        body = body.model_copy(update={"value": substitute(body.value, obs.known),
                                       "json_schema": substitute(body.json_schema, obs.known), **texts})
    body_failure = check_output("body", body, obs.body) if body is not None else None
    missing = [Failure(target=f"capture {name}", message="nothing matched in the response") for name in obs.missing]
    return _status(obs) + _headers(obs) + ([body_failure] if body_failure else []) + missing
