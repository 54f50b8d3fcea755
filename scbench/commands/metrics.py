"""The ``scbench metrics`` command: parse arguments, call :func:`measure`, print."""

import json
from pathlib import Path
from typing import Annotated

import typer

from scbench.commands.common import stdout_console


def metrics(
    path: Annotated[Path, typer.Argument(exists=True, help="Snapshot directory (or one file) to measure.")],
    language: Annotated[
        str | None, typer.Option("--language", "-l", help="Measure only this language (e.g. python, go).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Measure erosion and verbosity of a code snapshot (SlopCodeBench paper eq. 2-4).

    Erosion is the share of complexity mass (CC x sqrt(SLOC)) held by callables with CC > 10. Verbosity is
    |lines flagged by AST-grep rules U clone lines| / LOC. Also prints their parts and the top offenders:
    callables by mass, rule matches, clone pairs. Skips node_modules, .venv, target and hidden directories.
    Exits 1 when there is no file to measure.
    """
    from scbench.quality.measure import measure
    from scbench.quality.report import render
    try:
        report = measure(path, language)
    except LookupError as error:
        raise typer.BadParameter(str(error), param_hint="--language") from error
    if not report.files:
        kind = f"{language} file" if language else "source file of a measured language"
        typer.echo(f"no {kind} under {path}: nothing to measure", err=True)
        for name, reason in report.skipped:
            typer.echo(f"  skipped {name}: {reason}", err=True)
        raise typer.Exit(1)
    if json_out:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        render(report, stdout_console())
