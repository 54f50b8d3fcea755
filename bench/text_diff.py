"""Text outputs checked by ``check_output``: 10,000-line outputs that pass or differ in different
ways, against the baseline of reading the same output (``bytes.decode`` plus ``str.split``) in the
same process. Two figures per shape: the first check with every cache of ``scbench.grade`` and of
``re`` emptied (what one case pays), and the median of ``--rounds`` further checks.

    python bench/text_diff.py [--rounds 5]

Prints one line per shape: milliseconds and the ratio to the baseline, first use then repeated.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
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
    early = [*lines[:5], lines[5].replace("word", "ward", 1), *lines[6:]]
    long_line = ["a" * 5000 + "b", *lines[1:]]
    shuffled = random.Random(1).sample(lines, len(lines))
    wildcard = [line.rsplit(" ", 1)[0] + " [..]" for line in lines]
    text = "\n".join(lines) + "\n"
    return {
        "one change at line 9,998": (text, "\n".join(late) + "\n"),
        "change at column 5,000": ("\n".join(["a" * 5000 + "c", *lines[1:]]) + "\n", "\n".join(long_line) + "\n"),
        "every line differs": (text, "\n".join(_lines(7)) + "\n"),
        "same lines, shuffled": (text, "\n".join(shuffled) + "\n"),
        "every other line differs": (text, "\n".join(line if n % 2 else "x" for n, line in enumerate(lines)) + "\n"),
        "wildcard lines, passes": ("\n".join(wildcard) + "\n", text),
        "wildcard lines, change at 6": ("\n".join(wildcard) + "\n", "\n".join(early) + "\n"),
        "wildcard lines, change at 9,998": ("\n".join(wildcard) + "\n", "\n".join(late) + "\n"),
        "wildcard lines, every line differs": ("\n".join(wildcard) + "\n", "\n".join(_lines(7)) + "\n"),
    }


def empty_caches() -> None:
    """Empty ``re``'s cache and every ``functools`` cache of the loaded ``scbench.grade`` modules."""
    re.purge()
    for name, module in list(sys.modules.items()):
        if name.startswith("scbench.grade"):
            for value in vars(module).values():
                getattr(value, "cache_clear", lambda: None)()


def elapsed_ms(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def median_ms(work: Callable[[], object], rounds: int) -> float:
    return statistics.median(elapsed_ms(work) for _ in range(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    print(f"{'shape':36} {'first use':>20} {'repeated':>20}")
    for name, (expected, actual) in shapes().items():
        data = actual.encode()
        baseline = median_ms(lambda data=data: data.decode().split("\n"), rounds)
        spec = OutputExpectation(value=expected)
        empty_caches()
        first = elapsed_ms(lambda spec=spec, data=data: check_output("stdout", spec, data))
        report = median_ms(lambda spec=spec, data=data: check_output("stdout", spec, data), rounds)
        print(f"{name:36} {first:8.1f} ms {first / baseline:8.1f}x {report:8.1f} ms {report / baseline:8.1f}x"
              f"  (baseline {baseline:.2f} ms)")


if __name__ == "__main__":
    main()
