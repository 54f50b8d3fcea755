"""Read run directories (:mod:`scbench.rundir`) into :class:`~scbench.report.model.RunSummary`."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from scbench.agent.snapshot import diff
from scbench.grade.show import printable
from scbench.report.model import FailingCase, FileChange, Point, RunSummary, phase_of
from scbench.results import CATEGORIES, RunResults
from scbench.rundir import CheckpointRecord, Usage, attempts_of, checkpoint_dir, read_run

RAN = frozenset({"done", "failed"})
"""States of a checkpoint whose agent ran to an end (its time and cost count)."""


def _usage(directory: Path) -> Usage | None:
    path = directory / "usage.json"
    return Usage.model_validate_json(path.read_text()) if path.exists() else None


def _results(directory: Path) -> RunResults | None:
    path = directory / "results.json"
    return RunResults.model_validate_json(path.read_text()) if path.exists() else None


def _failing(results: RunResults) -> list[FailingCase]:
    return [FailingCase(case=f"{case.checkpoint}/{case.id}", category=case.category,
                        message=printable(f"{case.failures[0].target}: {case.failures[0].message}") if case.failures
                        else "a step did not run")
            for case in results.cases if not case.passed]


def _pass_rates(results: RunResults | None) -> dict[str, float | None]:
    counts = results.summary.counts if results else {}
    return {c: counts[c].passed / counts[c].total if c in counts and counts[c].total else None for c in CATEGORIES}


UNGRADED = {"failed": "the agent failed", "done": "not graded: setup failed", "evaluating": "not graded yet"}
"""Why a checkpoint in a state has no grading (any other state: ``not run``)."""


def _quality_figures(results: RunResults | None) -> dict[str, float | int | None]:
    """Erosion, verbosity and LOC of a graded checkpoint, each ``None`` when it was not graded."""
    quality = results.quality if results else None
    return {key: getattr(quality, key) if quality else None for key in ("erosion", "verbosity", "loc")}


def _cost(attempts: list[Usage]) -> float | None:
    """What every attempt at a checkpoint cost (failed and retried ones included), ``None`` when none says."""
    costs = [usage.cost_usd for usage in attempts if usage.cost_usd is not None]
    return round(sum(costs), 6) if costs else None


def _measures(record: CheckpointRecord, usage: Usage | None, results: RunResults | None,
              attempts: list[Usage]) -> tuple[dict, dict]:
    """The checkpoint's measures (``None`` where missing) and why each missing one is missing; its cost is
    every attempt's, also when the last attempt did not run to an end."""
    ran = record.status in RAN and usage is not None
    values = {"cost_usd": _cost(attempts),
              "minutes": round(usage.wall_s / 60, 4) if ran and usage.wall_s is not None else None,
              **_quality_figures(results)}
    cost_reason = f"cost unknown (usage parser {usage.parser})" if usage else "not run"
    reasons = {"cost_usd": cost_reason, "minutes": "not run", **dict.fromkeys(("erosion", "verbosity", "loc"),
                                                                              UNGRADED.get(record.status, "not run"))}
    return values, {key: reasons[key] for key, value in values.items() if value is None}


def _verdicts(results: RunResults | None) -> dict[str, bool]:
    summary = results.summary if results else None
    return {key: bool(summary and getattr(summary, key)) for key in ("strict", "isolated", "core")}


def _evidence(usage: Usage | None, results: RunResults | None) -> dict:
    """Tokens from the usage, quality deltas and failing cases from the grading."""
    tokens = {key: getattr(usage, key) if usage else None for key in ("tokens_in", "tokens_out")}
    if results is None:
        return {**tokens, "delta": None, "failing": []}
    return {**tokens, "delta": results.quality and results.quality.delta, "failing": _failing(results)}


def _changes(run_dir: Path, number: int) -> list[FileChange]:
    """What checkpoint ``number`` changed in the workspace (nothing when it left no snapshot)."""
    snapshot = checkpoint_dir(run_dir, number) / "snapshot"
    previous = checkpoint_dir(run_dir, number - 1) / "snapshot" if number > 1 else None
    return [FileChange(**asdict(change)) for change in diff(previous, snapshot)[1]] if snapshot.is_dir() else []


def point(run_dir: Path, record: CheckpointRecord, checkpoints: int) -> Point:
    """Checkpoint ``record`` of the run in ``run_dir`` as a point (of ``checkpoints`` in the problem)."""
    directory = checkpoint_dir(run_dir, record.number)
    usage, results = _usage(directory), _results(directory)
    values, missing = _measures(record, usage, results, attempts_of(run_dir, record.number))
    return Point(number=record.number, name=record.name, phase=phase_of(record.number, checkpoints),
                 status=record.status, reason=record.stop_reason or record.evaluation_error, failure=record.failure,
                 attempts=record.attempts, **_verdicts(results),
                 pass_rates=_pass_rates(results), **values, missing=missing, **_evidence(usage, results),
                 changes=_changes(run_dir, record.number))


def load_run(run_dir: Path) -> RunSummary:
    """The run in ``run_dir``. Raises ``FileNotFoundError`` without ``run.json`` and pydantic's
    ``ValidationError`` when a file does not follow its schema."""
    record = read_run(run_dir)
    points = [point(run_dir, cp, len(record.checkpoints)) for cp in record.checkpoints]
    return RunSummary(path=str(run_dir), agent=record.agent, model=record.model, prompt=record.prompt,
                      track=record.track, problem=record.problem, bundle=record.bundle, sandbox=record.sandbox,
                      uncontained=record.uncontained, stop_reason=record.stop_reason, points=points,
                      failure=next((cp.failure for cp in record.checkpoints if cp.status == "failed"), None))
