"""``scbench metrics`` against SlopCodeBench's own metrics pipeline on the same snapshot, in one run.

    python bench/metrics_vs_slopcodebench.py TREE VENV [--snapshot REL] [--entry FILE] [--repeats N]

TREE is a work tree of the public SlopCodeBench repository (set up by hand, committed nowhere)::

    git -C CLONE archive HEAD src pyproject.toml configs/ast-grep-rules problems/code_search | tar -x -C TREE

VENV is a Python 3.12 venv holding only what their ``slop_code.metrics.driver`` imports and runs::

    python3.12 -m venv VENV && VENV/bin/pip install pydantic structlog rich radon pyyaml tree-sitter \\
        'tree-sitter-language-pack<1' networkx ast-grep-cli ruff uv jinja2 tenacity httpx gitpython boto3 docker

(``tree-sitter-language-pack`` 1.x downloads its grammars at run time; 0.x ships them.)

Theirs: ``measure_snapshot_quality(ENTRY, SNAPSHOT)``, the call their evaluation driver makes per snapshot,
in one long-lived process of VENV (``PYTHONPATH=TREE/src``, cwd TREE, VENV/bin first on PATH: its ``uv run
ruff`` per file is run with ``UV_NO_SYNC`` and ``UV_PROJECT_ENVIRONMENT=VENV``, as in their synced checkout,
and its ``sg scan`` per rule file is ast-grep's). It is timed around the call alone; its import is shown
apart. Ours: a whole ``scbench metrics SNAPSHOT`` process (start-up included, what a user runs), and
``measure()`` in this process. Each repeat runs the three in turn, so load on the machine falls on all of
them alike. Wall time and CPU time (user + system, children included) are medians over the repeats.
Ends with ``ratio=X`` (``scbench metrics`` wall / theirs) and ``cpu_ratio=Y``. Goal (issue 33): ratio <= 0.04.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from scbench.quality.measure import measure

MARK = "@@bench "
GOAL = 0.04
THEIRS = """
import json, resource, sys, time
from pathlib import Path

def cpu():
    used = map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return sum(u.ru_utime + u.ru_stime for u in used)

start = time.perf_counter()
from slop_code.metrics.driver import measure_snapshot_quality
print("@@bench", json.dumps({"import": time.perf_counter() - start}), flush=True)
for line in sys.stdin:
    entry, snapshot = json.loads(line)
    wall, used = time.perf_counter(), cpu()
    metrics, files = measure_snapshot_quality(entry, Path(snapshot))
    wall, used = time.perf_counter() - wall, cpu() - used
    print("@@bench", json.dumps({"wall": wall, "cpu": used, "files": metrics.file_count, "loc": metrics.lines.loc}),
          flush=True)
"""


def children_cpu() -> float:
    """User + system seconds of this process's reaped children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Theirs:
    """Their pipeline in one process of ``venv``: :meth:`measure` times one ``measure_snapshot_quality`` call."""

    def __init__(self, tree: Path, venv: Path, log) -> None:
        env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
               "PYTHONPATH": str(tree / "src"), "UV_NO_SYNC": "1", "UV_OFFLINE": "1",
               "UV_PROJECT_ENVIRONMENT": str(venv)}
        self.log = log
        self.process = subprocess.Popen([str(venv / "bin" / "python"), "-c", THEIRS], cwd=tree, env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        self.imported = self._answer()["import"]

    def _answer(self) -> dict:
        for line in self.process.stdout:
            if line.startswith(MARK):
                return json.loads(line.removeprefix(MARK))
        self.log.seek(0)
        raise RuntimeError(f"their pipeline exited {self.process.wait()}:\n{self.log.read()[-3000:]}")

    def measure(self, entry: str, snapshot: Path) -> dict:
        """Wall and CPU seconds of one call on ``snapshot``, with the file count and LOC it reports."""
        self.process.stdin.write(json.dumps([entry, str(snapshot)]) + "\n")
        self.process.stdin.flush()
        return self._answer()

    def close(self) -> None:
        """End the process (its stdin closed) and wait for it."""
        self.process.stdin.close()
        self.process.wait()


def ours_cli(snapshot: Path) -> dict:
    """Wall and CPU seconds of one ``scbench metrics snapshot`` process."""
    command = [str(Path(sysconfig.get_path("scripts"), "scbench")), "metrics", str(snapshot)]
    wall, used = time.perf_counter(), children_cpu()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return {"wall": time.perf_counter() - wall, "cpu": children_cpu() - used}


def ours_measure(snapshot: Path) -> dict:
    """Wall and CPU seconds of one in-process ``measure()`` call."""
    wall, used = time.perf_counter(), time.process_time()
    measure(snapshot)
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - used}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="SlopCodeBench work tree")
    parser.add_argument("venv", type=Path, help="venv holding their metrics pipeline's dependencies")
    parser.add_argument("--snapshot", default="problems/code_search/solutions/checkpoint_5",
                        help="snapshot directory, relative to TREE")
    parser.add_argument("--entry", default="code_search.py", help="entry file their driver is given")
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    tree, venv = arguments.tree.resolve(), arguments.venv.resolve()
    snapshot = tree / arguments.snapshot
    runs: dict[str, list[dict]] = {"theirs": [], "scbench metrics": [], "measure()": []}
    with tempfile.TemporaryFile("w+") as log:
        theirs = Theirs(tree, venv, log)
        ours_cli(snapshot)  # warm scbench's cache (ast-grep scan config) as a user's second run finds it
        for _ in range(arguments.repeats):
            runs["theirs"].append(theirs.measure(arguments.entry, snapshot))
            runs["scbench metrics"].append(ours_cli(snapshot))
            runs["measure()"].append(ours_measure(snapshot))
        theirs.close()
    report = measure(snapshot)
    last = runs["theirs"][-1]
    print(f"snapshot {snapshot}: theirs {last['files']} files, LOC {last['loc']}; ours {report.files} files, "
          f"LOC {report.loc}; {arguments.repeats} repeats, medians")
    print(f"theirs import (not counted): {theirs.imported:7.2f} s")
    medians = {name: {key: statistics.median(run[key] for run in done) for key in ("wall", "cpu")}
               for name, done in runs.items()}
    for name, median in medians.items():
        print(f"{name:<16} wall {median['wall']:7.2f} s  cpu {median['cpu']:7.2f} s"
              f"  x{median['wall'] / medians['theirs']['wall']:.4f} theirs")
    ratio = medians["scbench metrics"]["wall"] / medians["theirs"]["wall"]
    cpu_ratio = medians["scbench metrics"]["cpu"] / medians["theirs"]["cpu"]
    print(f"goal ratio <= {GOAL}: {'OK' if ratio <= GOAL else 'OVER'}")
    print(f"ratio={ratio:.4f} cpu_ratio={cpu_ratio:.4f}")


if __name__ == "__main__":
    sys.exit(main())
