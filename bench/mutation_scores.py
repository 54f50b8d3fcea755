"""Print the mutation score of every checkpoint of a problem's python reference.

    python bench/mutation_scores.py problems/code_search [--max-mutants 60] [--checkpoint N ...]

For each checkpoint: killed / total mutants, the score, then each surviving mutant as
``file:line:col operator description``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from scbench.check.mutants import mutation_score
from scbench.problem.loader import load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", type=Path)
    parser.add_argument("--max-mutants", type=int, default=60)
    parser.add_argument("--checkpoint", type=int, action="append", help="only checkpoint N (repeatable)")
    args = parser.parse_args()
    bundle = load(args.problem)
    for checkpoint in bundle.checkpoints:
        if args.checkpoint and checkpoint.config.order not in args.checkpoint:
            continue
        started = time.monotonic()
        number = checkpoint.config.order
        score = mutation_score(bundle, number, args.problem / "solutions" / "python" / checkpoint.name,
                               max_mutants=args.max_mutants)
        print(f"{score.checkpoint}: {score.killed}/{score.total} killed, score {score.score:.2f} "
              f"({time.monotonic() - started:.0f}s)")
        for mutant in score.survivors:
            print(f"  survivor {mutant.file}:{mutant.line}:{mutant.column} {mutant.operator} {mutant.description}")


if __name__ == "__main__":
    main()
