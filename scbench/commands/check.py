"""``scbench check``: every reference solution of a problem, and what is inconsistent."""

from pathlib import Path
from typing import Annotated, Literal

import typer

from scbench.commands.common import (
    Jobs,
    SandboxOption,
    load_bundle,
    stderr_console,
    stdout_console,
    usable_sandbox,
    with_progress,
)


def check_command(
    problem: Annotated[Path, typer.Argument(help="problems/NAME directory")],
    jobs: Jobs = None,
    repeat: Annotated[int, typer.Option(help="run every case N times and report flaky ones", min=1)] = 1,
    mutants: Annotated[bool, typer.Option("--mutants", help="mutation score of each python reference")] = False,
    sandbox: SandboxOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    regressions: Annotated[Literal["every", "last"], typer.Option(
        help="which references also run the earlier checkpoints' cases: every one, or only the reference at the "
             "last checkpoint (the first track by name that has one: every case still runs, in far fewer case "
             "runs)")] = "every",
) -> None:
    """Compile, lint, then run every reference solution of every track on its checkpoint plus
    regressions. The report goes to stdout, progress to stderr. Exit 1 on any inconsistency
    (lint errors included, warnings not), 2 if the problem does not compile."""
    import json

    from scbench.check.session import CheckOptions, check
    from scbench.check.terminal import print_check
    console = stderr_console()
    usable_sandbox(console, sandbox)
    bundle = load_bundle(problem)
    report = check(problem, bundle, with_progress(jobs, console),
                   CheckOptions(repeat, mutants, sandbox, regressions))
    if json_out:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        print_check(stdout_console(), report)
    raise typer.Exit(0 if report.ok else 1)
