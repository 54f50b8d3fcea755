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

from scbench.agent.command import run
from scbench.batch.command import batch
from scbench.bless.command import bless
from scbench.cache.command import cache
from scbench.lint.command import lint
from scbench.quality.command import metrics
from scbench.sandbox.command import app as sandbox_app
from scbench.scaffold.command import new
from scbench.trajectory.command import report

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from scbench.evaluate import Selection, Target
    from scbench.problem.bundle import Bundle
    from scbench.results import RunResults

app = typer.Typer(help="Iterative coding benchmarks as data: compile, run, grade, measure.",
                  no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None)


def _version(value: bool) -> None:
    if value:
        from scbench.about import version
        typer.echo(f"scbench {version()}")
        raise typer.Exit()


@app.callback()
def main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Print the version and exit.")] = False) -> None:
    """Iterative coding benchmarks as data: compile, run, grade, measure."""


app.command("metrics")(metrics)
app.command("lint")(lint)
app.command("bless")(bless)
app.add_typer(cache, name="cache")
app.command("new")(new)
app.add_typer(sandbox_app, name="sandbox")
app.command("run")(run)
app.command("report")(report)
app.command("batch")(batch)

ProblemArg = Annotated[Path, typer.Argument(help="problems/NAME directory or a compiled NAME-HASH.scb.json")]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="cases run in parallel [default: CPU count + 1]")]
SandboxOption = Annotated[str | None, typer.Option(
    "--sandbox", help="where solutions run: bwrap, docker or local (see `scbench sandbox list`) "
                      "[default: the first available of bwrap, docker, local]")]
TrackOption = Annotated[str, typer.Option("--track", "-t", help="language track of scbench/run/tracks.yaml "
                                                                "(python, node, rust, java, go, ...)")]


def _console(stderr: bool) -> Console:
    import sys

    from rich.console import Console
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else 160, soft_wrap=True)


def stderr_console() -> Console:
    """The console for progress, logs and errors (stderr; 160 columns when not a terminal)."""
    return _console(stderr=True)


def stdout_console() -> Console:
    """The console for results and tables (stdout; 160 columns when not a terminal)."""
    return _console(stderr=False)


def load_bundle(path: Path, missing_expected_files: bool = False) -> Bundle:
    """The problem or bundle at ``path``; on compile errors, print every diagnostic and exit 2."""
    from scbench.problem.diagnostics import ProblemError
    from scbench.problem.loader import load
    from scbench.report.terminal import print_diagnostics
    try:
        return load(path, missing_expected_files)
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


def with_progress(jobs: int | None, console: Console, selection: Selection | None = None):
    """A run function like :func:`scbench.evaluate.evaluate` that shows a progress bar."""
    from scbench import evaluate as evaluation
    chosen = selection or evaluation.Selection()

    def run(bundle: Bundle, checkpoint: int, target: Target) -> RunResults:
        with progress(console) as bar:
            task = bar.add_task(f"{target.track or 'entry'} checkpoint_{checkpoint}",
                                total=len(chosen.suite(bundle, checkpoint)))
            return evaluation.evaluate(bundle, checkpoint, target, jobs, lambda _: bar.advance(task), chosen)
    return run


def selection_of(bundle: Bundle, checkpoint: int, pattern: str | None, max_failures: int | None) -> Selection:
    """The cases ``-k`` and ``--max-failures`` select; a usage error when ``pattern`` matches none."""
    from scbench.evaluate import Selection
    selection = Selection(pattern, max_failures)
    if not selection.suite(bundle, checkpoint):
        raise typer.BadParameter(f"no case of checkpoint {checkpoint}'s suite matches {pattern!r}", param_hint="-k")
    return selection


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
    select: Annotated[str | None, typer.Option("-k", "--select", help="only the cases whose id or checkpoint_N/id "
                                               "matches this shell-style pattern (without wildcards: a substring)")
                      ] = None,
    max_failures: Annotated[int | None, typer.Option("--max-failures", min=1, help="start no new case once N cases "
                                                     "have failed")] = None,
) -> None:
    """Run a checkpoint's cases (plus regressions) against a solution and measure its erosion
    and verbosity. Results on stdout, progress on stderr. Exit 1 unless strict-solved."""
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
    selection = selection_of(bundle, checkpoint, select, max_failures)
    target = evaluation.Target(solution, None if entry else track or "python", entry, sandbox)
    try:
        results = evaluation.evaluate_measured(
            lambda: with_progress(jobs, console, selection)(bundle, checkpoint, target), solution, previous)
    except SetupError as error:
        console.print(f"[red]setup failed for {solution}:[/] {error}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    print_run(stdout_console(), results)
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
    json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Compile, lint, then run every reference solution of every track on its checkpoint plus
    regressions. The report goes to stdout, progress to stderr. Exit 1 on any inconsistency
    (lint errors included, warnings not), 2 if the problem does not compile."""
    import json

    from scbench.check import CheckOptions, check
    from scbench.report.terminal import print_check
    console = stderr_console()
    usable_sandbox(console, sandbox)
    bundle = load_bundle(problem)
    report = check(problem, bundle, with_progress(jobs, console), CheckOptions(repeat, mutants, sandbox))
    if json_out:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        print_check(stdout_console(), report)
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
