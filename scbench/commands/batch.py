"""The ``scbench batch`` command: resolve the plan, run what is not current, print the summary."""

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scbench.commands.common import (
    AddressOption,
    EngineOption,
    print_diagnostics,
    print_plain,
    progress,
    stderr_console,
    stdout_console,
    usable_engine,
    usable_sandbox,
)

if TYPE_CHECKING:
    from rich.console import Console

    from scbench.batch.scheduler import Hooks

INTERRUPTED = 130
"""Exit code of an interrupted batch (128 + SIGINT, as shells report it)."""


def batch(
    plan: Annotated[Path, typer.Argument(help="the plan, YAML or JSON (docs/batch.md)", exists=True, dir_okay=False)],
    out: Annotated[Path, typer.Option(help="the results tree: OUT/PROBLEM/SOLUTION/checkpoint_N/")] = Path("results"),
    engine: EngineOption = "local",
    address: AddressOption = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="cases run at once: on this machine "
                                             "(local, default CPU count + 1), per evaluation task (ray, default 1)")
                    ] = None,
    sandbox: Annotated[str | None, typer.Option(help="where solutions run: bwrap, docker or local (overrides the "
                                                     "plan's) [default: the first available]")] = None,
    rerun: Annotated[bool, typer.Option("--rerun", help="run every evaluation again, also those whose results "
                                                        "are current")] = False,
) -> None:
    """Evaluate every (solution, checkpoint) of a plan in one run: one scheduler keeps every core
    busy, each problem is compiled once and each solution set up once. Writes
    OUT/PROBLEM/SOLUTION/checkpoint_N/{results.json,junit.xml} and OUT/summary.json, prints the
    summary table on stdout. An evaluation whose solution, previous snapshot, bundle and settings
    are unchanged since its results were written is not run again. Exit 1 if a solution could not
    be set up, 2 on plan errors, 130 when interrupted (run it again to finish)."""
    from scbench.batch.engines import ENGINES
    from scbench.batch.ray_engine import ClusterUnreachable
    from scbench.batch.session import Batch
    from scbench.batch.store import Store
    from scbench.results import Floor
    console = stderr_console()
    usable_engine(engine, address, ENGINES)
    session = Batch(*_resolved(console, plan, sandbox), Store(out), rerun)
    console.print(f"{len(session.jobs)} evaluation(s): {len(session.resumed)} current in {out} (not run again), "
                  f"{len(session.pending)} to run", highlight=False)
    started = time.monotonic()
    try:
        cores = _run(console, session, engine, jobs, address)
    except KeyboardInterrupt:
        console.print(f"[red]interrupted:[/] {len(session.outcomes)} of {len(session.pending)} evaluation(s) "
                      f"finished and written; run the same command again to finish the rest", highlight=False)
        raise typer.Exit(INTERRUPTED) from None
    except ClusterUnreachable as error:
        console.print(f"[red]{error}[/]", highlight=False)
        raise typer.Exit(2) from None
    if cores:
        ran = (outcome.results for outcome in session.outcomes.values() if outcome.results)
        console.print(str(Floor.of(time.monotonic() - started, ran, cores)), highlight=False)
    _report(console, stdout_console(), session, out)


def _resolved(console: "Console", plan: Path, sandbox: str | None) -> tuple:
    """The plan's jobs and bundles; on plan errors every diagnostic is printed and the exit is 2."""
    from scbench.batch.resolve import PlanError, resolve
    try:
        jobs, bundles = resolve(plan, sandbox)
    except PlanError as error:
        print_diagnostics(console, error.diagnostics)
        raise typer.Exit(2) from None
    usable_sandbox(console, jobs[0].target.sandbox)
    return jobs, bundles


def _hooks(console: "Console", bar, task) -> "Hooks":
    from scbench.batch.scheduler import Hooks

    def done(outcome) -> None:
        results = outcome.results
        if results is None:
            print_plain(console, f"setup failed {outcome.job.key}: {outcome.error}", "red")
            return
        verdict = f"strict {'pass' if results.summary.strict else 'FAIL'}"
        console.print(f"{verdict} {outcome.job.key} ({results.duration_s:.1f}s)", highlight=False)

    return Hooks(done, lambda job, result: bar.advance(task), lambda text: print_plain(console, text))


def _run(console: "Console", session, engine: str, jobs: int | None, address: str | None) -> int:
    total = sum(len(session.bundles[job.problem].suite(job.checkpoint)) for job in session.pending)
    with progress(console) as bar:
        task = bar.add_task(f"batch ({engine})", total=total)
        return session.run(engine, jobs, _hooks(console, bar, task), address)


def _report(console: "Console", stdout: "Console", session, out: Path) -> None:
    from scbench.batch.store import atomic
    from scbench.batch.summary import BatchSummary, summary_table
    rows = session.rows()
    stdout.print(summary_table(rows))
    out.mkdir(parents=True, exist_ok=True)
    with atomic(out / "summary.json") as path:
        path.write_text(BatchSummary(rows=rows).model_dump_json(indent=2))
    console.print(f"wrote {out}/PROBLEM/SOLUTION/checkpoint_N/ and {out / 'summary.json'}", highlight=False)
    raise typer.Exit(1 if any(row.status == "setup failed" for row in rows) else 0)
