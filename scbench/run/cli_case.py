"""Run a CLI case: a fresh working dir, its input files, then each step in order."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scbench.problem.model import CliCase, CliStep, CopyFile, JsonStdin, YamlStdin
from scbench.run.context import RunContext, fill, filled_content, filled_expectation
from scbench.run.found import Found, found
from scbench.run.workdir import CaseDirs, write_inputs
from scbench.sandbox import process

STDIN: dict[type, Callable[[Any, Path], bytes]] = {
    str: lambda spec, data: spec.encode(),
    JsonStdin: lambda spec, data: (json.dumps(spec.json_, ensure_ascii=False) + "\n").encode(),
    YamlStdin: lambda spec, data: yaml.safe_dump(spec.yaml_, sort_keys=False, allow_unicode=True).encode(),
    CopyFile: lambda spec, data: (data / spec.copy_).read_bytes(),
}
"""Standard-input form -> its bytes (given the spec and the problem's data dir)."""

DATABASE_FILES = ("", "-wal", "-journal")
"""The suffixes of an SQLite database's files: the database, its write-ahead log and its rollback journal,
read together so that a copy opens as the program left it."""


@dataclass(frozen=True)
class CliObservation:
    """What one step did: the process result (``None`` if it could not start, then
    ``error`` says why), the bytes of each expected output file (``None`` if absent), what is at each
    path that must be absent or empty (``None``: nothing), and the bytes of each expected database's files
    (suffix -> bytes, ``None`` when the database is absent). ``step`` has its placeholders filled from
    ``placeholders`` (name -> value: ``cwd``, ``data``)."""

    step: CliStep
    result: process.ProcessResult | None
    files: dict[str, bytes | None]
    error: str = ""
    paths: dict[str, Found | None] = field(default_factory=dict)
    databases: dict[str, dict[str, bytes] | None] = field(default_factory=dict)
    placeholders: dict[str, str] = field(default_factory=dict)

    @property
    def duration(self) -> float:
        """Wall-clock seconds the step's process ran (0 if it never started)."""
        return self.result.duration if self.result else 0.0


def _read(work: Path, name: str) -> bytes | None:
    """The bytes of the output file ``name`` under ``work``; ``None`` when there is no regular file
    there, or its path goes through a symbolic link: the host never follows a solution's link."""
    path = work / name
    return path.read_bytes() if path.is_file() and path.resolve() == work.resolve() / name else None


def _database(work: Path, name: str) -> dict[str, bytes] | None:
    """The files of the SQLite database ``name`` (:data:`DATABASE_FILES`) as the step left them; ``None``
    when the database itself is absent."""
    found = {suffix: _read(work, name + suffix) for suffix in DATABASE_FILES}
    return {suffix: data for suffix, data in found.items() if data is not None} if found[""] is not None else None


def _observed(step: CliStep, result: process.ProcessResult, work: Path, values: dict[str, str]) -> CliObservation:
    expect = step.expect
    return CliObservation(step, result, {name: _read(work, name) for name in expect.files},
                          paths={name: found(work, name) for name in [*expect.absent, *expect.empty]},
                          databases={name: _database(work, name) for name in expect.databases},
                          placeholders=values)


def _run_step(step: CliStep, case: CliCase, ctx: RunContext, dirs: CaseDirs, values: dict[str, str]) -> CliObservation:
    step = step.model_copy(update={"expect": filled_expectation(step.expect, values),
                                   "stdin": filled_content(step.stdin, values)})
    write_inputs(dirs.work, step.files, ctx.data, values)
    dirs.own()
    env = {**process.base_environment(dirs.home, dirs.tmp), **ctx.sandbox.run_variables(), **ctx.env,
           **{k: fill(v, values) for k, v in {**case.env, **step.env}.items()}}
    argv = [fill(arg, values) for arg in step.run] if step.run is not None else \
        ctx.entry_in(dirs.solution_copy) + [fill(arg, values) for arg in step.args]
    stdin = STDIN[type(step.stdin)](step.stdin, ctx.data) if step.stdin is not None else None
    try:
        result = ctx.sandbox.exec(argv, dirs.work, env, dirs.root, stdin, step.timeout)
    except OSError as error:
        return CliObservation(step, None, {}, f"cannot start {argv[0]!r}: {error.strerror or error}")
    return _observed(step, result, dirs.work, values)


def run_cli_case(case: CliCase, ctx: RunContext) -> list[CliObservation]:
    """Run every step of ``case`` (compiled: steps and timeouts resolved) in one fresh
    working directory, removed afterwards; returns one observation per step."""
    with CaseDirs(ctx.sandbox, ctx.solution) as dirs:
        values = {"cwd": str(dirs.work), "data": str(ctx.data)}
        write_inputs(dirs.work, case.files, ctx.data, values)
        return [_run_step(step, case, ctx, dirs, values) for step in case.steps]
