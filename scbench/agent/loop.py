"""``scbench run``: an agent through every checkpoint of a problem, as SlopCodeBench runs one.

Fresh workspace at checkpoint 1; at each checkpoint the agent gets only the rendered prompt and its
own previous workspace (paper section 2.2), in a fresh sandbox of the level the cases run in; then
the workspace is snapshotted, diffed against the previous snapshot, graded with regressions and
measured (:func:`scbench.evaluate.session.evaluate`, :func:`scbench.evaluate.session.with_quality`). An agent that
crashes, times out or passes the cost limit ends the run: that checkpoint and the rest stay
unsolved, with the reason. ``resume`` continues after the last complete checkpoint; a checkpoint
whose prompt changed runs again with every later one, one whose grading inputs changed is graded
again (its agent work is kept).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from scbench import content
from scbench.about import version
from scbench.agent import snapshot
from scbench.agent.invoke import Call, Outcome, call_agent
from scbench.evaluate.junit import write_junit
from scbench.evaluate.session import Target, evaluate, with_quality
from scbench.harness.failures import TRANSIENT
from scbench.paths import owned_tempdir, release
from scbench.problem.bundle import Bundle
from scbench.prompts.render import render_prompt
from scbench.run.tracks import SetupError
from scbench.rundir import (
    COMPLETE,
    CheckpointRecord,
    RunRecord,
    attempts_of,
    checkpoint_dir,
    read_run,
    sha256,
    suite_digest,
    write_attempt,
    write_run,
)


class RunDirError(Exception):
    """The run directory cannot be used as asked (it holds another run, or a run without
    ``--resume``); the message says why and what to do."""


@dataclass(frozen=True)
class Experiment:
    """One run's settings: the agent call (without budget), its name and model, the prompt
    template, the track, the sandbox level asked for (``None``: the default), the cost limits in
    dollars of the run and of each checkpoint (``None``: none), the cases run in parallel, how
    often an attempt that failed transiently (:data:`~scbench.harness.failures.TRANSIENT`) is
    retried, the first retry after ``retry_wait_s`` seconds, each later one after twice the last, and
    whether a resumed run may change its sandbox level and cost limit."""

    call: Call
    agent_name: str
    model: str | None
    template: str
    track: str
    sandbox: str | None = None
    cost_limit_usd: float | None = None
    jobs: int | None = None
    checkpoint_cost_limit_usd: float | None = None
    retries: int = 2
    retry_wait_s: float = 30.0
    allow_changed_settings: bool = False


def now() -> str:
    """The current time, ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def fresh_record(bundle: Bundle, experiment: Experiment) -> RunRecord:
    """The record of a run not started yet: every checkpoint pending, with its input digests."""
    checkpoints = [CheckpointRecord(number=number, name=cp.name, suite_sha256=suite_digest(bundle, number),
                                    prompt_sha256=sha256(render_prompt(bundle, number, experiment.template,
                                                                       experiment.track)))
                   for number, cp in enumerate(bundle.checkpoints, 1)]
    return RunRecord(scbench=version(), agent=experiment.agent_name, command=experiment.call.agent.command,
                     model=experiment.model, prompt=experiment.template, track=experiment.track,
                     sandbox=experiment.call.level.name, problem=bundle.config.name, bundle=bundle.digest,
                     started=now(), cost_limit_usd=experiment.cost_limit_usd,
                     checkpoint_cost_limit_usd=experiment.checkpoint_cost_limit_usd,
                     harness=experiment.call.agent.harness(), checkpoints=checkpoints,
                     uncontained=not experiment.call.level.contained)


def _kept(old: CheckpointRecord, new: CheckpointRecord, log: Callable[[str], None]) -> CheckpointRecord | None:
    """``old`` as it may be kept (graded again when its grading inputs changed), or ``None`` when it
    must run again."""
    if old.status not in COMPLETE:
        return None
    if old.prompt_sha256 != new.prompt_sha256:
        log(f"{new.name}: its prompt changed since it ran (spec, template or track words): it runs again, "
            "and so does every later checkpoint")
        return None
    if old.suite_sha256 != new.suite_sha256 and old.status == "done":
        log(f"{new.name}: its cases, data or limits changed since it was graded: its snapshot is graded again")
        return old.model_copy(update={"status": "evaluating", "suite_sha256": new.suite_sha256})
    return old


def _same_experiment(run_dir: Path, old: RunRecord, fresh: RunRecord) -> None:
    """Raise :class:`RunDirError` unless ``old`` and ``fresh`` are the same experiment."""
    changed = [f"{key} {was!r} (now {fresh.identity()[key]!r})" for key, was in old.identity().items()
               if was != fresh.identity()[key]]
    if changed:
        raise RunDirError(f"{run_dir} holds another experiment: {'; '.join(changed)}; "
                          "resume it with the same settings or choose another --out")


def _same_settings(run_dir: Path, old: RunRecord, fresh: RunRecord, allowed: bool) -> None:
    """Raise :class:`RunDirError` when ``fresh`` changes ``old``'s sandbox level or cost limit and that is not
    ``allowed``."""
    changed = [f"{key} {was!r} (now {fresh.settings()[key]!r})" for key, was in old.settings().items()
               if was != fresh.settings()[key]]
    if changed and not allowed:
        raise RunDirError(f"{run_dir} ran with {'; '.join(changed)}: resume it with the same --sandbox and "
                          "--cost-limit, or add --allow-changed-settings (each checkpoint records its own)")


def _kept_prefix(old: RunRecord, fresh: RunRecord, log: Callable[[str], None]) -> list[CheckpointRecord]:
    """The records of ``old`` kept, checkpoint by checkpoint, up to the first that must run again
    (all run again when the problem's checkpoints are not the same)."""
    if [cp.name for cp in old.checkpoints] != [cp.name for cp in fresh.checkpoints]:
        return []
    kept: list[CheckpointRecord] = []
    for was, new in zip(old.checkpoints, fresh.checkpoints, strict=True):
        record = _kept(was, new, log)
        if record is None:
            break
        kept.append(record)
    return kept


def resumed_record(run_dir: Path, fresh: RunRecord, log: Callable[[str], None], allowed: bool = False) -> RunRecord:
    """``fresh`` with the complete checkpoints of the run in ``run_dir`` kept, up to the first that
    must run again; the directories of the others are removed (said on ``log``). Raises
    :class:`RunDirError` when that run is another experiment, or ran with other settings (sandbox level, cost
    limit) and changing them is not ``allowed``."""
    old = read_run(run_dir)
    _same_experiment(run_dir, old, fresh)
    _same_settings(run_dir, old, fresh, allowed)
    kept = _kept_prefix(old, fresh, log)
    rest = fresh.checkpoints[len(kept):]
    for new in rest:
        if checkpoint_dir(run_dir, new.number).exists():
            shutil.rmtree(checkpoint_dir(run_dir, new.number))
    if rest:
        log(f"resuming at {rest[0].name}")
    return fresh.model_copy(update={"started": old.started, "harness_version": old.harness_version,
                                    "checkpoints": kept + rest, "uncontained": fresh.uncontained or old.uncontained})


def open_run(run_dir: Path, bundle: Bundle, experiment: Experiment, resume: bool,
             log: Callable[[str], None]) -> RunRecord:
    """The record to carry on with in ``run_dir`` (created if needed). Raises :class:`RunDirError`
    for a directory that holds a run without ``resume``, or another experiment."""
    fresh = fresh_record(bundle, experiment)
    if not (run_dir / "run.json").exists():
        if run_dir.exists() and any(run_dir.iterdir()):
            raise RunDirError(f"{run_dir} is not empty and holds no run.json: choose another --out")
        run_dir.mkdir(parents=True, exist_ok=True)
        return fresh
    if not resume:
        raise RunDirError(f"{run_dir} holds a run already: add --resume to continue it, or choose another --out")
    return resumed_record(run_dir, fresh, log, experiment.allow_changed_settings)


@dataclass
class Session:
    """A run in progress: its directory, record (written after every change), bundle, settings,
    the agent's area (``area/workspace`` persists across checkpoints) and a log for progress."""

    run_dir: Path
    record: RunRecord
    bundle: Bundle
    experiment: Experiment
    area: Path
    log: Callable[[str], None]

    def save(self, number: int, **changes) -> None:
        """Update checkpoint ``number``'s record with ``changes`` and write ``run.json``."""
        self.record.checkpoints[number - 1] = self.record.checkpoint(number).model_copy(update=changes)
        write_run(self.run_dir, self.record)

    def snapshot_of(self, number: int) -> Path | None:
        """Checkpoint ``number``'s snapshot (``None`` for checkpoint 0, the empty workspace)."""
        return checkpoint_dir(self.run_dir, number) / "snapshot" if number else None

    def spent(self, numbers: list[int]) -> float:
        """Dollars every recorded attempt at checkpoints ``numbers`` cost, as far as their usage says."""
        return sum(usage.cost_usd or 0 for number in numbers for usage in attempts_of(self.run_dir, number))

    def budget(self, number: int) -> dict:
        """The budget of an attempt at checkpoint ``number``: the dollars left of the tighter of the run's and
        the checkpoint's cost limits, and whose limit it is (:class:`~scbench.agent.invoke.Call`'s fields)."""
        every = [cp.number for cp in self.record.checkpoints]
        limits = [(limit - self.spent(numbers), whose) for limit, numbers, whose in (
            (self.experiment.cost_limit_usd, every, "the run's"),
            (self.experiment.checkpoint_cost_limit_usd, [number], "the checkpoint's")) if limit is not None]
        left, whose = min(limits, default=(None, "the run's"))
        return {"budget_usd": left, "budget_of": whose}

    def restore(self, number: int) -> None:
        """Make the agent's workspace checkpoint ``number``'s snapshot (0: empty)."""
        workspace, snapshot_dir = self.area / "workspace", self.snapshot_of(number)
        if workspace.exists():
            shutil.rmtree(workspace)
        if snapshot_dir:
            content.copy(snapshot_dir, workspace)
        else:
            workspace.mkdir()


def grade(session: Session, number: int, status: str = "done") -> None:
    """Evaluate checkpoint ``number``'s snapshot (its suite with regressions, then quality with deltas
    from the previous snapshot) and write ``results.json`` and ``junit.xml``; a setup failure is
    recorded as the checkpoint's ``evaluation_error``. Its status is ``status`` after."""
    directory, started = checkpoint_dir(session.run_dir, number), time.monotonic()
    snapshot_dir = session.snapshot_of(number)
    target = Target(snapshot_dir, session.experiment.track, sandbox=session.experiment.sandbox,
                    toolchains=str(session.run_dir.resolve()))
    error = None
    try:
        results = with_quality(evaluate(session.bundle, number, target, session.experiment.jobs), snapshot_dir,
                               session.snapshot_of(number - 1))
        (directory / "results.json").write_text(results.model_dump_json(indent=2))
        write_junit(results, directory / "junit.xml")
        session.log(f"{session.record.checkpoint(number).name}: strict {results.summary.strict}, "
                    f"isolated {results.summary.isolated}, core {results.summary.core}")
    except SetupError as failure:
        error = str(failure)
        session.log(f"{session.record.checkpoint(number).name}: setup failed, unsolved: {error.splitlines()[0]}")
    session.save(number, status=status, evaluation_error=error, eval_s=round(time.monotonic() - started, 3))


def record_outcome(session: Session, number: int, outcome: Outcome) -> str | None:
    """Write checkpoint ``number``'s trajectory, standard error, usage, snapshot and diff (the
    outcome's output is redacted already; the snapshot is redacted as it is taken) and record the special
    files left out of the snapshot. Returns why the snapshot was refused (``None``: it was taken)."""
    directory = checkpoint_dir(session.run_dir, number)
    name = "trajectory.jsonl" if session.experiment.call.agent.output == "jsonl" else "trajectory.txt"
    (directory / name).write_bytes(outcome.result.stdout)
    (directory / "stderr.txt").write_bytes(outcome.result.stderr)
    (directory / "usage.json").write_text(outcome.usage.model_dump_json(indent=2))
    try:
        left_out = snapshot.take(session.area / "workspace", directory / "snapshot",
                                 session.experiment.call.secret_values())
    except content.TooLarge as refused:
        return f"the workspace was not snapshotted: {refused}"
    session.save(number, left_out=left_out)
    patch, _ = snapshot.diff(session.snapshot_of(number - 1), directory / "snapshot")
    (directory / "diff.patch").write_text(patch, encoding="utf-8")
    return None


def _attempts(session: Session, number: int, prompt: str) -> Outcome:
    """The agent's attempts at checkpoint ``number`` until one ends other than transiently or the retries
    run out (the workspace back to the previous snapshot before each retry); every attempt's usage kept
    in ``attempts/``. Returns the last outcome, its usage numbered."""
    first, retry = len(attempts_of(session.run_dir, number)) + 1, 0
    while True:
        outcome = call_agent(replace(session.experiment.call, **session.budget(number)), session.area, number,
                             prompt)
        outcome = replace(outcome, usage=outcome.usage.model_copy(update={"attempt": first + retry}))
        write_attempt(session.run_dir, number, outcome.usage)
        session.record.harness_version = outcome.version or session.record.harness_version
        session.save(number, attempts=first + retry)
        if outcome.usage.failure not in TRANSIENT or retry == session.experiment.retries:
            return outcome
        wait = session.experiment.retry_wait_s * 2 ** retry
        session.log(f"{session.record.checkpoint(number).name}: {outcome.stop_reason}; "
                    f"retry {retry + 1} of {session.experiment.retries} in {wait:g} s")
        time.sleep(wait)
        session.restore(number - 1)
        retry += 1


def attempt(session: Session, number: int) -> str | None:
    """Run the agent on checkpoint ``number`` (retrying transient failures), record what it did and grade
    its snapshot, also when it failed (as SlopCodeBench does). Returns why the run ends (``None``: it goes on)."""
    record, directory, started = session.record.checkpoint(number), checkpoint_dir(session.run_dir, number), \
        time.monotonic()
    if directory.exists():
        shutil.rmtree(directory)  # what a killed attempt left
    directory.mkdir()
    prompt = render_prompt(session.bundle, number, session.experiment.template, session.experiment.track)
    (directory / "prompt.md").write_text(prompt, encoding="utf-8")
    session.save(number, status="running", started=now(), stop_reason=None, failure=None,
                 sandbox=session.record.sandbox, cost_limit_usd=session.record.cost_limit_usd)
    session.log(f"{record.name}: agent {session.record.agent} running")
    outcome = _attempts(session, number, prompt)
    refused = record_outcome(session, number, outcome)
    reason = refused or outcome.stop_reason
    session.save(number, status="failed" if reason else "evaluating", stop_reason=reason,
                 failure=outcome.usage.failure, refused=outcome.usage.refused, agent_s=outcome.usage.wall_s)
    if not refused:  # a workspace not snapshotted has nothing to grade
        grade(session, number, "failed" if reason else "done")
    session.save(number, total_s=round(time.monotonic() - started, 3))
    return f"{record.name}: {reason}" if reason else None


def _stop(session: Session, reason: str, after: int) -> None:
    session.log(f"run ended: {reason}")
    session.record.stop_reason = reason
    for cp in session.record.checkpoints[after:]:
        session.save(cp.number, status="not_run", stop_reason=f"not run: {reason}")
    write_run(session.run_dir, session.record)


def _crashed(session: Session, reason: str) -> None:
    """End the run's record on ``reason``: the checkpoint under way failed, the rest not run."""
    current = next((cp.number for cp in session.record.checkpoints if cp.status in ("running", "evaluating")), None)
    if current:
        session.save(current, status="failed", stop_reason=reason)
    _stop(session, reason, current or len([cp for cp in session.record.checkpoints if cp.status == "done"]))


def run_problem(run_dir: Path, bundle: Bundle, experiment: Experiment, resume: bool = False,
                log: Callable[[str], None] = lambda line: None) -> RunRecord:
    """Run ``experiment``'s agent through every checkpoint of ``bundle`` into ``run_dir`` (layout:
    :mod:`scbench.rundir`) and return the final record. Raises :class:`RunDirError` (see
    :func:`open_run`)."""
    record = open_run(run_dir, bundle, experiment, resume, log)
    record.stop_reason = None
    area = owned_tempdir("scbench-agent-")
    session = Session(run_dir, record, bundle, experiment, area, log)
    session.restore(sum(cp.status in COMPLETE for cp in record.checkpoints))  # the kept prefix
    write_run(run_dir, record)
    try:
        for cp in record.checkpoints:
            if cp.status == "evaluating":
                grade(session, cp.number)
            elif cp.status != "done" and (reason := attempt(session, cp.number)):
                _stop(session, reason, cp.number)
                break
    except Exception as error:  # a fault of scbench's: the record still ends in a terminal state, then it is raised
        _crashed(session, f"scbench failed: {error!r}")
        raise
    finally:
        release(area)
    return session.record
