"""``scbench new problems/NAME``: scaffold a problem that compiles and checks green."""

from pathlib import Path
from typing import Annotated

import typer


def new(
    problem: Annotated[Path, typer.Argument(help="problems/NAME: the directory to create (NAME is the problem's "
                                                 "name)")],
) -> None:
    """Scaffold a new problem: config, spec, one example case of each shape, data, and a python
    reference that passes them. Lists the files written (stdout); never overwrites anything."""
    from scbench.scaffold.create import ScaffoldError, scaffold
    try:
        written = scaffold(problem)
    except ScaffoldError as error:
        raise typer.BadParameter(str(error), param_hint="PROBLEM") from None
    for path in written:
        typer.echo(path)
    typer.echo(f"next: edit the spec and cases, then run scbench check {problem}", err=True)
