"""Per-case wall time of each sandbox level against ``local``, in one run.

    python bench/sandbox_overhead.py [--rounds 2] [--levels local,bwrap,docker]

Runs the cases of problems/code_search checkpoint 1 (CLI) and of
problems/dynamic_config_service_api checkpoint 1 (HTTP) against their python references, one
case at a time, each case under every level in turn (interleaved, so a change of load on the
machine hits all levels alike), and prints the mean wall time per case and its ratio to local.
Goals: bwrap <= 1.3x local, docker <= 3x.
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import ExitStack
from pathlib import Path

from scbench.evaluate.session import limits_of, run_case
from scbench.problem.compiler import compile_problem
from scbench.run.context import RunContext
from scbench.run.tracks import prepare
from scbench.sandbox.registry import registry

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = {"cli": "code_search", "http": "dynamic_config_service_api"}


def contexts(problem: str, levels: list[str], stack: ExitStack) -> tuple[list, dict[str, RunContext]]:
    """The checkpoint-1 cases of ``problem`` and a started sandbox context per level."""
    bundle = compile_problem(ROOT / "problems" / problem)
    found = {}
    for name in levels:
        level = registry()[name]
        prepared = prepare(ROOT / "problems" / problem / "solutions/python/checkpoint_1", "python",
                           bundle.config.entry_file, level)
        sandbox = stack.enter_context(level(limits_of(bundle, 1), [prepared.directory, bundle.data_dir()]))
        found[name] = RunContext(entry=prepared.entry, data=bundle.data_dir(), env=bundle.checkpoint(1).config.env,
                                 solution=prepared.directory, sandbox=sandbox)
    return bundle.checkpoint(1).cases, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--levels", default=",".join(name for name, level in registry().items()
                                                     if not level.unavailable()))
    args = parser.parse_args()
    levels = ["local", *(name for name in args.levels.split(",") if name != "local")]
    with ExitStack() as stack:
        for kind, problem in PROBLEMS.items():
            cases, ctxs = contexts(problem, levels, stack)
            walls: dict[str, list[float]] = {name: [] for name in levels}
            for _ in range(args.rounds):
                for compiled in cases:
                    for name in levels:
                        started = time.perf_counter()
                        result = run_case(compiled, compiled.case.category, ctxs[name])
                        walls[name].append(time.perf_counter() - started)
                        assert result.passed, f"{name}: {compiled.case.id} failed"
            base = statistics.mean(walls["local"])
            print(f"{kind}: {problem} checkpoint_1, {len(cases)} cases x {args.rounds} rounds, one at a time")
            for name in levels:
                mean = statistics.mean(walls[name])
                print(f"  {name:7} {mean * 1000:8.1f} ms per case   {mean / base:5.2f}x local")


if __name__ == "__main__":
    main()
