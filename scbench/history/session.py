"""Measure a repository's history: sample its source-modifying commits, measure each one's snapshot in
parallel, resume from an earlier result, and give the trend of each measure along the points."""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import statistics
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from scbench.history.git import Commit, archive, head, pathspecs, source_commits, unpack
from scbench.history.model import TRENDED, Dropped, HistoryPoint, HistoryResult, Trend
from scbench.paths import owned_tempdir, release
from scbench.quality.languages import languages
from scbench.quality.measure import measure

IN_FLIGHT = 8
"""Most snapshots read and queued or being measured at once (a large repository's is tens of megabytes)."""


class UnusableResult(Exception):
    """The ``--out`` file exists but cannot be resumed from: it is not a history result, or one of another
    language (overwriting it would lose what it holds)."""


class NoSourceCommit(Exception):
    """No commit of the repository's first-parent line changes a file of the language."""


@dataclass(frozen=True)
class Request:
    """What to measure: the repository (work tree or bare), at most ``commits`` commits drawn with ``seed``,
    files of ``language`` (a name of :func:`scbench.quality.languages.languages`) but those ``exclude`` matches
    (:func:`~scbench.history.git.pathspecs`)."""

    repository: Path
    commits: int
    seed: int
    language: str
    exclude: tuple[str, ...] = ()

    def specs(self) -> tuple[str, ...]:
        """The pathspecs of the files measured; raises LookupError for an unknown language."""
        return pathspecs(languages().get(self.language).table.extensions, self.exclude)


def sample(commits: list[Commit], count: int, seed: int) -> list[Commit]:
    """At most ``count`` (>= 1) of ``commits`` (oldest first), oldest first: all of them when there are no more;
    else the newest (HEAD's figures) and ``count - 1`` of the others drawn without replacement by
    ``random.Random(seed)``, the same draw for the same history and seed."""
    if len(commits) <= count:
        return commits
    drawn = random.Random(seed).sample(range(len(commits) - 1), count - 1)
    return [commits[index] for index in sorted(drawn)] + [commits[-1]]


@dataclass(frozen=True)
class Snapshot:
    """A commit's files that a request measures, as a tar archive read from git objects
    (:func:`~scbench.history.git.archive`; ``b""``: none), and their language: all a measuring process needs,
    on this machine or on a node of a cluster that does not see the repository."""

    commit: Commit
    tar: bytes
    language: str

    @classmethod
    def of(cls, request: Request, commit: Commit) -> Snapshot:
        """``commit``'s snapshot of the files ``request`` measures."""
        return cls(commit, archive(request.repository, commit.sha, request.specs()), request.language)


def measure_snapshot(snapshot: Snapshot) -> dict | Dropped:
    """The quality report's scalars of ``snapshot``'s files (and ``skipped_files``), unpacked into a temporary
    directory; a :class:`Dropped` when it has none or none can be measured."""
    commit = snapshot.commit
    if not snapshot.tar:
        return Dropped(commit=commit.sha, date=commit.date, reason="no source file")
    directory = owned_tempdir("scbench-history-")
    try:
        unpack(snapshot.tar, directory)
        report = measure(directory, snapshot.language)
    finally:
        release(directory)
    if not report.files:
        return Dropped(commit=commit.sha, date=commit.date, reason="no file measured")
    return {**report.scalars(), "skipped_files": len(report.skipped)}


def _measured(pool: Executor, request: Request, todo: list[Commit]) -> Iterator[tuple[Commit, dict | Dropped]]:
    """Each commit of ``todo`` with its figures as its measurement on ``pool`` ends; at most :data:`IN_FLIGHT`
    snapshots read and held at once."""
    waiting = iter(todo)
    running: dict[Future, Commit] = {}
    while True:
        for commit in itertools.islice(waiting, IN_FLIGHT - len(running)):
            running[pool.submit(measure_snapshot, Snapshot.of(request, commit))] = commit
        if not running:
            return
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            yield running.pop(future), future.result()


def trend(values: list[float], at: list[int] | None = None) -> Trend:
    """The trend of ``values`` (at least one), taken at points ``at`` (default 1, 2, ...; an agent's
    checkpoint numbers) (:class:`Trend`)."""
    places = at or range(1, len(values) + 1)
    slope = statistics.linear_regression(places, values).slope if len(values) > 1 else None
    return Trend(slope=slope, first=values[0], last=values[-1], change=values[-1] - values[0],
                 rising=slope is not None and slope > 0)


def previous_result(out: Path | None, request: Request) -> HistoryResult | None:
    """The result in ``out`` to resume from (``None`` without one); raises :class:`UnusableResult` when the file
    is something else or measured other files (another language or exclusions)."""
    if out is None or not out.exists():
        return None
    try:
        previous = HistoryResult.model_validate_json(out.read_bytes())
    except ValidationError as error:
        raise UnusableResult(f"{out} exists and is not a history result ({error.error_count()} schema errors); "
                             "give another --out or remove it") from None
    if (previous.language, tuple(previous.exclude)) != (request.language, request.exclude):
        raise UnusableResult(f"{out} holds a history of {previous.language} files excluding "
                             f"{list(previous.exclude) or 'nothing'}, not of {request.language} files excluding "
                             f"{list(request.exclude) or 'nothing'}; give another --out") from None
    return previous


def _known(previous: HistoryResult | None) -> dict[str, dict | Dropped]:
    """What ``previous`` measured, by commit id: a point's scalars, or why the commit was dropped."""
    if previous is None:
        return {}
    points = {point.commit: point.model_dump(exclude={"number", "commit", "date"}) for point in previous.points}
    return {**points, **{drop.commit: drop for drop in previous.dropped}}


@dataclass
class _Tally:
    """The result as it grows: what each sampled commit gave, and the result's fixed fields."""

    request: Request
    head: str
    candidates: int
    chosen: list[Commit]
    measured: dict[str, dict | Dropped]

    def result(self) -> HistoryResult:
        """The result of the commits measured so far."""
        done = [(commit, self.measured[commit.sha]) for commit in self.chosen if commit.sha in self.measured]
        points = [HistoryPoint(number=number, commit=commit.sha, date=commit.date, **figures)
                  for number, (commit, figures) in enumerate(_kept(done), start=1)]
        return HistoryResult(
            repository=str(self.request.repository), head=self.head, language=self.request.language,
            exclude=list(self.request.exclude), commits=self.request.commits, seed=self.request.seed,
            candidates=self.candidates, points=points,
            dropped=[figures for _, figures in done if isinstance(figures, Dropped)], trends=_trends(points))


def _kept(done: list[tuple[Commit, dict | Dropped]]) -> list[tuple[Commit, dict]]:
    """The measured commits of ``done`` with their figures (the dropped ones left out)."""
    return [(commit, figures) for commit, figures in done if isinstance(figures, dict)]


def _trends(points: list[HistoryPoint]) -> dict[str, Trend]:
    """The trend of each of :data:`TRENDED` along ``points`` (none without points)."""
    return {key: trend([getattr(point, key) for point in points]) for key in TRENDED} if points else {}


def _write(out: Path | None, result: HistoryResult) -> None:
    """``result`` into ``out`` as JSON, replacing it whole (a kill leaves the last complete result)."""
    if out is not None:
        partial = out.with_name(out.name + ".partial")
        partial.write_text(result.model_dump_json(indent=2) + "\n")
        os.replace(partial, out)


def history(request: Request, out: Path | None = None, jobs: int | None = None,
            on_measured: Callable[[Commit, dict | Dropped], None] = lambda commit, figures: None,
            pool: Executor | None = None) -> HistoryResult:
    """Measure the sampled commits of ``request`` (:func:`sample`) on ``pool`` (an executor the caller keeps,
    e.g. a Ray cluster's; ``None``: ``jobs`` processes here, default the CPU count),
    reusing what the result already in ``out`` measured (a commit is never measured twice); ``out`` is
    rewritten after each commit and ``on_measured`` called with its figures. Raises
    :class:`~scbench.history.git.NotARepository`, :class:`NoSourceCommit`, :class:`UnusableResult`, and
    LookupError for an unknown language."""
    specs = request.specs()
    tip = head(request.repository)
    candidates = source_commits(request.repository, specs)
    if not candidates:
        raise NoSourceCommit(f"{request.repository}: no commit of HEAD's first-parent history changes a "
                             f"{request.language} file ({' '.join(specs)}); give another --language or --exclude")
    tally = _Tally(request, tip, len(candidates), sample(candidates, request.commits, request.seed),
                   _known(previous_result(out, request)))
    todo = [commit for commit in tally.chosen if commit.sha not in tally.measured]
    with contextlib.nullcontext(pool) if pool else ProcessPoolExecutor(max_workers=jobs or os.cpu_count()) as running:
        for commit, figures in _measured(running, request, todo):
            tally.measured[commit.sha] = figures
            _write(out, tally.result())
            on_measured(commit, figures)
    result = tally.result()
    _write(out, result)
    return result
