"""The run directory: ``run.json`` (``scbench/schemas/run.schema.json``) and one ``checkpoint_N/`` per checkpoint.

Layout (other tools read it; keep it)::

    RUN_DIR/run.json                   agent, model, prompt template, track, problem and bundle digest,
                                       every checkpoint with its status and stop reason
    RUN_DIR/checkpoint_N/prompt.md     the rendered prompt
    RUN_DIR/checkpoint_N/trajectory.jsonl | trajectory.txt   the agent's raw standard output
    RUN_DIR/checkpoint_N/stderr.txt    the agent's standard error
    RUN_DIR/checkpoint_N/usage.json    its last attempt's tokens, turns, costs, wall_s (null where unknown)
    RUN_DIR/attempts/checkpoint_N.K.json   every attempt's usage (K = 1, 2, ...), kept across retries and resumes
    RUN_DIR/checkpoint_N/snapshot/     the workspace after the checkpoint (set-up products left out)
    RUN_DIR/checkpoint_N/diff.patch    unified diff against the previous snapshot
    RUN_DIR/checkpoint_N/results.json, junit.xml   the evaluation, as ``scbench eval`` writes them

``run.json`` is rewritten whole (write to a temporary file, then rename) after every step, so a
run killed at any moment leaves a readable record saying how far it got.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from scbench.harness.failures import FailureClass
from scbench.problem.bundle import Bundle

Status = Literal["pending", "running", "evaluating", "done", "failed", "not_run"]
"""A checkpoint's state: ``pending`` (not started), ``running`` (the agent works), ``evaluating``
(the agent is done, its snapshot is being graded), ``done`` (graded, or its setup failed:
``evaluation_error``), ``failed`` (the agent crashed, timed out or passed the cost limit:
``stop_reason``), ``not_run`` (an earlier checkpoint ended the run: ``stop_reason``)."""
COMPLETE: frozenset[str] = frozenset({"done", "evaluating"})
"""States whose agent work is finished and kept (an ``evaluating`` one only needs its grading)."""


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CheckpointRecord(Model):
    """One checkpoint of a run: its state, why it stopped, the digests of its inputs (to tell on
    ``--resume`` whether they changed) and its times in seconds (agent, evaluation, whole step)."""

    number: int = Field(ge=1)
    name: str
    status: Status = "pending"
    stop_reason: str | None = None
    failure: FailureClass | None = Field(None, description="the class of the failure that ended the run here")
    attempts: int = Field(0, ge=0, description="agent attempts at it, retries of transient failures included")
    refused: list[str] = Field(default_factory=list,
                               description="figures of its stream refused (not numbers, negative, NaN), never summed")
    evaluation_error: str | None = Field(None, description="why the snapshot could not be graded (setup failed)")
    prompt_sha256: str | None = Field(None, description="SHA-256 of prompt.md: spec, template and track")
    suite_sha256: str | None = Field(None, description="SHA-256 of what grades it: its suite, data and limits")
    started: str | None = Field(None, description="when the agent started, ISO 8601 in UTC")
    agent_s: float | None = None
    eval_s: float | None = None
    total_s: float | None = Field(None, description="the whole step: prompt, agent, snapshot, diff, evaluation")
    sandbox: str | None = Field(None, description="sandbox level its agent ran in")
    cost_limit_usd: float | None = Field(None, description="the run's cost limit when its agent ran (null: none)")
    left_out: list[str] = Field(default_factory=list, description="special files of the workspace left out of "
                                "its snapshot: 'PATH (a FIFO)', a socket, a device")


class RunRecord(Model):
    """``run.json``: who ran what, and every checkpoint of the problem (the report's denominators)."""

    scbench: str = Field(description="version of scbench that wrote it")
    agent: str = Field(description="agent name in agents.yaml, or 'command' for --agent-command")
    command: str = Field(description="the agent's command template (placeholders unfilled, no secret)")
    model: str | None
    prompt: str = Field(description="prompt template (a template of scbench/prompts/templates/)")
    track: str
    sandbox: str = Field(description="sandbox level of the agent and the cases at the run's latest start: bwrap, "
                                     "docker or local (each checkpoint records its agent's; each results.json says "
                                     "what it contained)")
    uncontained: bool = Field(False, description="an agent of this run ran at a level that contains nothing "
                                                 "(local): it could have changed what was graded and recorded")
    problem: str
    bundle: str = Field(description="digest of the compiled bundle")
    started: str = Field(description="when the run started, ISO 8601 in UTC")
    cost_limit_usd: float | None = Field(None, description="at the run's latest start (each checkpoint "
                                                          "records its agent's)")
    checkpoint_cost_limit_usd: float | None = None
    harness: str | None = Field(None, description="the harness package and version its entry pins (name@version)")
    harness_version: str | None = Field(None, description="the version the harness reported in its stream")
    stop_reason: str | None = Field(None, description="why the run ended before its last checkpoint")
    checkpoints: list[CheckpointRecord]

    def checkpoint(self, number: int) -> CheckpointRecord:
        """The record of checkpoint ``number`` (1-based)."""
        return self.checkpoints[number - 1]

    def settings(self) -> dict[str, str | float | None]:
        """What a resumed run may change only when asked to (``--allow-changed-settings``): sandbox level and
        cost limit."""
        return {"sandbox": self.sandbox, "cost limit": self.cost_limit_usd}

    def identity(self) -> dict[str, str | None]:
        """What makes two runs the same experiment: agent, command, harness, model, prompt template, track, problem."""
        return {key: getattr(self, key) for key in ("agent", "command", "harness", "model", "prompt", "track",
                                                    "problem")}


class Usage(BaseModel):
    """``usage.json``: what one attempt of an agent at one checkpoint used, as its stream says; every
    figure ``None`` where the stream does not say it (never 0 by default). ``cost_usd`` is the spend
    counted (report, limits): the highest of the agent's own figure, the figure computed from
    ``scbench/harness/prices.yaml`` and every earlier spend of the attempt."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tokens_in: int | None = Field(None, description="every input token: uncached, cache reads and cache writes")
    tokens_out: int | None = Field(None, description="output tokens, reasoning included")
    input_tokens: int | None = Field(None, description="input tokens neither read from nor written to a cache")
    cached_input_tokens: int | None = Field(None, description="input tokens read from the provider's cache")
    cache_write_tokens: int | None = Field(None, description="input tokens written to the provider's cache")
    reasoning_tokens: int | None = Field(None, description="the share of tokens_out spent reasoning")
    turns: int | None = Field(None, description="model turns (API calls or agent steps) where the stream says")
    tool_calls: int | None = None
    reported_cost_usd: float | None = Field(None, description="the agent's own figure of its cost")
    computed_cost_usd: float | None = Field(None, description="the cost of its tokens at scbench's prices")
    cost_usd: float | None = Field(None, description="the spend counted: the highest known figure of the attempt")
    wall_s: float | None = Field(None, description="wall-clock seconds the agent ran")
    parser: str = Field("none", description="the usage parser (stream format) that read it")
    model: str | None = Field(None, description="the model it priced, when one")
    attempt: int = Field(1, ge=1, description="which attempt at the checkpoint (retries after transient failures)")
    failure: FailureClass | None = Field(None, description="why the attempt failed, when it did")
    refused: list[str] = Field(default_factory=list, description="figures refused: not numbers, negative, NaN")
    truncated: bool = Field(False, description="the output kept was cut at its size limit (every line was read)")


def read_run(run_dir: Path) -> RunRecord:
    """``run_dir/run.json``. Raises ``FileNotFoundError`` and pydantic's ``ValidationError``."""
    return RunRecord.model_validate_json((run_dir / "run.json").read_text(encoding="utf-8"))


def write_run(run_dir: Path, record: RunRecord) -> None:
    """Replace ``run_dir/run.json`` atomically with ``record``."""
    handle, temporary = tempfile.mkstemp(dir=run_dir, prefix=".run.json.")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(record.model_dump_json(indent=2))
    os.replace(temporary, run_dir / "run.json")


def attempt_file(run_dir: Path, number: int, attempt: int) -> Path:
    """Where attempt ``attempt`` at checkpoint ``number`` keeps its usage."""
    return run_dir / "attempts" / f"checkpoint_{number}.{attempt}.json"


def write_attempt(run_dir: Path, number: int, usage: Usage) -> None:
    """Keep ``usage`` as its attempt's record at checkpoint ``number`` (``attempts/`` made when needed)."""
    path = attempt_file(run_dir, number, usage.attempt)
    path.parent.mkdir(exist_ok=True)
    path.write_text(usage.model_dump_json(indent=2), encoding="utf-8")


def attempts_of(run_dir: Path, number: int) -> list[Usage]:
    """Every recorded attempt's usage at checkpoint ``number``, in order; a run written before
    attempts were kept has its ``usage.json`` as its one attempt. Raises pydantic's ``ValidationError``."""
    found = sorted((run_dir / "attempts").glob(f"checkpoint_{number}.*.json"),
                   key=lambda path: int(path.name.split(".")[1]))
    if not found and (checkpoint_dir(run_dir, number) / "usage.json").exists():
        found = [checkpoint_dir(run_dir, number) / "usage.json"]
    return [Usage.model_validate_json(path.read_text(encoding="utf-8")) for path in found]


def checkpoint_dir(run_dir: Path, number: int) -> Path:
    """``run_dir/checkpoint_<number>``."""
    return run_dir / f"checkpoint_{number}"


def sha256(text: str) -> str:
    """SHA-256 (hex) of ``text`` in UTF-8."""
    return hashlib.sha256(text.encode()).hexdigest()


def suite_digest(bundle: Bundle, number: int) -> str:
    """SHA-256 of everything that grades checkpoint ``number``: the problem's configuration (entry
    file, timeouts, limits, every checkpoint's settings), the suite (its cases and the earlier
    checkpoints' as regressions) and the data files."""
    suite = [[case.model_dump(mode="json", by_alias=True), category] for case, category in bundle.suite(number)]
    return sha256(json.dumps([bundle.config.model_dump(mode="json", by_alias=True), suite, bundle.data],
                             sort_keys=True))
