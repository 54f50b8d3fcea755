"""Time ``measure()`` on a ~4,000-LOC Python snapshot against baselines run in the same process.

The snapshot is the first public modules of the installed ``rich`` package (alphabetical) until they hold 4,000 code
lines, copied to a temporary directory. Baselines: radon ``cc_visit(no_assert=True)`` alone, tree-sitter
parsing alone and ast-grep parsing alone. Target: measure() <= 0.5 s on the 2-core dev machine.
Usage: ``.venv/bin/python bench/metrics_speed.py [REPEATS]``.
"""

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import rich
import tree_sitter_python
from ast_grep_py import SgRoot
from radon.complexity import cc_visit
from tree_sitter import Language, Parser

from scbench.quality.measure import measure

TARGET_LOC = 4000


def snapshot(into: Path) -> list[Path]:
    """Copy rich's modules into ``into`` until their code lines reach TARGET_LOC; return the copies."""
    copied = []
    loc = 0
    for source in sorted(Path(rich.__file__).parent.glob("[a-z]*.py")):
        copied.append(Path(shutil.copy(source, into)))
        loc = measure(into).loc
        if loc >= TARGET_LOC:
            break
    return copied


def best_of(repeats: int, action: Callable[[], object]) -> float:
    """Median wall time of ``action`` over ``repeats`` runs, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = snapshot(Path(tmp))
        texts = [path.read_text() for path in files]
        parser = Parser(Language(tree_sitter_python.language()))
        measure(Path(tmp))  # warm caches: rules, grammars
        timings = {
            "measure()": best_of(repeats, lambda: measure(Path(tmp))),
            "radon cc_visit only": best_of(repeats, lambda: [cc_visit(t, no_assert=True) for t in texts]),
            "tree-sitter parse only": best_of(repeats, lambda: [parser.parse(t.encode()) for t in texts]),
            "ast-grep parse only": best_of(repeats, lambda: [SgRoot(t, "python").root() for t in texts]),
        }
        report = measure(Path(tmp))
    print(f"snapshot: {len(files)} files of rich, LOC {report.loc}, {len(report.callables)} callables")
    baseline = timings["radon cc_visit only"]
    for name, seconds in timings.items():
        print(f"{name:<24} {seconds * 1000:8.1f} ms   x{seconds / baseline:5.2f} radon")
    verdict = "OK" if timings["measure()"] <= 0.5 else "OVER"
    print(f"target measure() <= 500 ms: {verdict}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
