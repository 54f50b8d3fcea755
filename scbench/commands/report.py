"""The ``scbench report`` command: parse arguments, build the report, print it, write HTML or JSON."""

import importlib.util
from pathlib import Path
from typing import Annotated

import typer

from scbench.commands.common import stderr_console, stdout_console


def report(
    run_dirs: Annotated[list[Path], typer.Argument(help="run directories (each with a run.json, as scbench run "
                                                   "writes them)", exists=True, file_okay=False)],
    html: Annotated[Path | None, typer.Option("--html", help="also write the report as one self-contained "
                                              "HTML page")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON "
                                           "(scbench/schemas/report.schema.json) instead of tables")] = False,
    calibration: Annotated[Path | None, typer.Option("--calibration", exists=True, dir_okay=False,
                                                     help="a human panel's result (scbench calibrate's "
                                                          "panel.json) shown beside the agents")] = None,
) -> None:
    """Trajectories like the SlopCodeBench paper reports them: Table 1 per (agent, model, prompt)
    (strict, isolated, core and partial over fixed denominators, $ and minutes per checkpoint,
    erosion and verbosity with spread and n), the progress phases, the degradation curves, callable
    growth and regression onset; with --calibration, the human panel's HEAD figures, slopes and shares rising
    beside each agent's. Tables on stdout; exit 2 on a directory that is not a run."""
    from pydantic import ValidationError

    from scbench.history.panel import NotAPanelResult
    from scbench.report.report import build_report
    from scbench.report.terminal import print_report
    if html is not None and importlib.util.find_spec("matplotlib") is None:
        raise typer.BadParameter("the HTML report's plots need matplotlib: pip install 'scbench[html]'",
                                 param_hint="--html")
    missing = [str(path) for path in run_dirs if not (path / "run.json").is_file()]
    if missing:
        raise typer.BadParameter(f"not a run directory (no run.json): {', '.join(missing)}", param_hint="RUN_DIRS")
    try:
        built = build_report(run_dirs, calibration)
    except NotAPanelResult as error:
        raise typer.BadParameter(str(error), param_hint="--calibration") from None
    except ValidationError as error:
        raise typer.BadParameter(f"a run directory's files do not follow their schema: {error}",
                                 param_hint="RUN_DIRS") from None
    if json_out:
        typer.echo(built.model_dump_json(indent=2))
    else:
        print_report(stdout_console(), built)
    if html is not None:
        from scbench.report.html import render_html
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(render_html(built), encoding="utf-8")
        stderr_console().print(f"wrote {html}")
