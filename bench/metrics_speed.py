"""Time ``measure()`` on ~4,000-LOC snapshots against baselines run in the same process.

Python: the first public modules of the installed ``rich`` package (alphabetical) until they hold 4,000 code
lines, copied to a temporary directory. Baselines: radon ``cc_visit(no_assert=True)`` alone, tree-sitter
parsing alone and ast-grep parsing alone.
Other languages, each given as ``LANGUAGE=DIR`` (a source tree, e.g. ``go=/usr/local/go/src/net/http`` or a
public project exported with ``git archive`` into /tmp; nothing fetched is committed): the tree's files in path
order until 4,000 code lines, and the same snapshot's ast-grep rules alone (parse + every rule of the language)
against ast-grep parsing alone, so the rules' share of measure() shows. The Python snapshot also times the
rules through the binding (one walk per rule, what measure() did before) beside ``ast-grep scan`` (one walk).
Target: measure() <= 0.5 s per 4,000-LOC snapshot on the 2-core dev machine.
Usage: ``.venv/bin/python bench/metrics_speed.py [REPEATS] [LANGUAGE=DIR ...]``.
Against SlopCodeBench's own metrics pipeline on the same snapshot: ``bench/metrics_vs_slopcodebench.py``.
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

from scbench.quality.astgrep import flag, load_rules, scan
from scbench.quality.languages import languages
from scbench.quality.measure import discover, measure

TARGET_LOC = 4000
TARGET_S = 0.5


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


def tree_snapshot(tree: Path, language: str, into: Path) -> list[Path]:
    """Copy ``language`` files of ``tree`` (path order, tests left out) into ``into`` until TARGET_LOC code lines."""
    adapter = languages().get(language)
    copied: list[Path] = []
    for index, (source, _) in enumerate(discover(tree, [adapter])):
        if "test" in source.name.lower():
            continue
        copied.append(Path(shutil.copy(source, into / f"{index:04d}{source.suffix}")))
        if measure(into, language).loc >= TARGET_LOC:
            break
    return copied


def other_language(language: str, tree: Path, repeats: int) -> None:
    """Print measure() on a 4,000-LOC snapshot of ``tree`` and the share its ast-grep rules take."""
    table = languages().get(language).table
    rules = load_rules(table.rules)
    with tempfile.TemporaryDirectory() as tmp:
        files = tree_snapshot(tree, language, Path(tmp))
        texts = [path.read_text(errors="replace") for path in files]
        measure(Path(tmp), language)
        whole = best_of(repeats, lambda: measure(Path(tmp), language))
        with_rules = best_of(repeats, lambda: scan({p: p.name for p in files}, table.ast_grep, table.extensions,
                                                    rules))
        parse_only = best_of(repeats, lambda: [SgRoot(text, table.ast_grep).root() for text in texts])
        report = measure(Path(tmp), language)
    verdict = "OK" if whole <= TARGET_S else "OVER"
    print(f"{language:<10} {len(files):3d} files, LOC {report.loc}, {len(rules)} rules:",
          f"measure() {whole * 1000:7.1f} ms"
          f" ({verdict}); ast-grep parse {parse_only * 1000:6.1f} ms, scan {with_rules * 1000:6.1f} ms"
          f" (rules x{with_rules / parse_only:4.1f} parse, {(with_rules - parse_only) / whole:4.0%} of measure())")


def main(repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = snapshot(Path(tmp))
        texts = [path.read_text() for path in files]
        parser = Parser(Language(tree_sitter_python.language()))
        rules = load_rules(languages().get("python").table.rules)
        measure(Path(tmp))  # warm caches: rules, grammars
        timings = {
            "measure()": best_of(repeats, lambda: measure(Path(tmp))),
            "radon cc_visit only": best_of(repeats, lambda: [cc_visit(t, no_assert=True) for t in texts]),
            "tree-sitter parse only": best_of(repeats, lambda: [parser.parse(t.encode()) for t in texts]),
            "ast-grep parse only": best_of(repeats, lambda: [SgRoot(t, "python").root() for t in texts]),
            f"binding, {len(rules)} rules": best_of(repeats, lambda: [flag("f", t, "python", rules) for t in texts]),
            f"ast-grep scan, {len(rules)}": best_of(repeats, lambda: scan({p: p.name for p in files}, "python",
                                                                         (".py",), rules)),
        }
        report = measure(Path(tmp))
    print(f"snapshot: {len(files)} files of rich, LOC {report.loc}, {len(report.callables)} callables")
    baseline = timings["radon cc_visit only"]
    for name, seconds in timings.items():
        print(f"{name:<24} {seconds * 1000:8.1f} ms   x{seconds / baseline:5.2f} radon")
    verdict = "OK" if timings["measure()"] <= TARGET_S else "OVER"
    print(f"target measure() <= 500 ms: {verdict}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    count = int(arguments.pop(0)) if arguments and arguments[0].isdigit() else 5
    main(count)
    for pair in arguments:
        name, _, directory = pair.partition("=")
        other_language(name, Path(directory), count)
