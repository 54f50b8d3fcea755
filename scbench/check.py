"""``scbench check``: every reference solution of every track on its checkpoint, plus
regressions, and a list of every inconsistency found."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from scbench.evaluate import Target, evaluate
from scbench.results import RunResults
from scbench.run.tracks import SetupError, tracks
from scbench.spec.bundle import Bundle

REFERENCE_DIR = re.compile(r"^checkpoint_(\d+)$")


@dataclass(frozen=True)
class Reference:
    """``solutions/<track>/checkpoint_<number>`` of a problem."""

    track: str
    number: int
    path: Path


@dataclass
class CheckReport:
    """The runs made and the inconsistencies found (each a one-line explanation)."""

    runs: list[tuple[Reference, RunResults]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def references(root: Path) -> Iterator[Reference]:
    """Every reference solution directory under ``root/solutions``, by track then checkpoint."""
    for track_dir in sorted(p for p in (root / "solutions").glob("*") if p.is_dir()):
        for path in sorted(p for p in track_dir.iterdir() if REFERENCE_DIR.match(p.name)):
            yield Reference(track_dir.name, int(REFERENCE_DIR.match(path.name).group(1)), path)


def _layout_problems(root: Path, bundle: Bundle, found: list[Reference]) -> Iterator[str]:
    known = set(tracks())
    for ref in found:
        if ref.track not in known:
            yield f"solutions/{ref.track}: unknown track; known: {', '.join(sorted(known))}"
        if ref.number > len(bundle.checkpoints):
            yield f"{ref.path.relative_to(root)}: the problem has no checkpoint {ref.number}"
    covered = {ref.number for ref in found}
    for checkpoint in bundle.checkpoints:
        if checkpoint.config.order not in covered:
            yield f"{checkpoint.name}: no reference solution in any track (add solutions/python/{checkpoint.name}/)"


def _run_problems(ref: Reference, results: RunResults) -> Iterator[str]:
    for case in results.cases:
        for step in (s for s in case.steps if not s.passed):
            for failure in step.failures:
                yield (f"{ref.track} {results.checkpoint}: {case.id} [{case.category}] ({case.source}) "
                       f"{step.name}: {failure.target}: {failure.message}")


def check(root: Path, bundle: Bundle, run: Callable[[Bundle, int, Target], RunResults] | None = None) -> CheckReport:
    """Run every usable reference of the problem at ``root`` and collect inconsistencies:
    layout errors, setup failures and every failing case. ``run`` defaults to
    :func:`scbench.evaluate.evaluate` (the CLI passes one with a progress bar)."""
    run = run or evaluate
    report = CheckReport()
    found = list(references(root))
    report.problems += _layout_problems(root, bundle, found)
    for ref in found:
        if ref.track not in tracks() or ref.number > len(bundle.checkpoints):
            continue
        try:
            results = run(bundle, ref.number, Target(ref.path, ref.track))
        except SetupError as error:
            report.problems.append(f"{ref.path.relative_to(root)}: setup failed: {error}")
            continue
        report.runs.append((ref, results))
        report.problems += _run_problems(ref, results)
    return report
