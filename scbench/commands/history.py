"""The ``scbench history`` command: parse arguments, measure a repository's history, print the trends."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scbench.commands.common import Jobs, stderr_console, stdout_console

if TYPE_CHECKING:
    from scbench.history.git import Commit
    from scbench.history.model import Dropped, HistoryResult


def _progress(commit: "Commit", figures: "dict | Dropped") -> None:
    """One stderr line per measured commit: its id, date and figures, or why it was dropped."""
    said = (f"dropped: {figures.reason}" if not isinstance(figures, dict) else
            f"erosion {figures['erosion']:.4f}  verbosity {figures['verbosity']:.4f}  LOC {figures['loc']}")
    stderr_console().print(f"{commit.sha[:12]} {commit.date}  {said}", highlight=False)


def _print(result: "HistoryResult") -> None:
    """The trends of the result as a table on stdout, and how many commits were measured and dropped."""
    from rich.table import Table
    console = stdout_console()
    console.print(f"{result.repository} at {result.head[:12]}: {len(result.points)} commits measured of "
                  f"{result.candidates} changing {result.language} files, {len(result.dropped)} dropped",
                  highlight=False)
    table = Table("measure", "first", "last", "change", "slope per commit", "rising")
    for name, trend in result.trends.items():
        slope = "n/a (one point)" if trend.slope is None else f"{trend.slope:+.5f}"
        table.add_row(name, f"{trend.first:.4f}", f"{trend.last:.4f}", f"{trend.change:+.4f}", slope,
                      "yes" if trend.rising else "no")
    console.print(table)


def history_command(
    repository: Annotated[Path, typer.Argument(exists=True, file_okay=False,
                                               help="a git repository (its work tree, or a bare one)")],
    commits: Annotated[int, typer.Option("--commits", "-n", min=1, help="most commits to sample")] = 30,
    seed: Annotated[int, typer.Option("--seed", help="seed of the sample (same seed, same commits)")] = 0,
    language: Annotated[str, typer.Option("--language", "-l", help="language of the files measured "
                                          "(a table of scbench/quality/adapters)")] = "python",
    exclude: Annotated[list[str] | None, typer.Option("--exclude", "-x", help="leave out the files this git "
                                                      "pattern matches (repeatable; * matches / too: 'tests/*', "
                                                      "'docs_src')")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="write the result here as JSON "
                                             "(scbench/schemas/history.schema.json); an existing one is "
                                             "resumed: its commits are not measured again")] = None,
    jobs: Jobs = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the result as JSON instead of a table")] = False,
) -> None:
    """Erosion and verbosity along a repository's history, as the SlopCodeBench paper calibrates agents against
    maintained repositories (section 3.3): up to --commits of the first-parent commits that change a file of
    the language (but those --exclude matches), always the newest and the others drawn with --seed, each
    measured from git objects (the work tree is not touched), in parallel; then each measure's first and last
    value and least-squares slope per commit. A commit whose tree has no measurable file is dropped and
    counted. One progress line per commit on stderr. Exit 2 on a path that is not a repository or has no
    such commit."""
    from scbench.history.git import NotARepository
    from scbench.history.session import NoSourceCommit, Request, UnusableResult, history
    try:
        result = history(Request(repository, commits, seed, language, tuple(exclude or ())), out, jobs, _progress)
    except LookupError as error:
        raise typer.BadParameter(str(error), param_hint="--language") from None
    except UnusableResult as error:
        raise typer.BadParameter(str(error), param_hint="--out") from None
    except (NotARepository, NoSourceCommit) as error:
        raise typer.BadParameter(str(error), param_hint="REPOSITORY") from None
    if json_out:
        typer.echo(result.model_dump_json(indent=2))
    else:
        _print(result)
