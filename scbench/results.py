"""The typed results of running a suite: what ``results.json`` holds (``schemas/results.schema.json``).

Solve rates follow the SlopCodeBench paper section 2.4: a checkpoint is **strict**-solved
when every case passes (regression included), **isolated** when every non-regression case
passes, **core** when every core case passes; a problem is **partially** solved when at
least one of its checkpoints is strict-solved.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

RunCategory = Literal["core", "functionality", "error", "regression"]
CATEGORIES: tuple[RunCategory, ...] = ("core", "functionality", "error", "regression")


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Text = Annotated[str, AfterValidator(lambda text: text.encode("utf-8", "backslashreplace").decode("utf-8"))]
"""A string a solution may have shaped (its output, its file names): lone surrogates, which undecodable bytes
become and which no UTF-8 writer accepts, are kept as the text ``\\udcff``."""


class Failure(Model):
    """One unmet expectation: ``target`` (``exit_code``, ``stdout``, ``file out.json``,
    ``status``, ``server``, ...), a one-line ``message`` and an optional multi-line ``diff``."""

    target: Text
    message: Text
    diff: Text = ""


class StepResult(Model):
    """One step: its name, verdict, failures and wall time in seconds; for a failed CLI step, its
    standard output and error as text (invalid UTF-8 replaced, cut in the middle past 10,000
    characters)."""

    name: str
    passed: bool
    failures: list[Failure] = Field(default_factory=list)
    duration_s: float = 0.0
    stdout: Text = ""
    stderr: Text = ""


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
    group: str | None = Field(None, description="the case file of its group (it ran on the group's server after "
                              "the group's earlier cases); null for a case that ran alone")

    @property
    def failures(self) -> list[Failure]:
        return [failure for step in self.steps for failure in step.failures]


class Tally(Model):
    passed: int = 0
    total: int = 0


class Summary(Model):
    """Per-category counts and the paper's solve rates for one checkpoint run; a run of part of the suite
    (``-k``, or stopped by ``--max-failures``) has counts but no solve rate (``null``)."""

    counts: dict[RunCategory, Tally]
    strict: bool | None
    isolated: bool | None
    core: bool | None

    @classmethod
    def of(cls, cases: list[CaseResult], whole_suite: bool = True) -> Summary:
        """Tally ``cases`` by category and derive strict / isolated / core when they are ``whole_suite``."""
        counts = {c: Tally(passed=sum(r.passed for r in cases if r.category == c),
                           total=sum(r.category == c for r in cases)) for c in CATEGORIES}
        if not whole_suite:
            return cls(counts=counts, strict=None, isolated=None, core=None)
        own_ok = all(counts[c].passed == counts[c].total for c in CATEGORIES[:3])
        return cls(counts=counts, core=counts["core"].passed == counts["core"].total, isolated=own_ok,
                   strict=own_ok and counts["regression"].passed == counts["regression"].total)


class TopCallable(Model):
    """One of the heaviest callables of a snapshot: where it is, its CC, SLOC and mass (CC x sqrt(SLOC))."""

    path: str
    name: str
    line: int
    end_line: int
    cc: int
    sloc: int
    mass: float


class ClonePairRecord(Model):
    """Two occurrences of the same normalized code, each ``[path, first line, last line]`` (1-based)."""

    first: tuple[str, int, int]
    second: tuple[str, int, int]


class SkippedFile(Model):
    """A file quality measurement passed over, and why (a syntax error, a size over the limit, ...)."""

    path: str
    reason: str


class Quality(Model):
    """Erosion and verbosity of the graded snapshot, their parts (SlopCodeBench paper eq. 2-4; the fields of
    :class:`scbench.quality.model.QualityReport`), the evidence behind them, and ``delta`` (after minus before,
    per scalar) from the previous checkpoint's snapshot, when there is one."""

    erosion: float
    verbosity: float
    total_mass: float
    eroded_mass: float
    loc: int
    flagged_lines: int
    clone_lines: int
    verbose_lines: int
    files: int
    top_callables: list[TopCallable] = []
    flags_by_rule: dict[str, int] = {}
    clone_pairs: list[ClonePairRecord] = []
    skipped: list[SkippedFile] = []
    delta: dict[str, float] | None = None


class RunResults(Model):
    """``results.json``: one solution evaluated at one checkpoint: what ran, how, and its verdicts."""

    problem: str
    checkpoint: str
    scbench: str = Field(description="version of scbench that ran the suite")
    started: str = Field(description="when the run started, ISO 8601 in UTC")
    # How the solution was run: its track, or (track null) the entry command given, and its sandbox.
    track: str | None
    entry: list[str]
    sandbox: str = Field("local", description="the containment the runs had (see --sandbox), e.g. 'bwrap (cgroup)'")
    solution: str
    bundle: str = Field(description="digest of the compiled bundle")
    select: str | None = Field(None, description="the -k pattern: only the cases matching it ran")
    not_run: int = Field(0, description="cases of the suite not started because --max-failures was reached")
    duration_s: float
    summary: Summary
    cases: list[CaseResult]
    quality: Quality | None = Field(None, description="erosion, verbosity and their parts, with delta")


@dataclass(frozen=True)
class Floor:
    """The least wall time runs could take beside the time they took: their solutions' processes ran
    ``solution_s`` seconds (every step's wall time, summed), at best spread over ``cores`` cores; they took
    ``elapsed_s`` seconds of wall time. What is above the floor is the harness's own cost."""

    elapsed_s: float
    solution_s: float
    cores: int

    @classmethod
    def of(cls, elapsed_s: float, runs: Iterable[RunResults], cores: int) -> Floor:
        """The floor of ``runs`` on ``cores`` cores, which took ``elapsed_s`` seconds."""
        return cls(elapsed_s, sum(step.duration_s for results in runs for case in results.cases
                                  for step in case.steps), cores)

    @property
    def floor_s(self) -> float:
        """:attr:`solution_s` / :attr:`cores`, seconds."""
        return self.solution_s / self.cores

    def __str__(self) -> str:
        """``took T s; floor F s (the solutions' processes ran S s on N cores): R x the floor``."""
        ratio = f": {self.elapsed_s / self.floor_s:.2f}x the floor" if self.floor_s else ""
        return (f"took {self.elapsed_s:.1f} s; floor {self.floor_s:.1f} s (the solutions' processes ran "
                f"{self.solution_s:.1f} s on {self.cores} cores){ratio}")
