"""A plan file resolved into jobs: every (solution, checkpoint) evaluation it asks for.

Reading reports every error at once, each located in the plan (or a run's ``run.json``) with a
fix: the plan's syntax and schema first, then the problems (compiled once each), then every
solution and run (unknown problem or track, a checkpoint the problem lacks, a missing
directory, two evaluations with the same place in the results tree).
"""

from __future__ import annotations

import glob
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from scbench.batch.plan import CHECKPOINT, Plan, SolutionEntry
from scbench.evaluate.session import Target
from scbench.problem.bundle import Bundle
from scbench.problem.diagnostics import Diagnostic, ProblemError, did_you_mean, rebased, where_of
from scbench.problem.loader import load
from scbench.problem.model import CASE_ID
from scbench.problem.source import Document, read_document
from scbench.problem.validate import schema_diagnostics
from scbench.run.tracks import tracks
from scbench.rundir import COMPLETE, RunRecord, checkpoint_dir

SNAPSHOT = re.compile(r"^checkpoint_([1-9][0-9]*)$")
Finding = tuple[tuple, str, str]
"""An error found in one entry: the path below the entry, the message, the fix."""


class PlanError(Exception):
    """A plan cannot be run; carries every diagnostic found, sorted."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


@dataclass(frozen=True)
class Job:
    """One evaluation of a plan: ``target`` (a solution of ``problem``) at checkpoint
    ``checkpoint``, placed at ``key`` in the results tree, with the ``previous`` checkpoint's
    snapshot (for quality deltas) when the plan has one."""

    problem: str
    name: str
    checkpoint: int
    target: Target
    previous: Path | None = None

    @property
    def key(self) -> str:
        """``problem/name/checkpoint_N``: where its results go, and how it is shown."""
        return f"{self.problem}/{self.name}/checkpoint_{self.checkpoint}"


@dataclass
class _Resolver:
    plan: Plan
    document: Document
    shown: str
    base: Path
    sandbox: str | None
    bundles: dict[str, Bundle] = field(default_factory=dict)
    found: list[Diagnostic] = field(default_factory=list)

    def error(self, where: tuple, message: str, hint: str, shown: str | None = None,
              document: Document | None = None) -> None:
        self.found.append(Diagnostic(shown or self.shown, (document or self.document).line_of(where),
                                     where_of(where), message, hint))

    def numbers(self, problem: str) -> range:
        return range(1, len(self.bundles[problem].checkpoints) + 1)


def _known_problem(entry: SolutionEntry, resolver: _Resolver) -> Iterator[Finding]:
    if entry.problem not in resolver.plan.problems:
        yield ("problem",), f"unknown problem {entry.problem!r}", did_you_mean(entry.problem, list(
            resolver.plan.problems)) or f"add it to problems, or use one of: {', '.join(resolver.plan.problems)}"


def _track_or_entry(entry: SolutionEntry, resolver: _Resolver) -> Iterator[Finding]:
    if entry.track is not None and entry.entry is not None:
        yield ("entry",), "both track and entry are given", "keep one: a track sets the solution up, an entry runs it"
    if entry.track is not None and entry.track not in tracks():
        yield ("track",), f"unknown track {entry.track!r}", did_you_mean(entry.track, list(tracks())) or \
            f"use one of: {', '.join(tracks())}"


def _usable_entry(entry: SolutionEntry, resolver: _Resolver) -> Iterator[Finding]:
    if entry.entry is None:
        return
    try:
        argv = shlex.split(entry.entry)
    except ValueError as error:
        yield ("entry",), f"cannot split the entry command into words: {error}", "balance its quotes"
        return
    if not argv:
        yield ("entry",), "the entry command is empty", "write the command that starts the solution"


def _checkpoints_exist(entry: SolutionEntry, resolver: _Resolver) -> Iterator[Finding]:
    if entry.problem not in resolver.bundles:
        return
    known = resolver.numbers(entry.problem)
    for index, number in enumerate(entry.checkpoints or ()):
        if number not in known:
            yield ("checkpoints", index), f"{entry.problem} has no checkpoint {number}", \
                f"use checkpoints {known.start}..{known.stop - 1}"


def _named(entry: SolutionEntry, resolver: _Resolver) -> Iterator[Finding]:
    if entry.name is None and not re.match(CASE_ID, _default_name(entry)):
        yield ("path",), f"no name can be made from the path {entry.path!r}", \
            "give the solution a name: (letters, digits, _ . -)"


def _default_name(entry: SolutionEntry) -> str:
    """The last part of the path that names neither a checkpoint nor a snapshot."""
    parts = [part for part in Path(entry.path).parts if CHECKPOINT not in part and not SNAPSHOT.match(part)
             and part != "snapshot"]
    return parts[-1] if parts else ""


SOLUTION_CHECKS: tuple[Callable[[SolutionEntry, _Resolver], Iterator[Finding]], ...] = (
    _known_problem, _track_or_entry, _usable_entry, _checkpoints_exist, _named)
"""What a solution entry must satisfy before its jobs are made (each yields findings)."""


def _directory(base: Path, path: str, number: int) -> Path:
    return base / path.replace(CHECKPOINT, str(number))


def _numbers(entry: SolutionEntry, resolver: _Resolver) -> list[int] | range:
    return entry.checkpoints or resolver.numbers(entry.problem)


def _missing(entry: SolutionEntry, resolver: _Resolver) -> Iterator[Finding]:
    directories = {_directory(resolver.base, entry.path, number) for number in _numbers(entry, resolver)}
    for directory in sorted(path for path in directories if not path.is_dir()):
        yield ("path",), f"{directory} is not a directory", \
            "fix the path, or list only the checkpoints it has under checkpoints"


def _solution_job(entry: SolutionEntry, number: int, resolver: _Resolver) -> Job:
    previous = _directory(resolver.base, entry.path, number - 1)
    target = Target(_directory(resolver.base, entry.path, number), None if entry.entry else entry.track or "python",
                    entry.entry, resolver.sandbox, str(resolver.base / entry.path))
    return Job(entry.problem, entry.name or _default_name(entry), number, target,
               previous if CHECKPOINT in entry.path and previous.is_dir() else None)


def _solution_jobs(index: int, entry: SolutionEntry, resolver: _Resolver) -> Iterator[tuple[Job, tuple]]:
    where = ("solutions", index)
    findings = [finding for check in SOLUTION_CHECKS for finding in check(entry, resolver)]
    findings = findings or list(_missing(entry, resolver))
    for path, message, hint in findings:
        resolver.error((*where, *path), message, hint)
    for number in _numbers(entry, resolver) if not findings else ():
        yield _solution_job(entry, number, resolver), where


def _run_record(run: Path, resolver: _Resolver) -> RunRecord | None:
    """``run/run.json`` checked against ``scbench/schemas/run.schema.json``; ``None`` (with diagnostics)
    when it is missing, invalid, or names a problem or track the plan cannot evaluate."""
    shown = str(run / "run.json")
    if not (run / "run.json").is_file():
        resolver.found.append(Diagnostic(shown, 0, "", "a run directory needs run.json",
                                         "list only directories written by scbench run under runs"))
        return None
    document, errors = read_document(run / "run.json", shown)
    errors += schema_diagnostics(document, "run", shown) if document is not None else []
    resolver.found += errors
    if errors:
        return None
    record = RunRecord.model_validate(document.data)
    wanted = {"problem": (resolver.bundles, f"add it with its path to the problems of {resolver.shown}"),
              "track": (tracks(), f"the tracks: {', '.join(tracks())}")}
    unknown = [(key, hint) for key, (known, hint) in wanted.items() if getattr(record, key) not in known]
    for key, hint in unknown:
        resolver.error((key,), f"unknown {key} {getattr(record, key)!r}", hint, shown, document)
    return None if unknown else record


def _snapshots(run: Path, record: RunRecord) -> dict[int, Path]:
    """Checkpoint number -> snapshot, for every checkpoint the agent completed (``done`` or ``evaluating``)."""
    found = {checkpoint.number: checkpoint_dir(run, checkpoint.number) / "snapshot" for checkpoint in record.checkpoints
             if checkpoint.status in COMPLETE}
    return {number: path for number, path in found.items() if path.is_dir()}


def _one_run(run: Path, where: tuple, resolver: _Resolver) -> Iterator[Job]:
    record = _run_record(run, resolver)
    snapshots = _snapshots(run, record) if record else {}
    if record and not snapshots:
        resolver.error(where, f"{run}: no checkpoint of the run is complete with a snapshot",
                       "list runs whose agent finished a checkpoint (status done or evaluating in run.json)")
    for number, snapshot in snapshots.items():
        if number not in resolver.numbers(record.problem):
            resolver.error(where, f"{snapshot}: {record.problem} has no checkpoint {number}",
                           "give the problem the run was made on")
            continue
        yield Job(record.problem, run.name, number,
                  Target(snapshot, record.track, sandbox=resolver.sandbox, toolchains=str(run.resolve())),
                  snapshots.get(number - 1))


def _run_jobs(index: int, pattern: str, resolver: _Resolver) -> Iterator[tuple[Job, tuple]]:
    where = ("runs", index)
    runs = sorted(Path(match) for match in glob.glob(str(resolver.base / pattern)) if Path(match).is_dir())
    if not runs:
        resolver.error(where, f"no run directory matches {pattern!r}", "fix the path (relative to the plan file)")
    for run in runs:
        yield from ((job, where) for job in _one_run(run, where, resolver))


def _unique(made: list[tuple[Job, tuple]], resolver: _Resolver) -> list[Job]:
    first: dict[str, tuple] = {}
    for job, where in made:
        if job.key in first:
            resolver.error(where, f"{job.key} is evaluated twice (first by {where_of(first[job.key])})",
                           "give one of them another name:")
        first.setdefault(job.key, where)
    return [job for job, _ in made]


def _bundles(resolver: _Resolver) -> bool:
    """Compile every problem of the plan into ``resolver.bundles``; whether all compiled."""
    compiled = True
    for name, path in resolver.plan.problems.items():
        try:
            bundle = load(resolver.base / path)
        except ProblemError as error:
            resolver.found += rebased(error.diagnostics, (resolver.base / path).resolve().parent)
            compiled = False
            continue
        if bundle.config.name != name:
            resolver.error(("problems", name), f"{path} is the problem {bundle.config.name!r}, not {name!r}",
                           f"name it {bundle.config.name}: {path}")
        resolver.bundles[name] = bundle
    return compiled


def _valid(adapter: TypeAdapter, value: object, default: object) -> object:
    """``value`` validated by ``adapter``, or ``default`` when it is invalid (its errors are among the
    plan's schema errors, reported already)."""
    try:
        return adapter.validate_python(value)
    except ValidationError:
        return default


def _partial_plan(data: object) -> Plan:
    """The parts of a schema-invalid plan that are valid on their own, so that their own errors are
    reported too: an invalid solution entry stays as ``None`` (the others keep their index), and
    without valid problems no entry is checked (each would be an unknown problem)."""
    parts = data if isinstance(data, dict) else {}
    problems = _valid(TypeAdapter(dict[str, str]), parts.get("problems", {}), {})
    entries = parts.get("solutions") if problems and isinstance(parts.get("solutions"), list) else []
    return Plan.model_construct(problems=problems, runs=_valid(TypeAdapter(list[str]), parts.get("runs", []), []),
                                solutions=[_valid(TypeAdapter(SolutionEntry), entry, None) for entry in entries],
                                sandbox=_valid(TypeAdapter(str | None), parts.get("sandbox"), None))


def read_plan(path: Path) -> tuple[Plan, Document, list[Diagnostic]]:
    """The plan in ``path`` (YAML, or strict JSON for ``.json``), its document (for lines) and its
    schema errors; with schema errors, the plan holds only its parts that are valid on their own
    (:func:`_partial_plan`). Raises :class:`PlanError` when the file does not parse."""
    document, errors = read_document(path, str(path))
    if document is None:
        raise PlanError(errors)
    errors += schema_diagnostics(document, "batch-plan", str(path))
    return (_partial_plan(document.data) if errors else Plan.model_validate(document.data)), document, errors


def resolve(path: Path, sandbox: str | None = None) -> tuple[list[Job], dict[str, Bundle]]:
    """Every job of the plan in ``path`` in plan order (solutions, then runs), and the compiled
    problems by name. ``sandbox`` overrides the plan's. Raises :class:`PlanError` with every
    diagnostic when anything is wrong."""
    plan, document, errors = read_plan(path)
    resolver = _Resolver(plan, document, str(path), path.resolve().parent, sandbox or plan.sandbox, found=errors)
    if not _bundles(resolver):
        raise PlanError(resolver.found)
    made = [job for index, entry in enumerate(plan.solutions) if entry is not None
            for job in _solution_jobs(index, entry, resolver)]
    made += [job for index, pattern in enumerate(plan.runs) for job in _run_jobs(index, pattern, resolver)]
    jobs = _unique(made, resolver)
    if resolver.found:
        raise PlanError(resolver.found)
    if not jobs:
        raise PlanError([Diagnostic(str(path), 1, "", "the plan evaluates nothing",
                                    "add solutions: or runs: (see docs/batch.md)")])
    return jobs, resolver.bundles
