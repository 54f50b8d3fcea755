"""Cross-check per-callable CC: Python against radon, Go against lizard. Prints agreement percentages.

* Python: every function, method and closure of an installed package (default ``rich``) measured by
  scbench vs radon ``cc_visit(code, no_assert=True)`` flattened with ``radon.complexity.add_inner_blocks``;
  functions are matched by (file, first line).
* Go: every function of a Go source tree (a directory given on the command line, e.g. a public project
  exported with ``git archive`` into /tmp; nothing fetched is committed) vs lizard; functions, methods and
  func literals are matched by (file, first line).

Target: >= 98 % agreement. Usage: ``.venv/bin/python bench/cc_crosscheck.py [GO_DIR] [PYTHON_PACKAGE]``.
"""

import importlib
import sys
from collections.abc import Iterable
from pathlib import Path

import lizard
from radon.complexity import add_inner_blocks, cc_visit
from radon.visitors import Function

from scbench.quality.measure import measure

Key = tuple[str, int]


def ours(root: Path, language: str) -> dict[Key, int]:
    """CC by (file relative to root, first line) as scbench measures it."""
    return {(c.path, c.line): c.cc for c in measure(root, language).callables}


def radon_cc(root: Path) -> dict[Key, int]:
    """CC by (file, first line) from radon, closures and methods flattened."""
    return {
        (path.relative_to(root).as_posix(), block.lineno): block.complexity
        for path in sorted(root.rglob("*.py"))
        for block in add_inner_blocks(cc_visit(path.read_text(), no_assert=True))
        if isinstance(block, Function)
    }


def lizard_cc(root: Path) -> dict[Key, int]:
    """CC by (file, first line) from lizard."""
    return {
        (Path(result.filename).relative_to(root).as_posix(), function.start_line): function.cyclomatic_complexity
        for result in (lizard.analyze_file(str(path)) for path in sorted(root.rglob("*.go")))
        for function in result.function_list
    }


def agreement(name: str, reference: dict[Key, int], measured: dict[Key, int]) -> float:
    """Print and return the share of reference functions whose CC scbench reproduces; list differences."""
    shared = reference.keys() & measured.keys()
    differ = sorted(key for key in shared if reference[key] != measured[key])
    share = 1 - len(differ) / len(shared) if shared else 0.0
    print(f"{name}: {len(shared)} functions matched ({len(reference)} reference, {len(measured)} ours)")
    print(f"{name}: CC agrees on {share:.2%}")
    _show(differ[:10], reference, measured)
    return share


def _show(keys: Iterable[Key], reference: dict[Key, int], measured: dict[Key, int]) -> None:
    for key in keys:
        print(f"    {key[0]}:{key[1]} reference {reference[key]} ours {measured[key]}")


def main(go_dir: Path | None, package: str) -> None:
    python_root = Path(importlib.import_module(package).__file__).parent
    agreement(f"python ({package}) vs radon", radon_cc(python_root), ours(python_root, "python"))
    if go_dir is not None:
        agreement(f"go ({go_dir}) vs lizard", lizard_cc(go_dir), ours(go_dir, "go"))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else None, sys.argv[2] if len(sys.argv) > 2 else "rich")
