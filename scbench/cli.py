"""The ``scbench`` command line: each command parses its arguments and calls the library.

Startup is kept to typer's own: this module and every command module it registers import only
typer and the standard library at module level; the library is imported inside command bodies.
A command of a capability package lives in that package's ``command.py`` and is registered
below with one line.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scbench.lint.command import lint
from scbench.quality.command import metrics
from scbench.sandbox.command import app as sandbox_app

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from scbench.bless import Edit
    from scbench.evaluate import Target
    from scbench.problem.bundle import Bundle
    from scbench.results import RunResults

app = typer.Typer(help="Iterative coding benchmarks as data: compile, run, grade, measure.",
                  no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None)
app.command("metrics")(metrics)
app.command("lint")(lint)
app.add_typer(sandbox_app, name="sandbox")

ProblemArg = Annotated[Path, typer.Argument(help="problems/NAME directory or a compiled NAME-HASH.scb.json")]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="cases run in parallel [default: CPU count]")]
SandboxOption = Annotated[str | None, typer.Option(
    "--sandbox", help="where solutions run: bwrap, docker or local (see `scbench sandbox list`) "
                      "[default: the first available of bwrap, docker, local]")]
TrackOption = Annotated[str, typer.Option("--track", "-t", help="language track of scbench/run/tracks.yaml "
                                                                "(python, node, rust, java, go, ...)")]


def stderr_console() -> Console:
    """The console for progress, logs and reports a person reads (stderr; 160 columns when not a terminal)."""
    import sys

    from rich.console import Console
    return Console(stderr=True, width=None if sys.stderr.isatty() else 160, soft_wrap=True)


def load_bundle(path: Path) -> Bundle:
    """The problem or bundle at ``path``; on compile errors, print every diagnostic and exit 2."""
    from scbench.problem.diagnostics import ProblemError
    from scbench.problem.loader import load
    from scbench.report.terminal import print_diagnostics
    try:
        return load(path)
    except ProblemError as error:
        print_diagnostics(stderr_console(), error.diagnostics)
        raise typer.Exit(2) from None


def known_track(track: str, hint: str = "--track") -> None:
    """Raise a usage error unless ``track`` is an entry of ``tracks.yaml``."""
    from scbench.run.tracks import tracks
    if track not in tracks():
        raise typer.BadParameter(f"unknown track {track!r}; known: {', '.join(tracks())}", param_hint=hint)


def usable_entry(entry: str) -> None:
    """Raise a usage error unless ``entry`` splits into a non-empty argv."""
    try:
        argv = shlex.split(entry)
    except ValueError as error:
        raise typer.BadParameter(f"cannot split {entry!r} into words: {error}", param_hint="--entry") from None
    if not argv:
        raise typer.BadParameter("the entry command is empty", param_hint="--entry")


def usable_sandbox(console: Console, name: str | None) -> None:
    """Raise a usage error unless sandbox ``name`` (``None``: the default) is available here;
    say on ``console`` what the level used does not contain, when it is ``local``."""
    from scbench.sandbox.base import SandboxUnavailable, choose
    try:
        level = choose(name)
    except SandboxUnavailable as error:
        raise typer.BadParameter(str(error), param_hint="--sandbox") from None
    if level.name == "local":
        console.print(f"[yellow]sandbox local does not contain: {'; '.join(level.gaps)}[/]", highlight=False)


def known_checkpoint(bundle: Bundle, checkpoint: int) -> None:
    """Raise a usage error unless ``bundle`` has checkpoint number ``checkpoint``."""
    if checkpoint not in range(1, len(bundle.checkpoints) + 1):
        raise typer.BadParameter(f"this problem has checkpoints 1..{len(bundle.checkpoints)}",
                                 param_hint="--checkpoint")


def progress(console: Console) -> Progress:
    """The progress bar shown while cases run (on ``console``, hidden when not a terminal)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=True, disable=not console.is_terminal)


def with_progress(jobs: int | None, console: Console):
    """A run function like :func:`scbench.evaluate.evaluate` that shows a progress bar."""
    from scbench import evaluate as evaluation

    def run(bundle: Bundle, checkpoint: int, target: Target) -> RunResults:
        with progress(console) as bar:
            task = bar.add_task(f"{target.track or 'entry'} checkpoint_{checkpoint}",
                                total=len(bundle.suite(checkpoint)))
            return evaluation.evaluate(bundle, checkpoint, target, jobs, lambda _: bar.advance(task))
    return run


@app.command("compile")
def compile_command(
    problem: ProblemArg,
    out: Annotated[Path, typer.Option(help="directory for the bundle")] = Path("build"),
) -> None:
    """Validate a problem and write its content-hashed bundle. Exit 2 on any error."""
    bundle = load_bundle(problem)
    path = bundle.write(out)
    cases = sum(len(cp.cases) for cp in bundle.checkpoints)
    stderr_console().print(f"compiled {bundle.config.name}: {len(bundle.checkpoints)} checkpoints, {cases} cases")
    typer.echo(path)


@app.command("eval")
def eval_command(
    problem: ProblemArg,
    checkpoint: Annotated[int, typer.Option("--checkpoint", "-c", help="checkpoint number")],
    solution: Annotated[Path, typer.Option("--solution", "-s", help="solution directory", exists=True,
                                           file_okay=False)],
    track: Annotated[str | None, typer.Option("--track", "-t", help="language track of scbench/run/tracks.yaml "
                                              "[default: python]")] = None,
    entry: Annotated[str | None, typer.Option("--entry", "-e", help="entry command, e.g. 'node main.js'; "
                                              "paths are relative to the solution, {solution} is its dir")] = None,
    jobs: Jobs = None,
    out: Annotated[Path, typer.Option(help="where results.json and junit.xml go")] = Path("results"),
    previous: Annotated[Path | None, typer.Option(help="the previous checkpoint's snapshot, for quality deltas",
                                                  exists=True, file_okay=False)] = None,
    sandbox: SandboxOption = None,
) -> None:
    """Run a checkpoint's cases (plus regressions) against a solution and measure its erosion
    and verbosity. Exit 1 unless strict-solved."""
    from scbench import evaluate as evaluation
    from scbench.report.junit import write_junit
    from scbench.report.terminal import print_run
    from scbench.run.tracks import SetupError
    if track is not None:
        known_track(track)
    if entry is not None:
        usable_entry(entry)
    console = stderr_console()
    usable_sandbox(console, sandbox)
    bundle = load_bundle(problem)
    known_checkpoint(bundle, checkpoint)
    target = evaluation.Target(solution, None if entry else track or "python", entry, sandbox)
    try:
        results = evaluation.with_quality(with_progress(jobs, console)(bundle, checkpoint, target), solution,
                                          previous)
    except SetupError as error:
        console.print(f"[red]setup failed for {solution}:[/] {error}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    print_run(console, results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(results.model_dump_json(indent=2))
    write_junit(results, out / "junit.xml")
    console.print(f"wrote {out / 'results.json'} and {out / 'junit.xml'}")
    raise typer.Exit(0 if results.summary.strict else 1)


@app.command("check")
def check_command(
    problem: Annotated[Path, typer.Argument(help="problems/NAME directory")],
    jobs: Jobs = None,
    repeat: Annotated[int, typer.Option(help="run every case N times and report flaky ones", min=1)] = 1,
    mutants: Annotated[bool, typer.Option("--mutants", help="mutation score of each python reference")] = False,
    sandbox: SandboxOption = None,
) -> None:
    """Compile, lint, then run every reference solution of every track on its checkpoint plus
    regressions. Exit 1 on any inconsistency (lint errors included, warnings not), 2 if the
    problem does not compile."""
    from scbench.check import CheckOptions, check
    from scbench.report.terminal import print_check
    console = stderr_console()
    usable_sandbox(console, sandbox)
    bundle = load_bundle(problem)
    report = check(problem, bundle, with_progress(jobs, console), CheckOptions(repeat, mutants, sandbox))
    print_check(console, report)
    raise typer.Exit(0 if report.ok else 1)


@app.command("prompt")
def prompt_command(
    problem: ProblemArg,
    checkpoint: Annotated[int, typer.Option("--checkpoint", "-c", help="checkpoint number")],
    template: Annotated[str, typer.Option("--template", help="a template of prompts/: just-solve, anti-slop, "
                                          "plan-first, ...")] = "just-solve",
    track: TrackOption = "python",
) -> None:
    """Print the agent prompt for a checkpoint: the spec, rendered for a track, in a template."""
    from scbench.prompts import render_prompt, templates
    if template not in templates():
        raise typer.BadParameter(f"unknown template {template!r}; known: {', '.join(templates())}",
                                 param_hint="--template")
    bundle = load_bundle(problem)
    known_checkpoint(bundle, checkpoint)
    known_track(track)
    typer.echo(render_prompt(bundle, checkpoint, template, track), nl=False)


@app.command("bless")
def bless_command(
    problem: Annotated[Path, typer.Argument(help="problems/NAME directory")],
    checkpoint: Annotated[int, typer.Option("--checkpoint", "-c", help="checkpoint number")],
    case: Annotated[list[str] | None, typer.Option("--case", help="only this case id (repeatable)")] = None,
    track: TrackOption = "python",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="write without asking")] = False,
) -> None:
    """Fill or refresh expected outputs from the reference solution, keeping wildcards that
    still match. Shows the diff, then asks before writing (or --yes)."""
    from scbench.bless import UnknownCase, bless
    from scbench.run.tracks import prepare
    bundle = load_bundle(problem)
    known_checkpoint(bundle, checkpoint)
    known_track(track)
    reference = problem / "solutions" / track / f"checkpoint_{checkpoint}"
    if not reference.is_dir():
        raise typer.BadParameter(f"no reference solution at {reference}", param_hint="--track")
    try:
        edits, notes = bless(problem, bundle, checkpoint, prepare(reference, track, bundle.config.entry_file).entry,
                             set(case or []))
    except UnknownCase as error:
        raise typer.BadParameter(error.args[0], param_hint="--case") from None
    console = stderr_console()
    for note in notes:
        console.print(f"[yellow]{note}[/]", highlight=False)
    _confirm_and_write(console, edits, yes)


def _confirm_and_write(console: Console, edits: list[Edit], yes: bool) -> None:
    """Show each edit's diff; write them all if ``yes`` or the user agrees at a terminal, else exit 1."""
    from rich.syntax import Syntax
    for edit in edits:
        console.print(Syntax(edit.diff, "diff", theme="ansi_dark", background_color="default"))
    if not edits:
        console.print("every expectation already matches the reference")
        return
    if not (yes or (console.is_terminal and typer.confirm(f"write {len(edits)} file(s)?"))):
        console.print("nothing written (re-run with --yes to write)")
        raise typer.Exit(1)
    for edit in edits:
        edit.write()
    console.print(f"wrote {', '.join(str(edit.path) for edit in edits)}")
