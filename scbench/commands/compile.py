"""``scbench compile``: validate a problem and write its bundle."""

from pathlib import Path
from typing import Annotated

import typer

from scbench.commands.common import ProblemArg, load_bundle, stderr_console


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
