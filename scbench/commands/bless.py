"""The ``scbench bless`` command: run the reference, show the proposed edits, write them if asked."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scbench.commands.common import known_checkpoint, known_track, load_bundle, stderr_console, unknown_value

if TYPE_CHECKING:
    from rich.console import Console

    from scbench.bless.propose import Edit

TARGET_HELP = "also add this expectation where a step has none: stdout, stderr, exit_code, or files (the value " \
              "of an output file whose existence only is checked); repeatable"


def bless(
    problem: Annotated[Path, typer.Argument(help="problems/NAME directory")],
    checkpoint: Annotated[int, typer.Option("--checkpoint", "-c", help="checkpoint number")],
    case: Annotated[list[str] | None, typer.Option("--case", help="only this case id (repeatable)")] = None,
    target: Annotated[list[str] | None, typer.Option("--target", help=TARGET_HELP)] = None,
    track: Annotated[str, typer.Option("--track", "-t", help="track of the reference solution")] = "python",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="write without asking")] = False,
) -> None:
    """Fill or refresh expected outputs from the reference solution: failing expectations take its
    output (wildcards that still match kept), missing expected-output files are created, passing
    expectations and every untouched byte stay as written. Prints the diffs, then asks before
    writing (or --yes)."""
    from scbench.bless.propose import TARGETS, UnknownCase
    from scbench.bless.propose import bless as propose
    from scbench.run.tracks import prepare
    for unknown in sorted(set(target or []) - set(TARGETS))[:1]:
        raise unknown_value("target", unknown, list(TARGETS), "--target")
    bundle = load_bundle(problem, missing_expected_files=True)
    known_checkpoint(bundle, checkpoint)
    known_track(track)
    reference = problem / "solutions" / track / f"checkpoint_{checkpoint}"
    if not reference.is_dir():
        raise typer.BadParameter(f"no reference solution at {reference}", param_hint="--track")
    try:
        edits, notes = propose(problem, bundle, checkpoint, prepare(reference, track, bundle.config.entry_file).entry,
                               set(case or []), frozenset(target or []))
    except UnknownCase as error:
        raise typer.BadParameter(error.args[0], param_hint="--case") from None
    console = stderr_console()
    for note in notes:
        console.print(f"[yellow]{note}[/]", highlight=False)
    _confirm_and_write(console, edits, yes)


def _confirm_and_write(console: "Console", edits: "list[Edit]", yes: bool) -> None:
    """Print each edit's diff (stdout); write them all if ``yes`` or the user agrees at a terminal, else exit 1."""
    for edit in edits:
        typer.echo(edit.diff, nl=False)
    if not edits:
        console.print("every expectation already matches the reference")
        return
    if not (yes or (console.is_terminal and typer.confirm(f"write {len(edits)} file(s)?", err=True))):
        console.print("nothing written (re-run with --yes to write)")
        raise typer.Exit(1)
    for edit in edits:
        edit.write()
    console.print(f"wrote {', '.join(str(edit.path) for edit in edits)}")
