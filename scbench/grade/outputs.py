"""Grade one observed output (bytes) against an :class:`OutputExpectation`."""

from __future__ import annotations

import re

from jsonschema import Draft202012Validator

from scbench.formats import PARSERS
from scbench.grade import structured, text
from scbench.grade.show import cut_line, cut_lines, visible
from scbench.problem.model import OutputExpectation
from scbench.results import Failure


def _raw(actual: str) -> str:
    return "\n".join(visible(cut_line(line)) for line in cut_lines(actual.split("\n"), 20))


def _text(target: str, spec: OutputExpectation, actual: str) -> Failure | None:
    if spec.regex:
        ok = re.fullmatch(spec.value, actual) is not None
        return None if ok else Failure(target=target, message="does not match the pattern",
                                       diff=text.regex_mismatch(spec.value, actual))
    if text.matches(spec.value, actual):
        return None
    return Failure(target=target, message="text differs", diff=text.unified(spec.value, actual))


def _structured(target: str, spec: OutputExpectation, actual: str) -> Failure | None:
    try:
        parsed = PARSERS[spec.format](actual)
    except ValueError as error:
        return Failure(target=target, message=f"not valid {spec.format}: {error}", diff=_raw(actual))
    if spec.json_schema is not None:
        errors = [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}"
                  for e in Draft202012Validator(spec.json_schema).iter_errors(parsed)]
        if errors:
            return Failure(target=target, message="does not match the schema", diff="\n".join(cut_lines(errors)))
    if spec.value is None:
        return None
    lines = structured.differences(spec.value, parsed, spec)
    if not lines:
        return None
    if len(lines) == 1:
        return Failure(target=target, message=lines[0])
    return Failure(target=target, message=f"{len(lines)} differences, first {lines[0]}",
                   diff="\n".join(cut_lines(lines)))


def check_output(target: str, spec: OutputExpectation, actual: bytes | None) -> Failure | None:
    """The failure of ``actual`` against ``spec``, or ``None`` when it passes. ``actual`` is
    ``None`` for an output file that was not created."""
    if actual is None:
        return Failure(target=target, message="was not created")
    decoded = actual.decode("utf-8", errors="replace")
    if spec.format == "text":
        return None if spec.value is None else _text(target, spec, decoded)
    return _structured(target, spec, decoded)
