"""Per-case harness overhead of scbench and of SlopCodeBench's own pytest harness, side by side, on
code_search checkpoints 1-3, with the same entry command on the same solution, in one run.

    python bench/slopcodebench_harness.py PATH [--checkpoint N ...] [--sandbox local --sandbox bwrap]

PATH is a work tree of the public SlopCodeBench repository (fetched at run time, committed nowhere), e.g.
``git -C CLONE archive HEAD problems/code_search | tar -x -C /tmp/scb``. The solution is their reference
``solutions/checkpoint_N`` set up once with our python track; the entry command is its venv's python on
``code_search.py`` (the same argv for both). Per checkpoint:

- theirs: pytest on their ``tests/test_checkpoint_N.py`` as their harness runs it (one worker; staged as
  ``bench/agreement.py`` does); a pytest plugin times every ``subprocess.run`` the tests make: the
  solution's process time.
- ours: an ``scbench eval -c N --entry CMD -j 1`` process (one worker too) per sandbox level asked for; the
  solution's process time is the sum of its step durations in ``results.json``.

Per-case overhead = (process wall - solution process time) / cases run, each harness's startup included.
Ends with ``ratio_<level>=X`` (ours / theirs) per level.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agreement import Theirs, run_their_suite

from scbench.run.tracks import prepare
from scbench.sandbox.registry import choose

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = "code_search"
TIMES = "SCBENCH_BENCH_PROCESS_TIMES"
PLUGIN = f'''"""Times every subprocess.run of the tests; writes the seconds to ${TIMES} at the end."""
import os, subprocess, time

_run, _spent = subprocess.run, []


def _timed(*args, **kwargs):
    started = time.perf_counter()
    try:
        return _run(*args, **kwargs)
    finally:
        _spent.append(time.perf_counter() - started)


subprocess.run = _timed


def pytest_sessionfinish(session):
    with open(os.environ["{TIMES}"], "w") as sink:
        sink.write("\\n".join(map(str, _spent)))
'''


def theirs_once(theirs: Theirs, number: int, solution, harness, scratch: Path) -> tuple[float, float, int]:
    """(wall, solution process time, tests) of their suite of checkpoint ``number``."""
    plugin, times = scratch / "scb_process_times.py", scratch / "times.txt"
    plugin.write_text(PLUGIN)
    os.environ[TIMES] = str(times)
    started = time.perf_counter()
    outcomes = run_their_suite(theirs, number, solution, harness, plugin)
    wall = time.perf_counter() - started
    return wall, sum(map(float, times.read_text().split())), len(outcomes)


def ours_once(number: int, theirs: Theirs, sandbox: str, scratch: Path) -> tuple[float, float, int]:
    """(wall, solution process time, cases) of an ``scbench eval`` process at checkpoint ``number``, on their
    reference set up for the ``sandbox`` level (a docker level's environment is the image's, not the host's)."""
    solution = prepare(theirs.root / "solutions" / f"checkpoint_{number}", "python", theirs.config["entry_file"],
                       choose(sandbox))
    out = scratch / f"ours-{sandbox}"
    argv = [sys.executable, "-m", "scbench", "eval", str(ROOT / "problems" / PROBLEM), "-c", str(number),
            "-s", str(solution.directory), "--entry", shlex.join(solution.entry), "-j", "1", "--sandbox", sandbox,
            "--out", str(out)]
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if not (out / "results.json").exists():
        sys.exit(f"scbench eval wrote no results (exit {done.returncode}):\n{done.stderr}")
    wall = time.perf_counter() - started
    results = json.loads((out / "results.json").read_text())
    return wall, sum(step["duration_s"] for case in results["cases"] for step in case["steps"]), len(results["cases"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a work tree of the SlopCodeBench repository")
    parser.add_argument("--checkpoint", type=int, action="append", help="checkpoint (repeatable) [default: 1 2 3]")
    parser.add_argument("--sandbox", action="append", help="our sandbox levels (repeatable) [default: local, bwrap]")
    args = parser.parse_args()
    theirs = Theirs.at(args.checkout.resolve() / "problems" / PROBLEM)
    harness = theirs.harness()
    levels = args.sandbox or ["local", "bwrap"]
    totals = {name: [0.0, 0] for name in ("slopcodebench", *levels)}
    print(f"{'checkpoint':>10}  {'harness':<16} {'cases':>5} {'wall s':>7} {'solution s':>10} {'overhead/case':>13}")
    for number in args.checkpoint or [1, 2, 3]:
        solution = prepare(theirs.root / "solutions" / f"checkpoint_{number}", "python", theirs.config["entry_file"])
        with tempfile.TemporaryDirectory(prefix="bench-harness-") as scratch:
            runs = {"slopcodebench": theirs_once(theirs, number, solution, harness, Path(scratch)),
                    **{level: ours_once(number, theirs, level, Path(scratch)) for level in levels}}
        for name, (wall, process, cases) in runs.items():
            totals[name][0] += wall - process
            totals[name][1] += cases
            print(f"{number:>10}  {name:<16} {cases:>5} {wall:7.2f} {process:10.2f} "
                  f"{(wall - process) / cases * 1000:10.1f} ms", flush=True)
    per_case = {name: overhead / cases for name, (overhead, cases) in totals.items()}
    print("per-case harness overhead, checkpoints together: "
          + ", ".join(f"{name} {value * 1000:.1f} ms" for name, value in per_case.items()))
    print(" ".join(f"ratio_{level}={per_case[level] / per_case['slopcodebench']:.2f}" for level in levels))


if __name__ == "__main__":
    main()
