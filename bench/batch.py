"""``scbench batch`` against its floor and against a shell loop of ``scbench eval`` processes, in one
run, on the shipped problems' reference solutions (every track, every checkpoint).

    python bench/batch.py [--sandbox S] [--jobs N] [--loop-jobs N] [--problem NAME ...] [--rounds N]

1. Every reference is set up once first (the setup cache all three runs share; not measured).
2. floor: every evaluation run alone, one case at a time, in this process. A solution's process
   time is the duration of each CLI step's process and, for an HTTP case, the whole case (its
   server lives that long); the floor is their sum divided by the CPU count: the wall of a
   perfect scheduler with no harness at all.
3. batch: ``scbench batch PLAN --rerun`` as one process (its wall includes its own startup).
4. loop: ``bash`` running one ``scbench eval`` process per evaluation (``--previous`` as batch
   has it, ``-j`` as batch's), one after the other.
5. with ``--loop-jobs N``, also that loop with ``-j N`` for each eval (``--loop-jobs 1``:
   SlopCodeBench's default of one worker).

With ``--rounds N`` the three are measured N times in turn and the fastest of each kept (the
machine's other load only ever slows a run down).

Ends with ``batch_wall_s=X floor_s=Y loop_wall_s=Z``. Goals: batch <= 1.2 x floor + 2 s, and
loop >= 2 x batch.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from scbench.check.session import references
from scbench.evaluate.session import Target, evaluate
from scbench.problem.loader import load
from scbench.sandbox.registry import choose

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = tuple(sorted(path.name for path in (ROOT / "problems").iterdir() if (path / "config.yaml").is_file()))
"""Every shipped problem."""
SCBENCH = [sys.executable, "-m", "scbench"]


def plan_of(problems: list[str], sandbox: str | None) -> dict:
    """A plan with every reference of ``problems``: one entry per problem and track."""
    solutions = []
    for name in problems:
        found = list(references(ROOT / "problems" / name))
        for track in sorted({ref.track for ref in found}):
            solutions.append({"problem": name, "track": track, "name": track,
                              "path": str(ROOT / "problems" / name / "solutions" / track / "checkpoint_{checkpoint}"),
                              "checkpoints": [ref.number for ref in found if ref.track == track]})
    return {"problems": {name: str(ROOT / "problems" / name) for name in problems}, "solutions": solutions,
            "sandbox": sandbox}


def evaluations(plan: dict) -> list[tuple[str, str, int, Path, Path | None]]:
    """(problem, track, checkpoint, solution, previous snapshot or None) for every job of ``plan``."""
    found = []
    for entry in plan["solutions"]:
        for number in entry["checkpoints"]:
            solution = Path(entry["path"].replace("{checkpoint}", str(number)))
            previous = Path(entry["path"].replace("{checkpoint}", str(number - 1)))
            found.append((entry["problem"], entry["track"], number, solution, previous if previous.is_dir() else None))
    return found


def process_time(bundle, number: int, results) -> float:
    """Seconds the solution's own processes ran in ``results``: CLI steps, and HTTP cases whole."""
    http = {(case.checkpoint, case.case.id) for case, _ in bundle.suite(number) if case.case.kind == "http"}
    return sum(case.duration_s if (case.checkpoint, case.id) in http else sum(step.duration_s for step in case.steps)
               for case in results.cases)


def floor(jobs: list, sandbox: str | None) -> float:
    """The sum of the solution process times of every job run alone, one case at a time."""
    total = 0.0
    for problem, track, number, solution, _ in jobs:
        bundle = load(ROOT / "problems" / problem)
        total += process_time(bundle, number, evaluate(bundle, number, Target(solution, track, sandbox=sandbox),
                                                       jobs=1))
    return total


def wall(argv: list[str]) -> float:
    """Wall seconds of running ``argv`` (output discarded; any exit code)."""
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def loop_script(jobs: list, sandbox: str | None, jobs_option: list[str], out: Path) -> str:
    """A bash script running one ``scbench eval`` per job, one after the other."""
    lines = []
    for index, (problem, track, number, solution, previous) in enumerate(jobs):
        argv = [*SCBENCH, "eval", str(ROOT / "problems" / problem), "-c", str(number), "-s", str(solution),
                "-t", track, "--out", str(out / str(index)), *jobs_option,
                *(["--previous", str(previous)] if previous else []), *(["--sandbox", sandbox] if sandbox else [])]
        lines.append(shlex.join(argv) + " || true")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", help="sandbox level for every run [default: the first available]")
    parser.add_argument("--jobs", "-j", type=int,
                        help="cases at once, for batch and each eval [default: CPU count + 1]")
    parser.add_argument("--loop-jobs", type=int, help="also time the loop with this -j for each eval")
    parser.add_argument("--problem", action="append", choices=PROBLEMS, help="only this problem (repeatable)")
    parser.add_argument("--rounds", type=int, default=1, help="measure each N times, in turn, and keep the fastest")
    args = parser.parse_args()
    jobs_option = ["-j", str(args.jobs)] if args.jobs else []
    plan = plan_of(args.problem or list(PROBLEMS), args.sandbox)
    jobs = evaluations(plan)
    cores = os.cpu_count() or 2
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as scratch:
        work = Path(scratch)
        (work / "plan.yaml").write_text(yaml.safe_dump(plan))
        for problem, track, _, solution, _ in jobs:
            Target(solution, track).prepare(load(ROOT / "problems" / problem).config.entry_file, choose(args.sandbox))
        print(f"{len(jobs)} evaluations of {len(plan['problems'])} problems, {cores} cores", flush=True)
        (work / "loop.sh").write_text(loop_script(jobs, args.sandbox, jobs_option, work / "loop"))
        runs = {"floor": lambda: floor(jobs, args.sandbox) / cores,
                "batch": lambda: wall([*SCBENCH, "batch", str(work / "plan.yaml"), "--out", str(work / "batch"),
                                       "--rerun", *jobs_option]),
                "loop": lambda: wall(["bash", str(work / "loop.sh")])}
        if args.loop_jobs:
            (work / "loop-j.sh").write_text(loop_script(jobs, args.sandbox, ["-j", str(args.loop_jobs)], work / "j"))
            runs[f"loop -j {args.loop_jobs}"] = lambda: wall(["bash", str(work / "loop-j.sh")])
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for name, run in runs.items():
                best[name] = min(best.get(name, float("inf")), run())
                print(f"  {name:9} {best[name]:7.2f} s (fastest so far)", flush=True)
    floor_s, batch_s, loop_s = best["floor"], best["batch"], best["loop"]
    print(f"floor (solution process time / cores)  {floor_s:7.2f} s")
    print(f"scbench batch                          {batch_s:7.2f} s   {batch_s / floor_s:.2f}x floor")
    print(f"loop of scbench eval                   {loop_s:7.2f} s   {loop_s / batch_s:.2f}x batch")
    for name in best.keys() - {"floor", "batch", "loop"}:
        print(f"{'loop of scbench eval' + name[4:]:38} {best[name]:7.2f} s   {best[name] / batch_s:.2f}x batch")
    print(f"goals: batch <= 1.2 x floor + 2 s ({1.2 * floor_s + 2:.2f} s): {batch_s <= 1.2 * floor_s + 2}; "
          f"loop >= 2 x batch: {loop_s >= 2 * batch_s}")
    print(f"batch_wall_s={batch_s:.2f} floor_s={floor_s:.2f} loop_wall_s={loop_s:.2f}")


if __name__ == "__main__":
    main()
