"""What every command of the command line shares: the option types, the consoles, loading a problem with
its errors printed, usage checks of tracks, checkpoints, entries and sandboxes, and the progress bar.

It sits below every ``command.py``: it imports only typer and the standard library at module level and the
library inside function bodies, so that ``scbench --help`` starts at typer's speed.
"""

import shlex
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from scbench.evaluate.session import Selection, Target
    from scbench.problem.bundle import Bundle
    from scbench.problem.diagnostics import Diagnostic
    from scbench.results import RunResults

ProblemArg = Annotated[Path, typer.Argument(help="problems/NAME directory or a compiled NAME-HASH.scb.json")]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="cases run in parallel [default: CPU count + 1]")]
SandboxOption = Annotated[str | None, typer.Option(
    "--sandbox", help="where solutions run: bwrap, docker or local (see `scbench sandbox list`) "
                      "[default: the first available of bwrap, docker, local]")]
EngineOption = Annotated[str, typer.Option(help="local (this machine) or ray (a Ray cluster)")]
AddressOption = Annotated[str | None, typer.Option(help="the Ray cluster (HOST:6379, or ray://HOST:10001 from outside "
                                                        "it) [default: RAY_ADDRESS, else a cluster started on this "
                                                        "machine, else a new local one]")]
TrackOption = Annotated[str, typer.Option("--track", "-t", help="language track of scbench/run/tracks.yaml "
                                                                "(python, node, rust, java, go, ...)")]


def _console(stderr: bool) -> "Console":
    import sys

    from rich.console import Console
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else 160, soft_wrap=True)


def stderr_console() -> "Console":
    """The console for progress, logs and errors (stderr; 160 columns when not a terminal)."""
    return _console(stderr=True)


def stdout_console() -> "Console":
    """The console for results and tables (stdout; 160 columns when not a terminal)."""
    return _console(stderr=False)


def load_bundle(path: Path, missing_expected_files: bool = False) -> "Bundle":
    """The problem or bundle at ``path``; on compile errors, print every diagnostic and exit 2."""
    from scbench.problem.advice import warnings
    from scbench.problem.diagnostics import ProblemError, rebased
    from scbench.problem.loader import load
    try:
        bundle = load(path, missing_expected_files)
    except ProblemError as error:
        print_diagnostics(stderr_console(), rebased(error.diagnostics, problem_base(path)))
        raise typer.Exit(2) from None
    print_diagnostics(stderr_console(), rebased(warnings(bundle, path), problem_base(path)), "warning")
    return bundle


def problem_base(path: Path) -> Path:
    """The directory a problem's diagnostics are relative to: a problem directory's parent (its files
    are shown as ``NAME/...``), else the working directory (a bundle is shown as given)."""
    return path.resolve().parent if path.is_dir() else Path.cwd()


def known_track(track: str, hint: str = "--track") -> None:
    """Raise a usage error unless ``track`` is an entry of ``tracks.yaml``."""
    from scbench.run.tracks import tracks
    if track not in tracks():
        raise unknown_value("track", track, list(tracks()), hint)


def unknown_value(what: str, value: str, known: list[str], hint: str) -> typer.BadParameter:
    """The usage error for an unknown ``what`` (a track, a template, a target): the closest of
    ``known``, else all of them."""
    from scbench.problem.diagnostics import did_you_mean
    fix = did_you_mean(value, known) or f"known: {', '.join(known)}"
    return typer.BadParameter(f"unknown {what} {value!r}; {fix}", param_hint=hint)


def usable_entry(entry: str, track: str | None = None) -> None:
    """Raise a usage error unless ``entry`` splits into a non-empty argv and comes without a ``track``."""
    if track is not None:
        raise typer.BadParameter("give --track or --entry, not both: a track sets the solution up and starts its "
                                 "entry file, an entry command starts the solution as it is", param_hint="--entry")
    try:
        argv = shlex.split(entry)
    except ValueError as error:
        raise typer.BadParameter(f"cannot split {entry!r} into words: {error}", param_hint="--entry") from None
    if not argv:
        raise typer.BadParameter("the entry command is empty", param_hint="--entry")


def usable_sandbox(console: "Console", name: str | None) -> None:
    """Raise a usage error unless sandbox ``name`` (``None``: the default, the first available) is
    available here, saying why each level is not; say on ``console`` what the level used does not
    contain, when it is ``local``."""
    from scbench.sandbox.registry import SandboxUnavailable, choose
    try:
        level = choose(name)
    except SandboxUnavailable as error:
        raise typer.BadParameter(str(error), param_hint="--sandbox") from None
    if level.name == "local":
        console.print(f"[yellow]sandbox local does not contain: {'; '.join(level.gaps)}[/]", highlight=False)


def known_checkpoint(bundle: "Bundle", checkpoint: int) -> None:
    """Raise a usage error unless ``bundle`` has checkpoint number ``checkpoint``."""
    if checkpoint not in range(1, len(bundle.checkpoints) + 1):
        raise typer.BadParameter(f"this problem has checkpoints 1..{len(bundle.checkpoints)}",
                                 param_hint="--checkpoint")


PROGRESS_PERIOD = 5.0
"""Seconds between progress lines when stderr is not a terminal (a log file, CI)."""


class LineProgress:
    """Progress as lines, for a console that is not a terminal: ``DESCRIPTION: DONE/TOTAL (Ns)`` when
    something advanced and :data:`PROGRESS_PERIOD` seconds passed since the last line, and once more
    at the end. The subset of rich's ``Progress`` the commands use; ``advance`` may come from any thread."""

    def __init__(self, console: "Console"):
        self.console, self.clock, self.lock = console, time.monotonic, threading.Lock()
        self.tasks: list[list] = []
        self.started = self.shown = self.clock()

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, failed: type[BaseException] | None, *exc: object) -> None:
        for task in range(len(self.tasks) if failed is None else 0):
            self._show(task)

    def add_task(self, description: str, total: int) -> int:
        """A new task (its id) of ``total`` steps."""
        self.tasks.append([description, 0, total])
        return len(self.tasks) - 1

    def advance(self, task: int, advance: int = 1) -> None:
        """Count ``advance`` more steps of ``task``; print a line if the period has passed."""
        with self.lock:
            self.tasks[task][1] += advance
            due = self.clock() - self.shown >= PROGRESS_PERIOD
            if due:
                self.shown = self.clock()
        if due:
            self._show(task)

    def _show(self, task: int) -> None:
        description, done, total = self.tasks[task]
        self.console.print(f"{description}: {done}/{total} cases ({self.clock() - self.started:.0f}s)", highlight=False)


def progress(console: "Console") -> "Progress | LineProgress":
    """The progress shown while cases run on ``console``: a bar on a terminal, else a line every
    :data:`PROGRESS_PERIOD` seconds (:class:`LineProgress`)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    if not console.is_terminal:
        return LineProgress(console)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=True)


def with_progress(jobs: int | None, console: "Console", selection: "Selection | None" = None):
    """A run function like :func:`scbench.evaluate.session.evaluate` that shows a progress bar."""
    from scbench.evaluate import session as evaluation
    chosen = selection or evaluation.Selection()

    def run(bundle: "Bundle", checkpoint: int, target: "Target", selection: "Selection" = chosen) -> "RunResults":
        with progress(console) as bar:
            task = bar.add_task(f"{target.track or 'entry'} checkpoint_{checkpoint}",
                                total=len(selection.suite(bundle, checkpoint)))
            return evaluation.evaluate(bundle, checkpoint, target, jobs, lambda _: bar.advance(task), selection)
    return run


def selection_of(bundle: "Bundle", checkpoint: int, pattern: str | None, max_failures: int | None) -> "Selection":
    """The cases ``-k`` and ``--max-failures`` select; a usage error when ``pattern`` matches none."""
    from scbench.evaluate.session import Selection
    selection = Selection(pattern, max_failures)
    if not selection.suite(bundle, checkpoint):
        raise typer.BadParameter(f"no case of checkpoint {checkpoint}'s suite matches {pattern!r}", param_hint="-k")
    return selection


def print_plain(console: "Console", text: str, style: str = "") -> None:
    """``text`` on ``console`` as it is, in ``style``: no markup read in it, control characters escaped
    (:func:`scbench.grade.show.printable`), for any text a solution or an agent may have shaped."""
    from rich.text import Text

    from scbench.grade.show import printable
    console.print(Text(printable(text), style), highlight=False, soft_wrap=True)


def print_diagnostics(console: "Console", diagnostics: "list[Diagnostic]", severity: str = "error") -> None:
    """Each diagnostic as ``file:line: where: message`` and its fix (warnings headed ``warning:``), then
    a count; nothing for no warning."""
    from rich.text import Text
    for diagnostic in diagnostics:
        console.print(Text(("warning: " if severity == "warning" else "") + diagnostic.render()), highlight=False,
                      soft_wrap=True)
    if diagnostics or severity == "error":
        console.print(f"[{COUNT_STYLES[severity]}]{len(diagnostics)} {severity}(s)[/]")


COUNT_STYLES = {"error": "bold red", "warning": "yellow"}


def usable_engine(engine: str, address: str | None, engines: dict) -> None:
    """Check ``--engine`` against ``engines`` (name -> engine with ``unavailable()``) and ``--address`` against
    it; raises ``typer.BadParameter`` (exit 2) naming the option."""
    if engine not in engines:
        raise typer.BadParameter(f"unknown engine {engine!r}; known: {', '.join(engines)}", param_hint="--engine")
    why = engines[engine].unavailable()
    if why:
        raise typer.BadParameter(f"engine {engine!r} is not available here: {why}", param_hint="--engine")
    if address is not None and engine != "ray":
        raise typer.BadParameter("--address names a Ray cluster: add --engine ray", param_hint="--address")
