"""Grade one observed output (bytes) against an :class:`OutputExpectation`."""

from __future__ import annotations

import re

from scbench.formats import PARSERS, typed
from scbench.grade import search, structured, text
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
    actual = text.within_tolerance(spec.value, actual, spec.tolerance) if spec.tolerance else actual
    if text.matches(spec.value, actual):
        return None
    message, diff = text.describe(spec.value, actual)
    return Failure(target=target, message=message, diff=diff)


def listed(target: str, lines: list[str], noun: str) -> Failure | None:
    """One failure for the ``lines`` found wrong with an output (``None`` when there are none): the
    only one as its message, else their count and the first, every one in the diff."""
    if len(lines) <= 1:
        return Failure(target=target, message=lines[0]) if lines else None
    return Failure(target=target, message=f"{len(lines)} {noun}, first {lines[0]}", diff="\n".join(cut_lines(lines)))


def _structured(target: str, spec: OutputExpectation, actual: str) -> Failure | None:
    try:
        parsed = typed(PARSERS[spec.format](actual), spec.cells)
    except ValueError as error:
        return Failure(target=target, message=f"not valid {spec.format}: {error}", diff=_raw(actual))
    if spec.json_schema is not None:
        from jsonschema import Draft202012Validator  # loaded by the suites that use schema: only

        errors = [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}"
                  for e in Draft202012Validator(spec.json_schema).iter_errors(parsed)]
        if errors:
            return Failure(target=target, message="does not match the schema", diff="\n".join(cut_lines(errors)))
    return None if spec.value is None else listed(
        target, structured.differences(typed(spec.value, spec.cells), parsed, spec), "differences")


def _not_utf8(target: str, actual: bytes, error: UnicodeDecodeError) -> Failure:
    line = actual.count(b"\n", 0, error.start) + 1
    column = error.start - (actual.rfind(b"\n", 0, error.start) + 1) + 1
    bad = actual[error.start:error.end].hex(" ")
    context = actual[max(error.start - 40, 0):error.end + 40].decode("utf-8", errors="backslashreplace")
    return Failure(target=target, message=f"not valid UTF-8: byte(s) {bad} at offset {error.start} (line {line}, "
                   f"byte {column} of the line): {error.reason}", diff=visible(context))


def _content(target: str, spec: OutputExpectation, actual: str) -> Failure | None:
    if spec.format == "text":
        return None if spec.value is None else _text(target, spec, actual)
    return _structured(target, spec, actual)


def check_output(target: str, spec: OutputExpectation, actual: bytes | None) -> Failure | None:
    """The failure of ``actual`` against ``spec``, or ``None`` when it passes: its text checks
    (``contains``, ...) first, then its value. ``actual`` is ``None`` for an output file that was
    not created. Output that is not valid UTF-8 fails, naming the offending bytes and their offset,
    unless only its existence is checked."""
    if actual is None:
        return Failure(target=target, message="was not created")
    try:
        decoded = actual.decode("utf-8")
    except UnicodeDecodeError as error:
        existence = spec.format == "text" and spec.value is None and not search.searched(spec)
        return None if existence else _not_utf8(target, actual, error)
    return listed(target, search.text_failures(spec, decoded), "text checks fail") or \
        _content(target, spec, decoded)
