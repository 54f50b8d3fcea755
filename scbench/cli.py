"""The ``scbench`` command line: the app, assembled from the modules of :mod:`scbench.commands`.

Each command is a module named after it (``scbench eval`` in ``commands/eval.py``) and is registered
below with one line; what commands share is in :mod:`scbench.commands.common`. Startup is kept to
typer's own: this module and every command module import only typer and the standard library at
module level, the library inside command bodies.
"""

from typing import Annotated

import typer

from scbench.commands.batch import batch
from scbench.commands.bless import bless
from scbench.commands.cache import cache
from scbench.commands.calibrate import calibrate_command
from scbench.commands.check import check_command
from scbench.commands.compile import compile_command
from scbench.commands.eval import eval_command
from scbench.commands.history import history_command
from scbench.commands.lint import lint
from scbench.commands.metrics import metrics
from scbench.commands.new import new
from scbench.commands.prompt import prompt_command
from scbench.commands.report import report
from scbench.commands.run import run
from scbench.commands.sandbox import app as sandbox_app

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


app.command("compile")(compile_command)
app.command("eval")(eval_command)
app.command("check")(check_command)
app.command("prompt")(prompt_command)
app.command("metrics")(metrics)
app.command("lint")(lint)
app.command("bless")(bless)
app.add_typer(cache, name="cache")
app.command("new")(new)
app.add_typer(sandbox_app, name="sandbox")
app.command("run")(run)
app.command("report")(report)
app.command("batch")(batch)
app.command("history")(history_command)
app.command("calibrate")(calibrate_command)
