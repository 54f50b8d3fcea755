"""Running one command in a fresh working directory, with its files, env, stdin and timeout."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from errors import invalid
from request import ExecuteRequest

TIMED_OUT_EXIT = -1


@dataclass(frozen=True)
class Outcome:
    """What a command did: its streams (text), exit status, duration in seconds (unrounded)."""

    stdout: str
    stderr: str
    exit_code: int
    duration: float
    timed_out: bool


def inside(root: Path, relative: str) -> Path:
    """``root / relative``, refusing (400) a path that is absolute or leads outside ``root``."""
    target = (root / relative).resolve()
    if Path(relative).is_absolute() or not target.is_relative_to(root):
        raise invalid(f"file path {relative!r} must stay inside the working directory", "INVALID_FILES")
    return target


def write_files(root: Path, files: dict[str, str]) -> None:
    """Every file of the request, checked first so that a refused path writes nothing."""
    targets = {inside(root, relative): text for relative, text in files.items()}
    for target, text in targets.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


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


def execute(request: ExecuteRequest) -> Outcome:
    """Run ``request`` in a new temporary working directory, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="run-") as scratch:
        root = Path(scratch).resolve()
        write_files(root, request.files)
        return run_command(request.command, root, request.env, request.stdin, request.timeout)
