"""Uniform views over a case as authored: its steps, inputs, outputs and argument strings.

Authored CLI cases give their single step inline or as ``steps``; these generators hide
that so the checks and the normalizer each handle one shape. Every item comes with its
document path relative to the case (``("steps", 1, "expect", "stdout")``).
"""

from __future__ import annotations

from collections.abc import Iterator

from scbench.problem.model import (
    CliCase,
    CliExpectation,
    CliStep,
    HttpCase,
    HttpExpectation,
    HttpRequest,
    HttpStep,
    InputFile,
    Output,
    SqlQuery,
)

Path_ = tuple


def cli_steps(case: CliCase) -> Iterator[tuple[Path_, CliStep]]:
    """The steps of a CLI case; an inline case is one step at the case's own path ``()``."""
    if case.steps is None:
        inline = CliStep(args=case.args or [], stdin=case.stdin, expect=case.expect or CliExpectation())
        yield (), inline
        return
    for index, step in enumerate(case.steps):
        yield ("steps", index), step


def inputs(case: CliCase | HttpCase) -> Iterator[tuple[Path_, str, InputFile]]:
    """Every input file ``(path, name, spec)`` of the case and of its CLI steps."""
    for name, spec in case.files.items():
        yield ("files", name), name, spec
    if isinstance(case, CliCase) and case.steps:
        for index, step in enumerate(case.steps):
            for name, spec in step.files.items():
                yield ("steps", index, "files", name), name, spec


def exchanges(step: HttpStep) -> Iterator[tuple[Path_, HttpRequest | None, HttpExpectation]]:
    """The requests of an HTTP step and what each response must be, with their paths relative to the step:
    its own ``request`` and ``expect``, then each request of ``concurrent`` with its ``expect``."""
    yield (), step.request, step.expect
    for index, item in enumerate(step.concurrent.requests if step.concurrent else ()):
        yield ("concurrent", "requests", index), item.request, item.expect


def http_exchanges(case: HttpCase) -> Iterator[tuple[Path_, HttpRequest | None, HttpExpectation]]:
    """:func:`exchanges` of every step of an HTTP case, with paths relative to the case."""
    for index, step in enumerate(case.steps):
        for path, request, expect in exchanges(step):
            yield ("steps", index, *path), request, expect


def outputs(case: CliCase | HttpCase) -> Iterator[tuple[Path_, Output]]:
    """Every output expectation of the case (stdout, stderr, files, HTTP bodies)."""
    if isinstance(case, HttpCase):
        for path, _, expect in http_exchanges(case):
            if expect.body is not None:
                yield (*path, "expect", "body"), expect.body
        return
    for path, step in cli_steps(case):
        streams = {"stdout": step.expect.stdout, "stderr": step.expect.stderr}
        for stream, output in streams.items():
            if output is not None:
                yield (*path, "expect", stream), output
        for name, output in step.expect.files.items():
            yield (*path, "expect", "files", name), output


def expected_paths(case: CliCase | HttpCase) -> Iterator[tuple[Path_, str, str]]:
    """Every path a CLI step's expectation names, ``(document path, kind, name)``: its output files
    (``files``), databases (``databases``) and the paths that must be ``absent`` or ``empty``."""
    for path, step in cli_steps(case) if isinstance(case, CliCase) else ():
        for kind in ("files", "databases"):
            for name in getattr(step.expect, kind):
                yield (*path, "expect", kind, name), kind, name
        for kind in ("absent", "empty"):
            for index, name in enumerate(getattr(step.expect, kind)):
                yield (*path, "expect", kind, index), kind, name


def queries(case: CliCase | HttpCase) -> Iterator[tuple[Path_, SqlQuery]]:
    """Every SQL query of a CLI step's database expectations."""
    for path, step in cli_steps(case) if isinstance(case, CliCase) else ():
        for name, database in step.expect.databases.items():
            for index, query in enumerate(database.queries):
                yield (*path, "expect", "databases", name, "queries", index), query


def argument_strings(case: CliCase | HttpCase) -> Iterator[tuple[Path_, str]]:
    """Strings that take ``{cwd}``/``{data}``/``{port}``/``{host}`` placeholders."""
    for key, value in case.env.items():
        yield ("env", key), value
    if isinstance(case, HttpCase):
        for index, arg in enumerate(case.server.args if case.server else []):
            yield ("server", "args", index), arg
        return
    for path, step in cli_steps(case):
        for index, arg in enumerate(step.args):
            yield (*path, "args", index), arg
        for index, arg in enumerate(step.run or ()):
            yield (*path, "run", index), arg
        for key, value in step.env.items():
            yield (*path, "env", key), value
