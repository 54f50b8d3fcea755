"""A calibration panel: several repositories, each with its tier (a GitHub-star bin, say), measured with
:func:`~scbench.history.session.history` one after the other, summarised per repository, per tier and over
the whole panel (SlopCodeBench paper section 3.3, Table 2: HEAD figures by tier, slopes, share rising)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scbench.history.git import Commit
from scbench.history.model import TRENDED, Dropped, HistoryResult, Trend
from scbench.history.session import Request, history


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PanelRepository(Model):
    """A repository of the panel: its name (``owner/name``), its git directory (relative to the panel file,
    work tree or bare), its tier, and the patterns of files left out (``scbench history --exclude``)."""

    name: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    path: Path
    tier: str
    exclude: list[str] = []


class Panel(Model):
    """``PANEL.yaml``: what each repository's history is measured with, and the repositories."""

    commits: int = Field(default=30, ge=1)
    seed: int = 0
    language: str = "python"
    repositories: list[PanelRepository] = Field(min_length=1)


class Spread(Model):
    """Mean, sample standard deviation (``None`` below two values) and median of ``n`` values (``None`` for
    none)."""

    mean: float | None
    sd: float | None
    median: float | None
    n: int

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        """The spread of ``values``."""
        return cls(mean=statistics.fmean(values) if values else None,
                   sd=statistics.stdev(values) if len(values) > 1 else None,
                   median=statistics.median(values) if values else None, n=len(values))


class RepositorySummary(Model):
    """One repository's history in brief: its tier, HEAD commit, points and drops, and the trend of each measure
    (``trend.last`` is HEAD's figure; none when no commit could be measured)."""

    name: str
    tier: str
    head: str
    candidates: int
    points: int
    dropped: int
    trends: dict[str, Trend]


class GroupSummary(Model):
    """Trajectories of a group (the repositories of a tier or of the whole panel, an agent's runs): for each
    measure the spread of the last figures (a repository's HEAD, a run's last checkpoint) (``last``), of the
    slopes (per sampled commit, per checkpoint), of the first-to-last changes, and the share of trajectories
    whose slope is above zero (``rising``; ``None`` with none measured)."""

    trajectories: int
    last: dict[str, Spread]
    slope: dict[str, Spread]
    change: dict[str, Spread]
    rising: dict[str, float | None]


PROGRESS = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The normalised trajectory progress (0: a trajectory's first point, 1: its last) at which :func:`band` is taken:
the paper's Figure 4 axis, at the report's five phases."""
BANDED = ("erosion", "verbosity")
"""The measures a panel's band is given for."""
Z_95 = 1.959964
"""The standard normal quantile of a two-sided 95 % interval."""


class BandPoint(Model):
    """The panel's trajectories at normalised progress ``progress``: their mean, the 95 % confidence interval of
    the mean (``low``, ``high``: mean ∓ 1.96 · sd / √n, the mean itself below two trajectories) over ``n``."""

    progress: float
    mean: float
    low: float
    high: float
    n: int


def at_progress(values: list[float], progress: float) -> float:
    """``values`` (a trajectory, oldest first, at least one) linearly interpolated at ``progress`` in [0, 1]."""
    position = progress * (len(values) - 1)
    below = min(math.floor(position), max(len(values) - 2, 0))
    above = min(below + 1, len(values) - 1)
    return values[below] + (position - below) * (values[above] - values[below])


def band(trajectories: list[list[float]]) -> list[BandPoint]:
    """The mean and 95 % confidence interval of ``trajectories`` (each oldest first; empty ones left out) at
    each of :data:`PROGRESS` (SlopCodeBench paper, Figure 4); empty with none measured."""
    measured = [values for values in trajectories if values]
    points = []
    for progress in PROGRESS if measured else ():
        values = [at_progress(trajectory, progress) for trajectory in measured]
        mean = statistics.fmean(values)
        half = Z_95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
        points.append(BandPoint(progress=progress, mean=mean, low=mean - half, high=mean + half, n=len(values)))
    return points


class PanelResult(Model):
    """``scbench calibrate``'s result (schema ``schemas/calibration.schema.json``); ``band``: for each of
    :data:`BANDED`, the whole panel's trajectories over normalised progress (:func:`band`; empty in results
    written before it was added)."""

    commits: int
    seed: int
    language: str
    repositories: list[RepositorySummary]
    tiers: dict[str, GroupSummary]
    panel: GroupSummary
    band: dict[str, list[BandPoint]] = {}


class NotAPanelResult(Exception):
    """A file given as a panel's result is not one."""


def read_result(path: Path) -> PanelResult:
    """The panel result in ``path`` (``scbench calibrate``'s ``panel.json``); raises :class:`NotAPanelResult`
    when it does not follow its schema."""
    try:
        return PanelResult.model_validate_json(path.read_bytes())
    except ValidationError as error:
        raise NotAPanelResult(f"{path}: not a panel result (scbench calibrate's panel.json): "
                              f"{error.error_count()} schema error(s), first: {error.errors()[0]['msg']} at "
                              f"{'.'.join(map(str, error.errors()[0]['loc']))}") from None


def load_panel(path: Path) -> Panel:
    """The panel in ``path`` (YAML), repository paths resolved against its directory. Raises OSError,
    ``yaml.YAMLError`` and pydantic's ``ValidationError``."""
    panel = Panel.model_validate(yaml.safe_load(path.read_text()))
    return panel.model_copy(update={"repositories": [
        entry.model_copy(update={"path": path.parent / entry.path}) for entry in panel.repositories]})


def summarise(entry: PanelRepository, result: HistoryResult) -> RepositorySummary:
    """``result`` of the panel's ``entry`` in brief."""
    return RepositorySummary(name=entry.name, tier=entry.tier, head=result.head, candidates=result.candidates,
                             points=len(result.points), dropped=len(result.dropped), trends=result.trends)


def group(trajectories: list[dict[str, Trend]]) -> GroupSummary:
    """The :class:`GroupSummary` of the trends of ``trajectories`` (those without a trend, nothing measured,
    count in ``trajectories`` only)."""
    measured = [trends for trends in trajectories if trends]

    def spread(of: Callable[[Trend], float | None]) -> dict[str, Spread]:
        return {key: Spread.of([value for trends in measured if (value := of(trends[key])) is not None])
                for key in TRENDED}
    return GroupSummary(
        trajectories=len(trajectories), last=spread(lambda trend: trend.last),
        slope=spread(lambda trend: trend.slope), change=spread(lambda trend: trend.change),
        rising={key: sum(trends[key].rising for trends in measured) / len(measured) if measured else None
                for key in TRENDED})


def result_file(out: Path, entry: PanelRepository) -> Path:
    """Where the history of ``entry`` is kept under ``out`` (``owner+name.json``, resumed by a re-run)."""
    return out / f"{entry.name.replace('/', '+')}.json"


def calibrate(panel: Panel, out: Path, jobs: int | None = None,
              on_measured: Callable[[str, Commit, dict | Dropped], None] = lambda name, commit, figures: None,
              pool: Executor | None = None) -> PanelResult:
    """Measure every repository of ``panel`` (:func:`~scbench.history.session.history` on ``pool``, its result
    kept in :func:`result_file`, so a re-run measures only what is missing), then summarise; ``on_measured`` gets
    the repository's name with each commit. Raises what :func:`history` raises."""
    out.mkdir(parents=True, exist_ok=True)
    results = [history(
        Request(entry.path, panel.commits, panel.seed, panel.language, tuple(entry.exclude)), result_file(out, entry),
        jobs, lambda commit, figures, name=entry.name: on_measured(name, commit, figures), pool)
        for entry in panel.repositories]
    summaries = [summarise(entry, result) for entry, result in zip(panel.repositories, results, strict=True)]
    tiers = {entry.tier: None for entry in panel.repositories}
    return PanelResult(commits=panel.commits, seed=panel.seed, language=panel.language, repositories=summaries,
                       tiers={tier: group([s.trends for s in summaries if s.tier == tier]) for tier in tiers},
                       panel=group([s.trends for s in summaries]),
                       band={key: band([[getattr(point, key) for point in result.points] for result in results])
                             for key in BANDED})
