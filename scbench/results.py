"""The typed results of running a suite: what ``results.json`` holds (``schemas/results.schema.json``).

Solve rates follow the SlopCodeBench paper section 2.4: a checkpoint is **strict**-solved
when every case passes (regression included), **isolated** when every non-regression case
passes, **core** when every core case passes; a problem is **partially** solved when at
least one of its checkpoints is strict-solved.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RunCategory = Literal["core", "functionality", "error", "regression"]
CATEGORIES: tuple[RunCategory, ...] = ("core", "functionality", "error", "regression")


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Failure(Model):
    """One unmet expectation: ``target`` (``exit_code``, ``stdout``, ``file out.json``,
    ``status``, ``server``, ...), a one-line ``message`` and an optional multi-line ``diff``."""

    target: str
    message: str
    diff: str = ""


class StepResult(Model):
    """One step: its name, verdict, failures and wall time in seconds."""

    name: str
    passed: bool
    failures: list[Failure] = Field(default_factory=list)
    duration_s: float = 0.0


class CaseResult(Model):
    """One case as run at one checkpoint; ``category`` is ``regression`` for earlier
    checkpoints' cases; ``source`` is ``file:line`` in the problem."""

    id: str
    checkpoint: str
    category: RunCategory
    source: str
    passed: bool
    duration_s: float
    steps: list[StepResult]

    @property
    def failures(self) -> list[Failure]:
        return [failure for step in self.steps for failure in step.failures]


class Tally(Model):
    passed: int = 0
    total: int = 0


class Summary(Model):
    """Per-category counts and the paper's solve rates for one checkpoint run."""

    counts: dict[RunCategory, Tally]
    strict: bool
    isolated: bool
    core: bool

    @classmethod
    def of(cls, cases: list[CaseResult]) -> Summary:
        """Tally ``cases`` by category and derive strict / isolated / core."""
        counts = {c: Tally(passed=sum(r.passed for r in cases if r.category == c),
                           total=sum(r.category == c for r in cases)) for c in CATEGORIES}
        own_ok = all(counts[c].passed == counts[c].total for c in CATEGORIES[:3])
        return cls(counts=counts, core=counts["core"].passed == counts["core"].total, isolated=own_ok,
                   strict=own_ok and counts["regression"].passed == counts["regression"].total)


class RunResults(Model):
    """``results.json``: one solution evaluated at one checkpoint."""

    problem: str
    checkpoint: str
    track: str | None
    entry: list[str]
    solution: str
    sandbox: str = Field("local", description="the containment the runs had (see --sandbox), e.g. 'bwrap (cgroup)'")
    bundle: str = Field(description="digest of the compiled bundle")
    duration_s: float
    summary: Summary
    cases: list[CaseResult]
    quality: dict[str, Any] | None = Field(None, description="erosion, verbosity and their parts, with delta")
