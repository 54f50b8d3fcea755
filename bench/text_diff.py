"""Failure reports of text outputs: ``check_output`` on 10,000-line outputs that differ in
different ways, against the baseline of reading the same output (``bytes.decode`` plus
``str.split``) in the same process; each figure the median of ``--rounds`` runs.

    python bench/text_diff.py [--rounds 5]

Prints one line per shape: milliseconds per report and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from scbench.grade.outputs import check_output
from scbench.problem.model import OutputExpectation

LINES = 10_000


def _lines(seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [f"{n:05d} {'word ' * rng.randint(1, 12)}{rng.random():.6f}" for n in range(LINES)]


def shapes() -> dict[str, tuple[str, str]]:
    """Shape name -> (expected, actual), each about ``LINES`` lines."""
    lines = _lines()
    late = [*lines[:-3], lines[-3].replace("word", "ward", 1), *lines[-2:]]
    long_line = ["a" * 5000 + "b", *lines[1:]]
    shuffled = random.Random(1).sample(lines, len(lines))
    wildcard = [line.rsplit(" ", 1)[0] + " [..]" for line in lines]
    return {
        "one change at line 9,998": ("\n".join(lines) + "\n", "\n".join(late) + "\n"),
        "change at column 5,000": ("\n".join(["a" * 5000 + "c", *lines[1:]]) + "\n", "\n".join(long_line) + "\n"),
        "every line differs": ("\n".join(lines) + "\n", "\n".join(_lines(7)) + "\n"),
        "same lines, shuffled": ("\n".join(lines) + "\n", "\n".join(shuffled) + "\n"),
        "wildcard lines, one change": ("\n".join(wildcard) + "\n", "\n".join(late) + "\n"),
    }


def median_ms(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    for name, (expected, actual) in shapes().items():
        data = actual.encode()
        baseline = median_ms(lambda data=data: data.decode().split("\n"), rounds)
        spec = OutputExpectation(value=expected)
        report = median_ms(lambda spec=spec, data=data: check_output("stdout", spec, data), rounds)
        print(f"{name:30} {report:8.1f} ms  {report / baseline:8.1f}x  (baseline {baseline:.2f} ms)")


if __name__ == "__main__":
    main()
