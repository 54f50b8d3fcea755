"""What ``scbench report`` computes: the typed report (``--json``; schema ``schemas/report.schema.json``).

Figures follow the SlopCodeBench paper: Table 1 (section 3.1) per (agent, model, prompt) with solve
rates over fixed denominators (every checkpoint of every problem attempted; a checkpoint not run or
not graded is unsolved), cost, time and quality over the checkpoints that have them; the five
progress phases (section 3); the degradation curves as one point per checkpoint of each run.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from scbench.history.panel import BandPoint, GroupSummary

Phase = Literal["Start", "Early", "Mid", "Late", "Final"]
PHASES: tuple[Phase, ...] = ("Start", "Early", "Mid", "Late", "Final")
INTERIOR: tuple[Phase, ...] = ("Early", "Mid", "Late")


def phase_of(number: int, checkpoints: int) -> Phase:
    """The progress phase of checkpoint ``number`` of ``checkpoints`` (paper section 3: the first is
    Start, the last Final, the interior split into Early / Mid / Late). An interior checkpoint goes by
    the middle of its slot, ``(i + 0.5) / interior`` for the ``i``-th of ``interior`` (0-based), in
    thirds: one interior checkpoint is Mid, two are Early and Late, six are two of each. A problem
    of one checkpoint has only Start."""
    if number == 1:
        return "Start"
    if number == checkpoints:
        return "Final"
    interior = checkpoints - 2
    return INTERIOR[(6 * (number - 2) + 3) // (2 * interior)]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Rate(Model):
    """``solved`` of ``total`` (a fixed denominator), and their ratio (``None`` when ``total`` is 0)."""

    solved: int
    total: int
    rate: float | None

    @classmethod
    def of(cls, verdicts: list[bool]) -> Rate:
        """The rate of the true ones among ``verdicts``."""
        return cls(solved=sum(verdicts), total=len(verdicts), rate=sum(verdicts) / len(verdicts) if verdicts else None)


def _missing(reasons: list[str]) -> list[str]:
    return [f"{count} checkpoint{'s' if count > 1 else ''}: {reason}" for reason, count in Counter(reasons).items()]


class Figure(Model):
    """A mean over ``n`` values with its spread (sample standard deviation, ``None`` below two
    values), and for the values missing, how many and why."""

    mean: float | None
    sd: float | None
    n: int
    missing: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, values: list[float], reasons: list[str]) -> Figure:
        """The figure of ``values``; ``reasons`` says why each missing one is missing."""
        return cls(mean=statistics.fmean(values) if values else None,
                   sd=statistics.stdev(values) if len(values) > 1 else None, n=len(values), missing=_missing(reasons))


class Total(Model):
    """A sum over ``n`` values, and for the values missing, how many and why."""

    value: float | None
    n: int
    missing: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, values: list[float], reasons: list[str]) -> Total:
        """The sum of ``values``; ``reasons`` says why each missing one is missing."""
        return cls(value=sum(values) if values else None, n=len(values), missing=_missing(reasons))


MEASURES = ("cost_usd", "minutes", "erosion", "verbosity", "loc")
"""The per-checkpoint measures averaged in Table 1 and per phase (cost in US dollars, agent minutes)."""


class Figures(Model):
    """Solve rates over a set of checkpoints, and each measure's mean and spread over those that have it."""

    strict: Rate
    isolated: Rate
    core: Rate
    cost_usd: Figure
    minutes: Figure
    erosion: Figure
    verbosity: Figure
    loc: Figure


class FailingCase(Model):
    """A case that failed: ``checkpoint_N/id``, its category, its first failure (``target: message``)."""

    case: str
    category: str
    message: str


class FileChange(Model):
    """A file the checkpoint changed: ``added``, ``removed`` or ``changed``, with lines added and
    removed (``None`` for a binary file)."""

    path: str
    kind: str
    added: int | None
    removed: int | None


class Point(Model):
    """One checkpoint of one run: a point of the degradation curves and a row of the drill-down.
    ``pass_rates`` are per category (passed / total cases, ``None`` without cases); ``missing``
    says, per measure, why it has no value."""

    number: int
    name: str
    phase: Phase
    status: str
    reason: str | None = Field(None, description="why it stopped, was not run, or was not graded")
    failure: str | None = Field(None, description="the class of the failure that ended the run here")
    attempts: int = Field(0, description="agent attempts, retries included (its cost is all of theirs)")
    strict: bool
    isolated: bool
    core: bool
    cost_usd: float | None
    minutes: float | None
    tokens_in: int | None
    tokens_out: int | None
    pass_rates: dict[str, float | None]
    erosion: float | None
    verbosity: float | None
    loc: int | None
    missing: dict[str, str] = Field(default_factory=dict)
    delta: dict[str, float] | None = Field(None, description="quality after minus before (previous snapshot)")
    failing: list[FailingCase] = Field(default_factory=list)
    changes: list[FileChange] = Field(default_factory=list)


class RunSummary(Model):
    """One run directory: who ran what, whether its agent was contained, why it ended early (if it did), and its
    checkpoints."""

    path: str
    agent: str
    model: str | None
    prompt: str
    track: str
    problem: str
    bundle: str
    sandbox: str
    uncontained: bool = Field(False, description="an agent of the run ran at a level that contains nothing: it "
                                                 "could have changed its own grades")
    stop_reason: str | None
    points: list[Point]
    failure: str | None = Field(None, description="the class of the failure that ended it early")

    @property
    def group(self) -> tuple[str, str | None, str]:
        """The Table 1 row it belongs to: (agent, model, prompt)."""
        return self.agent, self.model, self.prompt


class TableRow(Model):
    """A row of Table 1: one (agent, model, prompt) over its runs; ``partial`` counts runs with
    at least one strict-solved checkpoint; ``total_cost_usd`` is the Net $ column."""

    agent: str
    model: str | None
    prompt: str
    runs: list[str]
    problems: list[str]
    checkpoints: int
    partial: Rate
    total_cost_usd: Total
    figures: Figures
    ended_by: dict[str, int] = Field(default_factory=dict, description="runs ended early, per failure class")


class PhaseRow(Model):
    """The figures of one (agent, model, prompt) over its checkpoints in one progress phase."""

    agent: str
    model: str | None
    prompt: str
    phase: Phase
    checkpoints: int
    figures: Figures


class CallableGrowth(Model):
    """A callable tracked across a run's checkpoints by file and qualified name: its CC and SLOC at
    each checkpoint (``None`` where it does not exist or the checkpoint has no snapshot graded) and
    the growth from its first to its last appearance."""

    run: str
    path: str
    name: str
    cc: list[int | None]
    sloc: list[int | None]
    cc_growth: int
    sloc_growth: int


class RegressionOnset(Model):
    """Cases that passed at checkpoint ``number - 1`` and fail at ``number``, beside the files that
    checkpoint changed."""

    run: str
    number: int
    cases: list[str]
    changed_files: list[str]


class AgentCalibration(Model):
    """The trajectories of one (agent, model, prompt) summarised as a panel's repositories are: last
    checkpoint's figures, slopes per checkpoint, changes, share rising (erosion, verbosity and LOC over the
    graded checkpoints of each run)."""

    agent: str
    model: str | None
    prompt: str
    summary: GroupSummary


class Calibration(Model):
    """``--calibration``: the human panel (``scbench calibrate``'s result at ``panel``: each tier's figures and
    the whole panel's, key ``panel``) beside each agent's (the paper's Table 2 and slope comparison), and the
    panel's band over normalised progress (the paper's Figure 4; empty for a result written before bands)."""

    panel: str
    humans: dict[str, GroupSummary]
    agents: list[AgentCalibration]
    band: dict[str, list[BandPoint]] = {}


class Report(Model):
    """``scbench report --json``: every run, Table 1, the phases, callable growth and regression onsets, and
    with ``--calibration`` the human panel beside the agents."""

    scbench: str
    runs: list[RunSummary]
    table: list[TableRow]
    phases: list[PhaseRow]
    growth: list[CallableGrowth]
    onsets: list[RegressionOnset]
    calibration: Calibration | None = None
