"""Startup of the command line: ``scbench --help`` and ``scbench compile`` against a bare
``python -c "import typer"``, each the median of ``--rounds`` runs, measured in one run.

    python bench/startup.py [--rounds 7]

Prints one line per command with its median wall time, its median CPU time (user + system of the
process, which a loaded machine disturbs far less than wall time) and both ratios to the baseline.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCBENCH = [sys.executable, "-m", "scbench"]


def medians(argv: list[str], rounds: int) -> tuple[float, float]:
    """Median wall seconds and median CPU seconds (user + system, from ``wait4``) of ``rounds`` runs of
    ``argv`` (output discarded; a non-zero exit raises ``CalledProcessError``)."""
    walls, cpus = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        walls.append(time.perf_counter() - started)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            raise subprocess.CalledProcessError(process.returncode, argv)
        cpus.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    wall0, cpu0 = medians([sys.executable, "-c", "import typer"], rounds)
    print(f"{'command':40} {'wall':>9} {'ratio':>6} {'cpu':>9} {'ratio':>6}")
    print(f"{'python -c import typer':40} {wall0 * 1000:6.1f} ms  1.00x {cpu0 * 1000:6.1f} ms  1.00x")
    with tempfile.TemporaryDirectory() as out:
        for name, argv in (("scbench --help", [*SCBENCH, "--help"]),
                           ("scbench compile problems/code_search",
                            [*SCBENCH, "compile", str(ROOT / "problems" / "code_search"), "--out", out])):
            wall, cpu = medians(argv, rounds)
            print(f"{name:40} {wall * 1000:6.1f} ms {wall / wall0:5.2f}x {cpu * 1000:6.1f} ms {cpu / cpu0:5.2f}x")


if __name__ == "__main__":
    main()
