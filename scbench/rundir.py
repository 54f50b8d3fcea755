"""The run directory: ``run.json`` (``scbench/schemas/run.schema.json``) and one ``checkpoint_N/`` per checkpoint.

Layout (other tools read it; keep it)::

    RUN_DIR/run.json                   agent, model, prompt template, track, problem and bundle digest,
                                       every checkpoint with its status and stop reason
    RUN_DIR/checkpoint_N/prompt.md     the rendered prompt
    RUN_DIR/checkpoint_N/trajectory.jsonl | trajectory.txt   the agent's raw standard output
    RUN_DIR/checkpoint_N/stderr.txt    the agent's standard error
    RUN_DIR/checkpoint_N/usage.json    tokens in and out, cost_usd, wall_s (null where unknown)
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
        """What makes two runs the same experiment: agent, command, model, prompt template, track, problem."""
        return {key: getattr(self, key) for key in ("agent", "command", "model", "prompt", "track", "problem")}


class Spend(BaseModel):
    """Tokens in and out and cost in US dollars; ``None`` where unknown."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None


class Usage(Spend):
    """``usage.json``: the spend of one checkpoint, the agent's wall time in seconds, and the
    parser that read the spend (``none``: the agent's output says nothing of it)."""

    wall_s: float | None = Field(None, description="wall-clock seconds the agent ran")
    parser: str = "none"



def read_run(run_dir: Path) -> RunRecord:
    """``run_dir/run.json``. Raises ``FileNotFoundError`` and pydantic's ``ValidationError``."""
    return RunRecord.model_validate_json((run_dir / "run.json").read_text(encoding="utf-8"))


def write_run(run_dir: Path, record: RunRecord) -> None:
    """Replace ``run_dir/run.json`` atomically with ``record``."""
    handle, temporary = tempfile.mkstemp(dir=run_dir, prefix=".run.json.")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(record.model_dump_json(indent=2))
    os.replace(temporary, run_dir / "run.json")


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
