"""Tracks: how a solution in one language is set up and started, read from ``tracks.yaml``.

``prepare`` copies a solution into a private directory keyed by the hash of its content,
of the track and of where setup runs (the host's toolchains, or a Docker image), runs the
track's setup there once, inside a sandbox of the chosen level with network access (later
calls reuse it), and returns the entry command as an argv.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

from scbench.paths import CACHE
from scbench.sandbox.base import Sandbox
from scbench.sandbox.limits import SETUP_LIMITS
from scbench.sandbox.local import Local
from scbench.sandbox.process import ProcessResult

SKIPPED_DIRS = {".venv", "node_modules", "target", "build", "__pycache__", ".git"}
SETUP_TIMEOUT = 900.0
"""Seconds one setup command may take (a cargo build or a pip install)."""


class SetupStep(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    run: list[str]
    when: str | None = None


class Track(BaseModel):
    """One entry of ``tracks.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    setup: list[SetupStep] = []
    entry: str
    requires: str = "*"
    setup_note: dict[str, str] = {}


class SetupError(Exception):
    """A solution's setup failed; the message names the command and ends with its output."""


@cache
def tracks() -> dict[str, Track]:
    """Track name -> :class:`Track`, from ``scbench/run/tracks.yaml``."""
    raw = yaml.safe_load((Path(__file__).with_name("tracks.yaml")).read_text())
    return {name: Track.model_validate(entry) for name, entry in raw.items()}


def solution_files(solution: Path) -> list[Path]:
    """The files and symbolic links of ``solution`` that make up its content, sorted: every one
    outside the set-up products and caches of ``SKIPPED_DIRS``. Links are listed, never entered."""
    return sorted(p for p in solution.rglob("*")
                  if (p.is_symlink() or p.is_file()) and not SKIPPED_DIRS & set(p.relative_to(solution).parts[:-1]))


def content(path: Path) -> bytes:
    """The bytes of the file ``path``, or ``-> TARGET`` for a symbolic link: a solution's link is
    never followed on the host, where it could name any file (a secret, ``/dev/zero``)."""
    return b"-> " + os.fsencode(os.readlink(path)) if path.is_symlink() else path.read_bytes()


def _hashed(digest, solution: Path):
    for path in solution_files(solution):
        digest.update(str(path.relative_to(solution)).encode() + b"\0" + content(path) + b"\0")
    return digest


def content_digest(solution: Path) -> str:
    """SHA-256 (hex) of the names and :func:`content` of :func:`solution_files`: the solution's identity."""
    return _hashed(hashlib.sha256(), solution).hexdigest()


def _digest(solution: Path, track: Track, entry_file: str) -> str:
    return _hashed(hashlib.sha256(json.dumps([track.model_dump(), entry_file]).encode()), solution).hexdigest()


def resolve_entry(command: str, directory: Path, values: dict[str, str]) -> list[str]:
    """Split ``command`` (after filling ``values``) and make tokens naming a file or dir
    inside ``directory`` absolute, so the command runs from any working directory."""
    argv = shlex.split(command.format_map(values))
    return [str(directory / token) if os.path.lexists(directory / token) else token for token in argv]


def _run_setup(track: Track, workdir: Path, values: dict[str, str], level: type[Sandbox]) -> None:
    log = workdir / ".scbench-setup.log"
    home = workdir / ".scbench-home"
    home.mkdir()
    with level(SETUP_LIMITS, writable=[workdir], network=True) as sandbox:
        sandbox.own(workdir)
        for argv in ([arg.format_map(values) for arg in step.run] for step in track.setup
                     if not step.when or (workdir / step.when).exists()):
            done = sandbox.exec(argv, workdir, sandbox.setup_environment(home), workdir, None, SETUP_TIMEOUT)
            with log.open("ab") as sink:
                sink.write(done.stdout + done.stderr)
            _check(done, argv, log)
    shutil.rmtree(home)


def _check(done: ProcessResult, argv: list[str], log: Path) -> None:
    """Raise :class:`SetupError` naming ``argv`` and ending with the log if ``done`` failed."""
    if done.timed_out or done.exit_code:
        why = f"timed out after {SETUP_TIMEOUT:g}s" if done.timed_out else f"failed with exit code {done.exit_code}"
        raise SetupError(f"setup command {why}: {shlex.join(argv)}\n{log.read_text(errors='replace')[-2000:]}")


@dataclass(frozen=True)
class Prepared:
    """A solution ready to run: its private directory and its entry argv."""

    directory: Path
    entry: list[str]


def prepare(solution: Path, track_name: str, entry_file: str, level: type[Sandbox] = Local) -> Prepared:
    """Copy ``solution`` into the cache (its links as links), run ``track_name``'s setup once in
    a sandbox of ``level``, return the entry.

    Raises ``KeyError`` for an unknown track and :class:`SetupError` when the solution lacks
    the track's ``requires`` file or its setup fails.
    """
    track = tracks()[track_name]
    if level.tracks is not None and track_name not in level.tracks:
        raise SetupError(f"the {level.name} sandbox has the {', '.join(level.tracks)} tracks, not {track_name}: "
                         f"pass another --sandbox (see `scbench sandbox list`)")
    values = {"python": level.python, "entry_file": entry_file}
    wanted = track.requires.format_map(values)
    if not any(solution.glob(wanted)):
        raise SetupError(f"{solution} has no {wanted}, so it is not a {track_name} solution of this problem: "
                         f"pass the right --track, or --entry with its command")
    target = CACHE / "solutions" / f"{level.setup_key()}-{track_name}-{_digest(solution, track, entry_file)[:16]}"
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / f"{target.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / ".scbench-ready").exists():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(solution, target, symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED_DIRS))
            _run_setup(track, target, values, level)
            (target / ".scbench-ready").touch()
    return Prepared(target, resolve_entry(track.entry, target, values))
