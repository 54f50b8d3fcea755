"""``scbench eval``: one solution at one checkpoint, graded and measured."""

from pathlib import Path
from typing import Annotated

import typer

from scbench.commands.common import (
    Jobs,
    ProblemArg,
    SandboxOption,
    known_checkpoint,
    known_track,
    load_bundle,
    print_plain,
    selection_of,
    stderr_console,
    stdout_console,
    usable_entry,
    usable_sandbox,
    with_progress,
)


def eval_command(
    problem: ProblemArg,
    checkpoint: Annotated[int, typer.Option("--checkpoint", "-c", help="checkpoint number")],
    solution: Annotated[Path, typer.Option("--solution", "-s", help="solution directory", exists=True,
                                           file_okay=False)],
    track: Annotated[str | None, typer.Option("--track", "-t", help="language track of scbench/run/tracks.yaml "
                                              "[default: python]")] = None,
    entry: Annotated[str | None, typer.Option("--entry", "-e", help="entry command, e.g. 'node main.js'; "
                                              "paths are relative to the solution, {solution} is its dir")] = None,
    jobs: Jobs = None,
    out: Annotated[Path, typer.Option(help="where results.json and junit.xml go")] = Path("results"),
    previous: Annotated[Path | None, typer.Option(help="the previous checkpoint's snapshot, for quality deltas",
                                                  exists=True, file_okay=False)] = None,
    sandbox: SandboxOption = None,
    select: Annotated[str | None, typer.Option("-k", "--select", help="only the cases whose id or checkpoint_N/id "
                                               "matches this shell-style pattern (without wildcards: a substring)")
                      ] = None,
    max_failures: Annotated[int | None, typer.Option("--max-failures", min=1, help="start no new case once N cases "
                                                     "have failed")] = None,
) -> None:
    """Run a checkpoint's cases (plus regressions) against a solution and measure its erosion
    and verbosity. Results on stdout, progress on stderr. Exit 1 unless every case that ran passed (for the
    whole suite: unless strict-solved)."""
    from scbench.evaluate import session as evaluation
    from scbench.evaluate.junit import write_junit
    from scbench.evaluate.terminal import print_run
    from scbench.run.tracks import SetupError
    if track is not None:
        known_track(track)
    if entry is not None:
        usable_entry(entry, track)
    console = stderr_console()
    usable_sandbox(console, sandbox)
    bundle = load_bundle(problem)
    known_checkpoint(bundle, checkpoint)
    selection = selection_of(bundle, checkpoint, select, max_failures)
    target = evaluation.Target(solution, None if entry else track or "python", entry, sandbox)
    try:
        results = evaluation.evaluate_measured(
            lambda: with_progress(jobs, console, selection)(bundle, checkpoint, target), solution, previous)
    except SetupError as error:
        print_plain(console, f"setup failed for {solution}: {error}", "red")
        raise typer.Exit(1) from None
    print_run(stdout_console(), results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(results.model_dump_json(indent=2))
    write_junit(results, out / "junit.xml")
    console.print(f"wrote {out / 'results.json'} and {out / 'junit.xml'}")
    raise typer.Exit(0 if all(case.passed for case in results.cases) else 1)
