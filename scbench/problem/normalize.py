"""Turn a checked, authored case into its compiled form.

After normalization every CLI case has explicit ``steps`` (inline fields cleared), every
output expectation is an :class:`OutputExpectation` with its ``value`` inlined (from
``file:`` if need be), and every category, timeout and HTTP server is resolved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from scbench.formats import PARSERS
from scbench.problem.checks import CaseContext
from scbench.problem.model import (
    BodyBytes,
    CliCase,
    CliStep,
    HttpCase,
    HttpExpectation,
    HttpStep,
    Output,
    OutputExpectation,
)
from scbench.problem.source import read_text
from scbench.problem.walk import cli_steps


def output(authored: Output, ctx: CaseContext) -> OutputExpectation:
    """A bare string becomes exact text; a ``file:`` is read and parsed with ``format`` (a file
    that does not exist, accepted only with ``missing_expected_files``, gives no value)."""
    if isinstance(authored, str):
        return OutputExpectation(value=authored)
    if authored.file is None:
        return authored
    path = ctx.case_dir / authored.file
    value = PARSERS[authored.format](read_text(path)) if path.is_file() else None
    return authored.model_copy(update={"file": None, "value": value})


def _cli_step(step: CliStep, ctx: CaseContext, case_timeout: float | None) -> CliStep:
    expect = step.expect
    streams = {name: output(value, ctx) for name in ("stdout", "stderr")
               if (value := getattr(expect, name)) is not None}
    files = {name: output(value, ctx) for name, value in expect.files.items()}
    return step.model_copy(update={
        "timeout": step.timeout or case_timeout or ctx.timeout,
        "expect": expect.model_copy(update={"files": files, **streams}),
    })


def _body_bytes(spec: BodyBytes | None, ctx: CaseContext) -> BodyBytes | None:
    """``copy`` becomes the ``sha256`` and ``size`` of that data file."""
    if spec is None or spec.copy_ is None:
        return spec
    data = (ctx.problem_dir / "data" / spec.copy_).read_bytes()
    return BodyBytes(sha256=hashlib.sha256(data).hexdigest(), size=len(data))


def _http_expect(expect: HttpExpectation, ctx: CaseContext) -> HttpExpectation:
    body = output(expect.body, ctx) if expect.body is not None else None
    return expect.model_copy(update={"body": body, "body_bytes": _body_bytes(expect.body_bytes, ctx)})


def _each_expect(step: HttpStep, change: Callable[[HttpExpectation], HttpExpectation]) -> HttpStep:
    """``step`` with ``change`` applied to its ``expect`` and to that of each of its concurrent requests."""
    concurrent = step.concurrent and step.concurrent.model_copy(update={"requests": [
        item.model_copy(update={"expect": change(item.expect)}) for item in step.concurrent.requests]})
    return step.model_copy(update={"expect": change(step.expect), "concurrent": concurrent})


def _http_step(step: HttpStep, ctx: CaseContext, case_timeout: float | None) -> HttpStep:
    timed = step.model_copy(update={"timeout": step.timeout or case_timeout or ctx.timeout})
    return _each_expect(timed, lambda expect: _http_expect(expect, ctx))


def normalize(case: CliCase | HttpCase, ctx: CaseContext) -> CliCase | HttpCase:
    """The compiled form of ``case`` (which must have passed every check)."""
    common = {"category": case.category or ctx.category}
    if isinstance(case, HttpCase):
        steps = [_http_step(step, ctx, case.timeout) for step in case.steps]
        return case.model_copy(update={**common, "steps": steps, "server": case.server or ctx.problem.server})
    steps = [_cli_step(step, ctx, case.timeout) for _, step in cli_steps(case)]
    return case.model_copy(update={**common, "steps": steps, "args": None, "stdin": None, "expect": None,
                                   "regression": {}})


def _ignoring(output: OutputExpectation | None, paths: list[str]) -> OutputExpectation | None:
    if output is None or output.format == "text":
        return output
    return output.model_copy(update={"ignore": [*output.ignore, *paths]})


def _step_ignoring(step: CliStep | HttpStep, paths: list[str]) -> CliStep | HttpStep:
    expect = step.expect
    if isinstance(step, HttpStep):
        return _each_expect(step, lambda http: http.model_copy(update={"body": _ignoring(http.body, paths)}))
    streams = {name: _ignoring(getattr(expect, name), paths) for name in ("stdout", "stderr")}
    files = {name: _ignoring(output, paths) for name, output in expect.files.items()}
    return step.model_copy(update={"expect": expect.model_copy(update={**streams, "files": files})})


def ignoring(case: CliCase | HttpCase, paths: list[str]) -> CliCase | HttpCase:
    """A compiled ``case`` whose structured outputs also ignore the JSONPaths ``paths``
    (how a later checkpoint's ``regression_ignore`` applies to earlier cases)."""
    return case.model_copy(update={"steps": [_step_ignoring(step, paths) for step in case.steps]}) if paths else case
