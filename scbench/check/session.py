"""``scbench check``: every reference solution of every track on its checkpoint, plus
regressions, and a list of every inconsistency found."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from scbench.check.flaky import find_flaky
from scbench.check.mutants import MutationScore, mutation_score
from scbench.evaluate.session import Selection, Target, evaluate, with_quality
from scbench.lint.examples import check_examples
from scbench.lint.problem import lint_problem
from scbench.problem.bundle import Bundle
from scbench.problem.diagnostics import from_here
from scbench.results import Floor, RunResults
from scbench.run.tracks import SetupError, tracks

REFERENCE_DIR = re.compile(r"^checkpoint_(\d+)$")
REFERENCES = "references"
"""The trust domain of the references' set-ups: they share their toolchains' caches (one reference rebuilds
incrementally on the one before)."""


@dataclass(frozen=True)
class Reference:
    """``solutions/<track>/checkpoint_<number>`` of a problem."""

    track: str
    number: int
    path: Path


@dataclass
class CheckReport:
    """The runs made, the inconsistencies found (each explained), lint warnings, and mutation
    scores when asked for."""

    runs: list[tuple[Reference, RunResults]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    mutation: list[MutationScore] = field(default_factory=list)
    elapsed_s: float = 0.0
    cores: int = field(default_factory=lambda: len(os.sched_getaffinity(0)))

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def floor(self) -> Floor:
        """The least wall time the reference runs could take on :attr:`cores` cores, beside :attr:`elapsed_s`."""
        return Floor.of(self.elapsed_s, (results for _, results in self.runs), self.cores)

    def to_dict(self) -> dict:
        """The report as JSON-ready data: ``ok``, ``problems``, ``warnings``, one entry per
        reference run (track, checkpoint, summary, seconds, quality) and the mutation scores."""
        runs = [{"track": ref.track, "checkpoint": results.checkpoint, "summary": results.summary.model_dump(),
                 "duration_s": results.duration_s,
                 "quality": results.quality and results.quality.model_dump()} for ref, results in self.runs]
        mutation = [{"checkpoint": score.checkpoint, "killed": score.killed, "total": score.total,
                     "score": score.score, "survivors": [f"{m.file}:{m.line}:{m.column} {m.description}"
                                                         for m in score.survivors]} for score in self.mutation]
        return {"ok": self.ok, "problems": self.problems, "warnings": self.warnings, "runs": runs,
                "mutation": mutation, "elapsed_s": self.elapsed_s, "solution_s": self.floor.solution_s,
                "cores": self.cores, "floor_s": self.floor.floor_s}


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


def _run_references(root: Path, bundle: Bundle, found: list[Reference], run, report: CheckReport,
                    options: CheckOptions) -> None:
    usable = [ref for ref in found if ref.track in tracks() and ref.number <= len(bundle.checkpoints)]
    # found is sorted by track, then checkpoint: the first track's reference at the problem's last checkpoint
    whole = max(usable, key=lambda ref: ref.number, default=None)
    for ref in usable:
        selection = Selection(regressions=options.regressions == "every" or ref == whole)
        target = Target(ref.path, ref.track, sandbox=options.sandbox, toolchains=REFERENCES)
        try:
            results = run(bundle, ref.number, target, selection=selection)
        except SetupError as error:
            report.problems.append(f"{ref.path.relative_to(root)}: setup failed: {error}")
            continue
        previous = ref.path.with_name(f"checkpoint_{ref.number - 1}")
        report.runs.append((ref, with_quality(results, ref.path, previous if previous.is_dir() else None)))
        report.problems += _run_problems(ref, results)


def _lint(root: Path, bundle: Bundle, report: CheckReport, sandbox: str | None) -> None:
    for finding in sorted(lint_problem(root, bundle) + check_examples(root, bundle, sandbox)):
        shown = replace(finding, file=from_here(finding.file, root))  # a path the user can open
        (report.problems if finding.severity == "error" else report.warnings).append(shown.render())


@dataclass(frozen=True)
class CheckOptions:
    """What ``check`` does beyond running the references: ``repeat`` > 1 reruns every case that
    many times to find flaky ones; ``mutants`` computes the mutation score of each python reference;
    ``sandbox`` is the level the references run in (``None``: the first available); ``regressions`` says
    which references also run the earlier checkpoints' cases: ``every`` one, or only the ``last``: the
    reference at the problem's last checkpoint in the first track (by name) that has one, so every case of the
    problem still runs once as a regression, in a fraction of the case runs."""

    repeat: int = 1
    mutants: bool = False
    sandbox: str | None = None
    regressions: Literal["every", "last"] = "every"


def check(root: Path, bundle: Bundle, run: Callable[[Bundle, int, Target], RunResults] | None = None,
          options: CheckOptions = CheckOptions()) -> CheckReport:
    """Run every usable reference of the problem at ``root``, lint the problem, and collect
    inconsistencies: layout errors, setup failures, failing cases, lint errors (warnings are
    kept apart), flaky cases, and, on request, mutation scores, with the wall time it took (``elapsed_s``) beside
    its floor (``floor``). ``run`` defaults to
    :func:`scbench.evaluate.session.evaluate` (the CLI passes one with a progress bar); it is called with
    the :class:`Selection` of each reference as ``selection``."""
    started = time.monotonic()
    report = CheckReport()
    found = list(references(root))
    report.problems += _layout_problems(root, bundle, found)
    _run_references(root, bundle, found, run or evaluate, report, options)
    _lint(root, bundle, report, options.sandbox)
    for ref, _ in report.runs if options.repeat > 1 else []:
        target = Target(ref.path, ref.track, sandbox=options.sandbox)
        report.problems += [f"{ref.track}: flaky case {key}" for key in find_flaky(bundle, ref.number, target,
                                                                                    options.repeat)]
    report.mutation = [mutation_score(bundle, ref.number, ref.path, sandbox=options.sandbox) for ref, _ in report.runs
                       if options.mutants and ref.track == "python"]
    report.elapsed_s = time.monotonic() - started
    return report
