"""What ``scbench history`` writes (``--out``; schema ``schemas/history.schema.json``): the sampled commits of
one repository, erosion and verbosity at each, and their trends."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

DropReason = Literal["no source file", "no file measured"]
"""Why a sampled commit has no point: its tree holds no file of the language (all were removed, or all sit
where a measurement does not look: hidden, ``build``, ``.venv``...), or none of them could be measured (none
parses, or each is over the size a measured file may have)."""

TRENDED = ("erosion", "verbosity", "loc")
"""The measures whose trend along the history :class:`HistoryResult` gives."""


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HistoryPoint(Model):
    """One measured commit: ``number`` is its place among the points (1 = oldest), ``date`` its
    committer date (ISO 8601); then the quality report's scalars (:meth:`QualityReport.scalars`) and the
    files skipped because they could not be measured."""

    number: int
    commit: str
    date: str
    erosion: float
    verbosity: float
    total_mass: float
    eroded_mass: float
    loc: int
    flagged_lines: int
    clone_lines: int
    verbose_lines: int
    files: int
    skipped_files: int


class Dropped(Model):
    """A sampled commit without a point, and why (:data:`DropReason`)."""

    commit: str
    date: str
    reason: DropReason


class Trend(Model):
    """A measure along the points: the least-squares slope per sampled commit (against ``number``; ``None``
    below two points), the first and last values, their difference, and whether the slope is above zero."""

    slope: float | None
    first: float
    last: float
    change: float
    rising: bool


class HistoryResult(Model):
    """A repository's history measured: where and at which HEAD, what was asked (``commits``, ``seed``,
    ``language``, the patterns of files left out: ``exclude``), how many first-parent commits change a measured
    file (``candidates``), the points (oldest first), the commits dropped, and the trend of each of
    :data:`TRENDED` (none without points)."""

    repository: str
    head: str
    language: str
    exclude: list[str] = []
    commits: int
    seed: int
    candidates: int
    points: list[HistoryPoint]
    dropped: list[Dropped]
    trends: dict[str, Trend]
