"""Run a CLI case: a fresh working dir, its input files, then each step in order."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from scbench.problem.model import CliCase, CliStep, CopyFile, JsonStdin, YamlStdin
from scbench.run.context import RunContext, fill
from scbench.run.workdir import CaseDirs, write_inputs
from scbench.sandbox import process

STDIN: dict[type, Callable[[Any, Path], bytes]] = {
    str: lambda spec, data: spec.encode(),
    JsonStdin: lambda spec, data: (json.dumps(spec.json_, ensure_ascii=False) + "\n").encode(),
    YamlStdin: lambda spec, data: yaml.safe_dump(spec.yaml_, sort_keys=False, allow_unicode=True).encode(),
    CopyFile: lambda spec, data: (data / spec.copy_).read_bytes(),
}
"""Standard-input form -> its bytes (given the spec and the problem's data dir)."""


@dataclass(frozen=True)
class CliObservation:
    """What one step did: the process result (``None`` if it could not start, then
    ``error`` says why) and the bytes of each expected output file (``None`` if absent)."""

    step: CliStep
    result: process.ProcessResult | None
    files: dict[str, bytes | None]
    error: str = ""

    @property
    def duration(self) -> float:
        """Wall-clock seconds the step's process ran (0 if it never started)."""
        return self.result.duration if self.result else 0.0


def _read(work: Path, name: str) -> bytes | None:
    """The bytes of the output file ``name`` under ``work``; ``None`` when there is no regular file
    there, or its path goes through a symbolic link: the host never follows a solution's link."""
    path = work / name
    return path.read_bytes() if path.is_file() and path.resolve() == work.resolve() / name else None


def _run_step(step: CliStep, case: CliCase, ctx: RunContext, dirs: CaseDirs) -> CliObservation:
    values = {"cwd": str(dirs.work), "data": str(ctx.data)}
    write_inputs(dirs.work, step.files, ctx.data)
    dirs.own()
    env = {**process.base_environment(dirs.home, dirs.tmp), **ctx.env,
           **{k: fill(v, values) for k, v in {**case.env, **step.env}.items()}}
    argv = ctx.entry_in(dirs.solution_copy) + [fill(arg, values) for arg in step.args]
    stdin = STDIN[type(step.stdin)](step.stdin, ctx.data) if step.stdin is not None else None
    try:
        result = ctx.sandbox.exec(argv, dirs.work, env, dirs.root, stdin, step.timeout)
    except OSError as error:
        return CliObservation(step, None, {}, f"cannot start {argv[0]!r}: {error.strerror or error}")
    return CliObservation(step, result, {name: _read(dirs.work, name) for name in step.expect.files})


def run_cli_case(case: CliCase, ctx: RunContext) -> list[CliObservation]:
    """Run every step of ``case`` (compiled: steps and timeouts resolved) in one fresh
    working directory, removed afterwards; returns one observation per step."""
    with CaseDirs(ctx.sandbox, ctx.solution) as dirs:
        write_inputs(dirs.work, case.files, ctx.data)
        return [_run_step(step, case, ctx, dirs) for step in case.steps]
