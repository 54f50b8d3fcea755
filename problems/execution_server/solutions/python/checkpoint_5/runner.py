"""Running a command, or a chain of commands, in a fresh working directory with its files, env, stdin
and timeouts."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from errors import invalid
from formats import file_bytes
from request import ExecuteRequest, Step
from tracking import collect

TIMED_OUT_EXIT = -1


@dataclass(frozen=True)
class Outcome:
    """What a command did: its streams (text), exit status, duration in seconds (unrounded)."""

    stdout: str
    stderr: str
    exit_code: int
    duration: float
    timed_out: bool

    @property
    def failed(self) -> bool:
        return self.timed_out or self.exit_code != 0


@dataclass(frozen=True)
class Run:
    """A finished run: each command that ran with its outcome, in order; the tracked files (path ->
    text, ``None`` when nothing was tracked)."""

    results: list[tuple[Step, Outcome]]
    files: dict[str, str] | None

    @property
    def duration(self) -> float:
        return sum(outcome.duration for _, outcome in self.results)

    @property
    def exit_code(self) -> int:
        """The exit status of the first command that failed, 0 when none did."""
        return next((outcome.exit_code for _, outcome in self.results if outcome.failed), 0)

    @property
    def timed_out(self) -> bool:
        return any(outcome.timed_out for _, outcome in self.results)


def inside(root: Path, relative: str) -> Path:
    """``root / relative``, refusing (400) a path that is absolute or leads outside ``root``."""
    target = (root / relative).resolve()
    if Path(relative).is_absolute() or not target.is_relative_to(root):
        raise invalid(f"file path {relative!r} must stay inside the working directory", "INVALID_FILES")
    return target


def write_files(root: Path, files: dict[str, object]) -> None:
    """Every file of the request, all checked and serialized first so that a refused one writes nothing."""
    contents = {inside(root, relative): file_bytes(relative, value) for relative, value in files.items()}
    for target, data in contents.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def run_command(command: str, cwd: Path, env: dict[str, str], stdin: str, timeout: float) -> Outcome:
    """``/bin/sh -c command`` in ``cwd``; killed with its whole process group after ``timeout`` seconds."""
    started = time.perf_counter()
    process = subprocess.Popen(["/bin/sh", "-c", command], cwd=cwd, env={**os.environ, **env},
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(stdin.encode("utf-8"), timeout=timeout)
        exit_code, timed_out = process.returncode, False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        exit_code, timed_out = TIMED_OUT_EXIT, True
    duration = time.perf_counter() - started
    return Outcome(out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), exit_code, duration, timed_out)


def run_chain(request: ExecuteRequest, root: Path) -> list[tuple[Step, Outcome]]:
    """Every step of ``request`` in order, the first one given the stdin; after a failure only the
    required steps run, unless ``continue_on_error``."""
    results: list[tuple[Step, Outcome]] = []
    stopped = False
    for index, step in enumerate(request.steps):
        if stopped and not step.required:
            continue
        outcome = run_command(step.cmd, root, request.env, "" if index else request.stdin,
                              step.timeout or request.timeout)
        results.append((step, outcome))
        stopped = stopped or (outcome.failed and not request.continue_on_error)
    return results


def execute(request: ExecuteRequest) -> Run:
    """Run ``request`` in a new temporary working directory, removed afterwards, and collect its
    tracked files."""
    with tempfile.TemporaryDirectory(prefix="run-") as scratch:
        root = Path(scratch).resolve()
        write_files(root, request.files)
        results = run_chain(request, root)
        return Run(results, collect(root, request.track) if request.track else None)
