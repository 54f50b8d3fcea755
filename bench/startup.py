"""Startup of the command line: ``scbench --help`` and ``scbench compile`` against a bare
``python -c "import typer"``, each the median of ``--rounds`` runs, measured in one run.

    python bench/startup.py [--rounds 7]

Prints one line per command with its median wall time and its ratio to the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCBENCH = [sys.executable, "-m", "scbench"]


def median_wall(argv: list[str], rounds: int) -> float:
    """Median wall seconds of ``rounds`` runs of ``argv`` (output discarded, exit code checked)."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    baseline = median_wall([sys.executable, "-c", "import typer"], rounds)
    print(f"{'python -c import typer':40} {baseline * 1000:7.1f} ms   1.00x")
    with tempfile.TemporaryDirectory() as out:
        for name, argv in (("scbench --help", [*SCBENCH, "--help"]),
                           ("scbench compile problems/code_search",
                            [*SCBENCH, "compile", str(ROOT / "problems" / "code_search"), "--out", out])):
            wall = median_wall(argv, rounds)
            print(f"{name:40} {wall * 1000:7.1f} ms   {wall / baseline:.2f}x")


if __name__ == "__main__":
    main()
