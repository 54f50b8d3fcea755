"""Grade an HTTP step's observation: the request itself, status, headers, body, captures."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace

from scbench.grade import text
from scbench.grade.outputs import check_output
from scbench.problem.model import BodyBytes, OutputExpectation
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


def _described(size: int | None, digest: str | None) -> str:
    return f"{size} bytes" + (f" (sha256 {digest[:16]}...)" if digest else "") if size is not None \
        else f"sha256 {digest[:16]}..."


def _expected_bytes(spec: BodyBytes) -> tuple[bytes | None, str | None, int | None]:
    """The bytes ``spec`` gives (if it gives them), their digest and their size, each ``None`` when unknown."""
    if spec.base64 is None:
        return None, spec.sha256, spec.size
    expected = base64.b64decode(spec.base64)
    return expected, hashlib.sha256(expected).hexdigest(), len(expected)


def _first_difference(expected: bytes | None, actual: bytes) -> str:
    if expected is None:
        return ""
    first = next((index for index, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
                 min(len(expected), len(actual)))
    return f"; they differ from byte {first} on"


def _body_bytes(obs: HttpObservation) -> list[Failure]:
    """The body compared as bytes with ``body_bytes``: its bytes, digest or size."""
    if obs.step.expect.body_bytes is None:
        return []
    expected, digest, size = _expected_bytes(obs.step.expect.body_bytes)
    actual = hashlib.sha256(obs.body).hexdigest()
    if digest in (None, actual) and size in (None, len(obs.body)):
        return []
    return [Failure(target="body bytes", message=f"expected {_described(size, digest)}, actual "
                    f"{_described(len(obs.body), actual)}{_first_difference(expected, obs.body)}",
                    diff=f"actual (first 64 bytes): {obs.body[:64].hex(' ')}")]


def _named(name: str, failures: list[Failure]) -> list[Failure]:
    return [failure.model_copy(update={"target": f"{name}: {failure.target}"}) for failure in failures]


def _matching(meets: list[list[bool]]) -> list[int] | None:
    """An assignment of responses to expectations (``meets[r][e]``: response ``r`` meets expectation ``e``)
    giving each expectation a different response, as the response of each expectation; ``None`` if there is
    none (Kuhn's augmenting paths)."""
    owner: list[int | None] = [None] * len(meets)

    def place(response: int, seen: set[int]) -> bool:
        for expectation in (e for e, ok in enumerate(meets[response]) if ok and e not in seen):
            seen.add(expectation)
            if owner[expectation] is None or place(owner[expectation], seen):
                owner[expectation] = response
                return True
        return False

    return owner if all(place(response, set()) for response in range(len(meets))) else None


def _in_any_order(obs: HttpObservation, in_order: list[list[Failure]]) -> list[Failure]:
    """No failure when some assignment of the responses to the expectations meets them all, else one that
    shows the failures in the order written."""
    meets = [[not grade_http_step(replace(part, step=other.step)) for other in obs.parts] for part in obs.parts]
    if _matching(meets) is not None:
        return []
    statuses = ", ".join(str(part.status or part.error.partition("\n")[0]) for part in obs.parts)
    return [Failure(target="concurrent", message=f"no order of the {len(obs.parts)} responses (status {statuses}) "
                    "meets every expectation; as sent:",
                    diff="\n".join(f"{failure.target}: {failure.message}" for failures in in_order
                                   for failure in failures))]


def _concurrent(obs: HttpObservation) -> list[Failure]:
    """Each response of a concurrent step against its own request's expectation, or, with ``any_order``,
    against any one expectation (:func:`_in_any_order`)."""
    in_order = [_named(part.step.name, grade_http_step(part)) for part in obs.parts]
    if obs.step.concurrent.any_order and any(in_order):
        return _in_any_order(obs, in_order)
    return [failure for failures in in_order for failure in failures]


def _filled(body: OutputExpectation, known: dict) -> OutputExpectation:
    """``body`` with ``{{name}}`` filled from the captures ``known``: in its value, schema and text checks."""
    texts = {key: [str(substitute(text, known)) for text in getattr(body, key)] for key in SUBSTITUTED_TEXTS}
    return body.model_copy(update={"value": substitute(body.value, known),
                                   "json_schema": substitute(body.json_schema, known), **texts})


def grade_http_step(obs: HttpObservation) -> list[Failure]:
    """Every failure of one HTTP step; a step without a response, or not sent, fails alone."""
    if obs.parts:
        return _concurrent(obs)
    if obs.skipped:
        return [Failure(target="skipped", message=f"not sent: {obs.skipped}")]
    if obs.error:
        first, _, rest = obs.error.partition("\n")
        return [Failure(target="request", message=first, diff=rest)]
    body = obs.step.expect.body
    body = _filled(body, obs.known) if body is not None and obs.known else body
    body_failure = check_output("body", body, obs.body) if body is not None else None
    missing = [Failure(target=f"capture {name}", message="nothing matched in the response") for name in obs.missing]
    return _status(obs) + _headers(obs) + ([body_failure] if body_failure else []) + _body_bytes(obs) + missing
