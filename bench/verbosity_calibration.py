"""Do the verbosity rules measure every language alike? Flagged shares of one program written in six languages.

The program (``tests/quality/fixtures/calibration/``) reads ``name,quantity,price`` lines and prints a stock
report. ``idiomatic/<language>/`` is written the way that language is written well; ``verbose/<language>/`` is the
same program with one instance of each of eight slop families the paper lists, each in that language's own form:
a value assigned then returned, a boolean returned through if/else, a loop a library call replaces, a flag set in
a loop then break, an else after a return (Rust: a needless return), a length compared with zero (not in Go,
JavaScript or TypeScript, where ``len(x) == 0`` and ``xs.length === 0`` are accepted), a comment narrating the
next statement, and an error hidden (an empty catch, ``except: pass``, an empty ``if err != nil {}``,
``Err(_) => return None``).

The flagged share is |rule-flagged code lines| / LOC (the AST-grep part of verbosity, clones left out). Bands:

* idiomatic: every language's share <= ``IDIOMATIC_MAX`` (no rule may fire on idiomatic code);
* verbose: every injected family is flagged (``INJECTED``, the rule ids expected per language) and the largest
  share is at most ``VERBOSE_RATIO`` times the smallest. The spread left is LOC: the same program takes 53 code
  lines in Python and 92 in Go, so the same eight instances weigh less there.

Then, for the shipped references of forge and code_search (python and node tracks), each track's share at its
last checkpoint and its mean over checkpoints: references are idiomatic, so both should be near 0.

Usage: ``.venv/bin/python bench/verbosity_calibration.py``; exit 1 when a band is missed.
"""

import statistics
import sys
from pathlib import Path

from scbench.quality.measure import measure

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "quality" / "fixtures" / "calibration"
PROBLEMS = ("forge", "code_search")
IDIOMATIC_MAX = 0.02
VERBOSE_RATIO = 1.8
_COMMON = {"bool-return-if-else", "comment-restates-code", "else-after-return"}
INJECTED = {
    "python": _COMMON | {"assign-then-return", "manual-filter-append-loop", "flag-loop-any", "len-compare-zero",
                         "except-pass"},
    "javascript": _COMMON | {"assign-then-return", "manual-filter-push-loop", "flag-loop-some", "empty-catch"},
    "typescript": _COMMON | {"typed-assign-then-return", "typed-manual-push-loop", "typed-flag-loop", "empty-catch"},
    "go": _COMMON | {"assign-then-return", "sort-slice-natural-order", "flag-loop-break", "empty-if-branch"},
    "rust": {"let-and-return", "needless-bool", "manual-push-loop", "flag-loop-any", "needless-return",
             "len-zero", "comment-restates-code", "match-instead-of-question-mark"},
    "java": _COMMON | {"assign-then-return", "stream-for-each", "flag-loop-break", "size-compare-zero",
                       "empty-catch"},
}
"""Language -> the rule ids its verbose program must trigger (one per injected family)."""


def share(path: Path) -> tuple[float, set[str]]:
    """Flagged share of the snapshot at ``path`` and the ids of the rules that fired; 0.0 without code."""
    report = measure(path)
    return (report.flagged_lines / report.loc if report.loc else 0.0), {flag.rule for flag in report.flags}


def fixtures() -> list[str]:
    """Print both variants per language; return the band violations."""
    print(f"{'language':<11} {'idiomatic':>9} {'verbose':>8}  families flagged")
    failures = []
    verbose = {}
    for language, expected in INJECTED.items():
        plain, plain_rules = share(FIXTURES / "idiomatic" / language)
        verbose[language], rules = share(FIXTURES / "verbose" / language)
        missed = sorted(expected - rules)
        print(f"{language:<11} {plain:9.3f} {verbose[language]:8.3f}  {len(expected) - len(missed)}/{len(expected)}",
              f"(missed: {', '.join(missed)})" if missed else "")
        if plain > IDIOMATIC_MAX:
            failures.append(f"{language}: idiomatic share {plain:.3f} > {IDIOMATIC_MAX} ({sorted(plain_rules)})")
        if missed:
            failures.append(f"{language}: verbose program not flagged for {missed}")
    ratio = max(verbose.values()) / min(verbose.values())
    mean = statistics.mean(verbose.values())
    print(f"verbose shares: max/min x{ratio:.2f} (band <= x{VERBOSE_RATIO}), mean {mean:.3f}")
    if ratio > VERBOSE_RATIO:
        failures.append(f"verbose shares spread x{ratio:.2f} > x{VERBOSE_RATIO}")
    return failures


def references() -> None:
    """Print each track's flagged share on the shipped references, last checkpoint and mean."""
    print(f"\n{'reference':<24} {'last':>6} {'mean':>6}  checkpoints")
    for problem in PROBLEMS:
        for track in sorted((ROOT / "problems" / problem / "solutions").iterdir()):
            checkpoints = sorted(track.glob("checkpoint_*"), key=lambda path: int(path.name.split("_")[1]))
            shares = [share(checkpoint)[0] for checkpoint in checkpoints]
            print(f"{problem + '/' + track.name:<24} {shares[-1]:6.3f} {statistics.mean(shares):6.3f}  {len(shares)}")


def main() -> int:
    failures = fixtures()
    references()
    for failure in failures:
        print(f"OUT OF BAND: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
