"""Find flaky cases: run a checkpoint's suite several times on one solution and compare the runs."""

from __future__ import annotations

from scbench.evaluate.session import Target, evaluate
from scbench.problem.bundle import Bundle
from scbench.results import CaseResult


def fingerprint(case: CaseResult) -> tuple:
    """What must not change between runs of a case: its verdict and each step's verdict and failures
    (target, message and diff, which shows the output; durations are ignored)."""
    return case.passed, tuple((step.name, step.passed, tuple((f.target, f.message, f.diff) for f in step.failures))
                              for step in case.steps)


def find_flaky(bundle: Bundle, number: int, target: Target, repeat: int = 3) -> list[str]:
    """Run checkpoint ``number``'s suite ``repeat`` times (at least twice) on ``target`` and return,
    sorted, the cases whose :func:`fingerprint` changed, as ``checkpoint/case_id``. Raises
    ``KeyError`` for an unknown checkpoint and ``SetupError`` when the solution cannot be set up."""
    seen: dict[str, set[tuple]] = {}
    for _ in range(max(repeat, 2)):
        for case in evaluate(bundle, number, target).cases:
            seen.setdefault(f"{case.checkpoint}/{case.id}", set()).add(fingerprint(case))
    return sorted(key for key, prints in seen.items() if len(prints) > 1)
