"""Per-case overhead of the CLI runner: runner wall time minus the solution's own process
time, against a plain ``subprocess.run`` of the same commands in the same process.

    python bench/runner_overhead.py [--rounds 3]

Uses problems/code_search checkpoint 1 and its Python reference (set up once, cached).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from scbench.evaluate.session import run_case
from scbench.problem.compiler import compile_problem
from scbench.run.context import RunContext, fill
from scbench.run.tracks import prepare
from scbench.run.workdir import write_inputs
from scbench.sandbox.local import Local

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "code_search"


def plain(case, ctx: RunContext) -> float:
    """Baseline: the same steps with subprocess.run in a temp dir, no grading."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_inputs(work, case.files, ctx.data)
        started = time.perf_counter()
        for step in case.steps:
            argv = ctx.entry + [fill(arg, {"cwd": tmp, "data": str(ctx.data)}) for arg in step.args]
            subprocess.run(argv, cwd=work, capture_output=True, timeout=step.timeout)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    bundle = compile_problem(PROBLEM)
    prepared = prepare(PROBLEM / "solutions/python/checkpoint_1", "python", bundle.config.entry_file)
    ctx = RunContext(entry=prepared.entry, data=bundle.data_dir(), sandbox=Local().start())
    cases = bundle.checkpoint(1).cases
    runner, solution, baseline = [], [], []
    for _ in range(rounds):
        for compiled in cases:
            started = time.perf_counter()
            result = run_case(compiled, compiled.case.category, ctx)
            runner.append(time.perf_counter() - started)
            solution.append(sum(step.duration_s for step in result.steps))
            baseline.append(plain(compiled.case, ctx))
    overhead = [r - s for r, s in zip(runner, solution, strict=True)]
    mean = statistics.mean
    print(f"{len(cases)} cases x {rounds} rounds, one thread")
    print(f"runner wall per case          {mean(runner) * 1000:8.2f} ms")
    print(f"solution process time         {mean(solution) * 1000:8.2f} ms")
    print(f"runner overhead per case      {mean(overhead) * 1000:8.2f} ms  "
          f"(ratio to solution time {mean(overhead) / mean(solution):.3f})")
    print(f"plain subprocess.run baseline {mean(baseline) * 1000:8.2f} ms  "
          f"(runner / baseline = {mean(runner) / mean(baseline):.3f})")


if __name__ == "__main__":
    main()
