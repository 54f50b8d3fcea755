"""Tracks: how a solution in one language is set up and started, read from ``tracks.yaml``.

``prepare`` copies a solution's content into a private directory keyed by the hash of its content,
of the track and of where setup runs (the host's toolchains, or a Docker image), runs the
track's setup there once, inside a sandbox of the chosen level that reaches only the track's
registries (later calls reuse it), and returns the entry command as an argv.

The program graded is exactly the solution plus what set-up made: during set-up the solution's
files and directories are read-only (the run, as the sandbox's unused uid, owns none of them and
may only add entries to the top directory, which is sticky), and their fingerprint is taken before
and after; a set-up that changed, added or removed any file outside the track's products is refused
with the list, and nothing of it is cached. So is a set-up after which the entry does not exist.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

from scbench import content
from scbench.paths import CACHE
from scbench.sandbox.base import Sandbox, hosts_of, setup_variables
from scbench.sandbox.limits import SETUP_LIMITS
from scbench.sandbox.local import Local
from scbench.sandbox.process import ProcessResult, base_environment

SETUP_TIMEOUT = 900.0
"""Seconds one setup command may take (a cargo build or a pip install)."""


class SetupStep(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    run: list[str]
    when: str | None = None


class Track(BaseModel):
    """One entry of ``tracks.yaml`` (its header comment documents each field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    setup: list[SetupStep] = []
    entry: str
    requires: str = "*"
    products: list[str] = []
    registries: list[str] = []
    setup_note: dict[str, str] = {}
    interpreter: str | None = None

    def hosts(self) -> tuple[str, ...]:
        """What set-up may reach: the track's registries and the hosts of the registry URLs the host's
        set-up variables name (a mirror's ``PIP_INDEX_URL``); none for a track without registries."""
        return (*self.registries, *hosts_of(setup_variables().values())) if self.registries else ()


class SetupError(Exception):
    """A solution's setup failed; the message names the command and ends with its output."""


@cache
def tracks() -> dict[str, Track]:
    """Track name -> :class:`Track`, from ``scbench/run/tracks.yaml``."""
    raw = yaml.load((Path(__file__).with_name("tracks.yaml")).read_text(), Loader=yaml.CSafeLoader)
    return {name: Track.model_validate(entry) for name, entry in raw.items()}


def interpreter(name: str, track: Track, level: type[Sandbox]) -> str:
    """What ``{python}`` names for ``track`` (called ``name``) under ``level``: the level's interpreter, or
    the program the track's ``interpreter`` names, found on the ``PATH`` as bwrap shows it (version managers'
    ``shims`` directories left out). Raises :class:`SetupError` when it is not there."""
    if track.interpreter is None:
        return level.python
    directories = [path for path in os.environ.get("PATH", "").split(os.pathsep) if Path(path).name != "shims"]
    found = shutil.which(track.interpreter, path=os.pathsep.join(directories))
    if found is None:
        raise SetupError(f"the {name} track runs {track.interpreter}, which is not on the PATH (version managers' "
                         f"shims left out): install it or put its directory on the PATH, or pass another --track")
    return found


def installation(track: Track, python: str) -> tuple[Path, ...]:
    """The host directories a sandbox must show for ``track`` to run ``python`` (what ``{python}`` names): the
    installation of a track's own interpreter, which may lie outside the system directories (the parent of its
    ``bin``, when that holds a ``lib/python3*`` of its own: never a home that merely holds a ``bin``); none for
    the interpreter running scbench, which every level shows."""
    prefix = Path(python).resolve().parents[1] if track.interpreter is not None else None
    return (prefix,) if prefix is not None and any((prefix / "lib").glob("python3*")) else ()


def _key(solution: Path, track: Track, entry_file: str) -> str:
    return content.digest(solution, json.dumps([track.model_dump(), entry_file]).encode())


def resolve_entry(command: str, directory: Path, values: dict[str, str]) -> list[str]:
    """Split ``command`` (after filling ``values``) and make tokens naming a file or dir
    inside ``directory`` absolute, so the command runs from any working directory."""
    argv = shlex.split(command.format_map(values))
    return [str(directory / token) if os.path.lexists(directory / token) else token for token in argv]


ENTRY_PROBE_TIMEOUT = 30.0
"""Seconds to look the entry's program up inside the sandbox (one ``sh``)."""
PROGRAM_FIXES = {"python": "write python3 (the name the system's interpreter has everywhere), or use the python "
                           "track (-t python), which sets up a virtual environment",
                 "pip": "use the python track (-t python): it installs requirements.txt"}
"""Program -> the fix when it is missing inside a sandbox (others: :data:`ANY_PROGRAM_FIX`)."""
ANY_PROGRAM_FIX = ("name a program of the system (under /usr; `scbench sandbox list` says what each level shows), "
                   "or one inside the solution by its path; or use a track (-t TRACK) to set the solution up")


def check_entry(sandbox: Sandbox, entry: list[str]) -> None:
    """Raise :class:`SetupError` unless the program of ``entry`` (an argv) exists inside the started
    ``sandbox`` on the ``PATH`` its runs get. A program of the user's home (a pyenv or nvm shim) is on
    the host's ``PATH`` but not inside a level that hides the home: without this, every case would
    fail alike with the sandbox's own "cannot execute" message."""
    probe = Path(tempfile.mkdtemp(prefix="entry-", dir=sandbox.scratch))
    sandbox.own(probe)
    found = sandbox.exec(["sh", "-c", 'command -v -- "$0"', entry[0]], probe, base_environment(probe, probe), probe,
                         None, ENTRY_PROBE_TIMEOUT)
    if found.exit_code != 0:
        raise SetupError(f"the entry's program {entry[0]!r} does not exist inside the {sandbox.name} sandbox (not on "
                         f"its PATH, or in a directory it does not show, such as the home); fix: "
                         f"{PROGRAM_FIXES.get(Path(entry[0]).name, ANY_PROGRAM_FIX)}")


def _modes(workdir: Path) -> dict[Path, int]:
    """The permission bits of ``workdir`` and of every file and directory under it (links have none)."""
    paths = [workdir, *(Path(root, name) for root, dirs, files in os.walk(workdir) for name in dirs + files)]
    return {path: stat.S_IMODE(path.lstat().st_mode) for path in paths if not path.is_symlink()}


@contextmanager
def _read_only(workdir: Path, products: list[str], owner: tuple[int, int] | None) -> Iterator[None]:
    """The solution in ``workdir`` read-only while set-up runs: its files and directories without write
    permission and owned by scbench's user, the top directory sticky and open to all (set-up adds its
    products there, and can neither remove nor rename what is in it), existing ``products`` handed to
    ``owner``. Modes are restored after."""
    modes = _modes(workdir)
    for path, mode in modes.items():
        os.chmod(path, mode & ~0o222)
    os.chmod(workdir, 0o1777)
    for product in (workdir / name for name in products if owner is not None and (workdir / name).exists()):
        os.lchown(product, *owner)
        os.chmod(product, 0o644)
    try:
        yield
    finally:
        for path, mode in modes.items():
            if path.exists():
                os.chmod(path, mode)


def _run_setup(track: Track, workdir: Path, values: dict[str, str], level: type[Sandbox], log: Path,
               home: Path) -> None:
    with level(SETUP_LIMITS, visible=installation(track, values["python"]), writable=[workdir, home],
               network=track.hosts()) as sandbox:
        for argv in ([arg.format_map(values) for arg in step.run] for step in track.setup
                     if not step.when or (workdir / step.when).exists()):
            done = sandbox.exec(argv, workdir, sandbox.setup_environment(home), workdir, None, SETUP_TIMEOUT)
            with log.open("ab") as sink:
                sink.write(done.stdout + done.stderr + "".join(f"scbench: {line}\n" for line in sandbox.refused)
                           .encode())
            sandbox.refused.clear()
            _check(done, argv, log)


@contextmanager
def _setup_home(level: type[Sandbox], track_name: str, toolchains: str | None) -> Iterator[Path]:
    """The home of a set-up, owned by the level's user: a fresh one, removed after; or, for a ``toolchains``
    trust domain, the home that every set-up of this track, level and domain shares, kept in scbench's cache
    with what the toolchains cache under it (Go's build and module caches, cargo's registry, npm's and pip's
    caches), so a changed solution rebuilds incrementally. Solutions of one domain only share it: one
    solution could plant a poisoned build product in it for the next."""
    if toolchains is None:
        home = Path(tempfile.mkdtemp(prefix="scbench-setup-home-"))
        level.own(home)
        yield home
        shutil.rmtree(home, ignore_errors=True)
        return
    digest = hashlib.sha256(toolchains.encode()).hexdigest()[:16]
    home = CACHE / "toolchains" / f"{level.setup_key()}-{track_name}-{digest}"
    if not home.is_dir():
        home.mkdir(parents=True)
        level.own(home)
    yield home


def _check(done: ProcessResult, argv: list[str], log: Path) -> None:
    """Raise :class:`SetupError` naming ``argv`` and ending with the log if ``done`` failed."""
    if done.timed_out or done.exit_code:
        why = f"timed out after {SETUP_TIMEOUT:g}s" if done.timed_out else f"failed with exit code {done.exit_code}"
        raise SetupError(f"setup command {why}: {shlex.join(argv)}\n{log.read_text(errors='replace')[-2000:]}")


def _set_up(track: Track, workdir: Path, values: dict[str, str], level: type[Sandbox], home: Path) -> None:
    """Run ``track``'s set-up in ``workdir`` and check that it left the solution as it was and made the entry.
    Raises :class:`SetupError`."""
    products = [name.format_map(values) for name in track.products]
    log = workdir.with_name(f"{workdir.name}.setup.log")
    log.unlink(missing_ok=True)
    before = content.fingerprint(workdir, products)
    with _read_only(workdir, products, level.owner):
        _run_setup(track, workdir, values, level, log, home)
    changed = content.changes(before, content.fingerprint(workdir, products))
    if changed:
        raise SetupError(f"set-up changed the solution's source, which is graded as it was given: "
                         f"{', '.join(changed[:20])}{' ...' if len(changed) > 20 else ''}")
    missing = [word for word in shlex.split(track.entry.format_map(values)) if "/" in word
               and not os.path.lexists(workdir / word)]
    if missing:
        raise SetupError(f"set-up finished but the entry's {', '.join(missing)} does not exist in the prepared "
                         f"solution: see {log}")


@dataclass(frozen=True)
class Prepared:
    """A solution ready to run: its private directory, its entry argv and the host directories a sandbox must
    show besides it (:func:`installation`)."""

    directory: Path
    entry: list[str]
    visible: tuple[Path, ...] = ()


def prepare(solution: Path, track_name: str, entry_file: str, level: type[Sandbox] = Local,
            toolchains: str | None = None) -> Prepared:
    """Copy ``solution``'s content into the cache (its links as links), run ``track_name``'s setup once in
    a sandbox of ``level``, return the entry. ``toolchains`` names the trust domain whose set-ups share a home
    with their toolchains' caches (:func:`_setup_home`); ``None``: a fresh home.

    Raises ``KeyError`` for an unknown track and :class:`SetupError` when the solution lacks
    the track's ``requires`` file, its setup fails, changes the solution or does not make the entry.
    """
    track = tracks()[track_name]
    if level.tracks is not None and track_name not in level.tracks:
        raise SetupError(f"the {level.name} sandbox has the {', '.join(level.tracks)} tracks, not {track_name}: "
                         f"pass another --sandbox (see `scbench sandbox list`)")
    values = {"python": interpreter(track_name, track, level), "entry_file": entry_file}
    wanted = track.requires.format_map(values)
    if not any(solution.glob(wanted)):
        raise SetupError(f"{solution} has no {wanted}, so it is not a {track_name} solution of this problem: "
                         f"pass the right --track, or --entry with its command")
    target = CACHE / "solutions" / f"{level.setup_key()}-{track_name}-{_key(solution, track, entry_file)[:16]}"
    target.parent.mkdir(parents=True, exist_ok=True)
    ready = target.with_name(f"{target.name}.ready")
    with target.with_name(f"{target.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ready.exists():
            shutil.rmtree(target, ignore_errors=True)
            content.copy(solution, target)
            with _setup_home(level, track_name, toolchains) as home:
                _set_up(track, target, values, level, home)
            ready.touch()
    return Prepared(target, resolve_entry(track.entry, target, values), installation(track, values["python"]))
