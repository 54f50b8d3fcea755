"""The ``scbench calibrate`` command: parse arguments, measure a panel of repositories' histories, print the
summaries."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scbench.commands.common import AddressOption, EngineOption, Jobs, stderr_console, stdout_console, usable_engine

if TYPE_CHECKING:
    from scbench.history.git import Commit
    from scbench.history.model import Dropped
    from scbench.history.panel import PanelResult


def _progress(name: str, commit: "Commit", figures: "dict | Dropped") -> None:
    """One stderr line per measured commit: the repository, the commit, its figures or why it was dropped."""
    said = (f"dropped: {figures.reason}" if not isinstance(figures, dict) else
            f"erosion {figures['erosion']:.4f}  verbosity {figures['verbosity']:.4f}  LOC {figures['loc']}")
    stderr_console().print(f"{name} {commit.sha[:12]} {commit.date}  {said}", highlight=False)


def _print(result: "PanelResult") -> None:
    """One row per tier and one for the whole panel."""
    from rich.table import Table

    from scbench.history.text import COLUMNS, cells
    table = Table("tier", *COLUMNS, title="HEAD figures (last), slopes per commit, share of repositories rising")
    for tier, summary in [*result.tiers.items(), ("panel", result.panel)]:
        table.add_row(tier, *cells(summary))
    stdout_console().print(table)


def calibrate_command(
    panel: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="the panel (YAML): commits, seed, "
                                          "language, and the repositories with their path and tier")],
    out: Annotated[Path, typer.Option("--out", "-o", help="directory of each repository's history (resumed by "
                                      "a re-run) and of panel.json")] = Path("calibration-results"),
    jobs: Jobs = None,
    engine: EngineOption = "local",
    address: AddressOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the result as JSON instead of a table")] = False,
) -> None:
    """Human calibration over a panel of repositories (SlopCodeBench paper section 3.3): each repository's
    history measured as `scbench history` does it, then per repository its HEAD figures, slopes and
    first-to-last changes, and per tier and over the panel their mean ± sd, medians and the share of
    repositories whose erosion and verbosity rise. Writes OUT/OWNER+NAME.json per repository and
    OUT/panel.json (scbench/schemas/calibration.schema.json). Commits are measured by ``--engine``: ``--jobs``
    processes here, or tasks of a Ray cluster (each commit's files are sent to its node: the nodes need not see
    the repositories). Exit 2 on a bad panel or repository, or an unreachable cluster."""
    import yaml
    from pydantic import ValidationError

    from scbench.batch.engines import ENGINES
    from scbench.batch.ray_engine import ClusterUnreachable
    from scbench.history.git import NotARepository
    from scbench.history.panel import calibrate, load_panel
    from scbench.history.session import NoSourceCommit, UnusableResult
    usable_engine(engine, address, ENGINES)
    try:
        loaded = load_panel(panel)
    except (yaml.YAMLError, ValidationError) as error:
        raise typer.BadParameter(f"{panel}: not a panel: {error}", param_hint="PANEL") from None
    try:
        with ENGINES[engine].pool(jobs, address) as pool:
            result = calibrate(loaded, out, jobs, _progress, pool)
    except ClusterUnreachable as error:
        raise typer.BadParameter(str(error), param_hint="--address") from None
    except (LookupError, NotARepository, NoSourceCommit, UnusableResult) as error:
        raise typer.BadParameter(str(error), param_hint="PANEL") from None
    (out / "panel.json").write_text(result.model_dump_json(indent=2) + "\n")
    if json_out:
        typer.echo(result.model_dump_json(indent=2))
    else:
        _print(result)
