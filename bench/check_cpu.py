"""CPU and wall seconds of ``scbench check`` in this tree against a baseline tree, in one run.

    python bench/check_cpu.py PROBLEM --baseline /work/main [--sandbox bwrap] [--rounds 1]

Each round runs ``python -m scbench check problems/PROBLEM --regressions last --sandbox LEVEL`` from the
baseline tree, then from this one (interleaved, so a change of load hits both alike), each with a fresh cache
(set-up included) and in a cgroup of its own, so the CPU counted is the whole tree's: scbench, its set-ups and
the solutions' processes (bwrap and local runs stay in the cgroup; docker's containers do not, so the level
is bwrap by default). Prints the CPU seconds (user + system) and wall seconds of each and the ratio of this
tree's to the baseline's. Needs root (a cgroup v1 ``cpuacct`` or a v2 child of the root cgroup).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CGROUPS = Path("/sys/fs/cgroup")
V1 = CGROUPS / "cpuacct"
"""The cpuacct hierarchy under cgroup v1 (``cpuacct.usage``: nanoseconds); absent under v2 (``cpu.stat``)."""


def cpu_seconds(group: Path) -> float:
    """CPU seconds the processes of ``group`` have used, exited ones included."""
    if V1.is_dir():
        return int((group / "cpuacct.usage").read_text()) / 1e9
    usage = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines())
    return int(usage["usage_usec"]) / 1e6


def measured(tree: Path, argv: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``python -m scbench ARGV`` run from ``tree`` with a fresh cache."""
    group = (V1 if V1.is_dir() else CGROUPS) / f"bench-check-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    procs = str(group / "cgroup.procs")
    with tempfile.TemporaryDirectory(prefix="bench-check-cache-") as cache:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "scbench", *argv], cwd=tree, capture_output=True, text=True,
                              env={**os.environ, "SCBENCH_CACHE": cache},
                              preexec_fn=lambda: Path(procs).write_text(str(os.getpid())))
        wall = time.monotonic() - started
    used = cpu_seconds(group)
    group.rmdir()
    if done.returncode:
        sys.exit(f"{tree}: scbench {' '.join(argv)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return used, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem")
    parser.add_argument("--baseline", type=Path, required=True, help="a checkout of scbench to compare with")
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    argv = ["check", f"problems/{args.problem}", "--regressions", "last", "--sandbox", args.sandbox]
    found: dict[str, list[tuple[float, float]]] = {"baseline": [], "this": []}
    for _ in range(args.rounds):
        for name, tree in (("baseline", args.baseline), ("this", ROOT)):
            found[name].append(measured(tree, argv))
    means = {name: [statistics.mean(column) for column in zip(*runs, strict=True)] for name, runs in found.items()}
    for name, (cpu, wall) in means.items():
        print(f"{name:8} cpu {cpu:8.1f} s   wall {wall:8.1f} s")
    (cpu, wall), (base_cpu, base_wall) = means["this"], means["baseline"]
    print(f"ratio    cpu {cpu / base_cpu:8.2f}x   wall {wall / base_wall:8.2f}x   (this tree / baseline)")


if __name__ == "__main__":
    main()
