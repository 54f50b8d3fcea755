"""What researchers reading trajectories look for: callables that grow, and where regressions start.

**Callable growth**: every callable of every graded snapshot, tracked across the run by its file
and qualified name (a name defined twice in one file is tracked by its last definition), with its CC
and SLOC per checkpoint; the top growers are those whose SLOC, then CC, grew most from their first
appearance to their last (the paper's ``main()`` that grows from 38 to 240 lines).
**Regression onset**: the cases that passed at checkpoint k and fail at k + 1, beside the files
checkpoint k + 1 changed.
"""

from __future__ import annotations

from pathlib import Path

from scbench.quality.measure import measure
from scbench.report.model import CallableGrowth, RegressionOnset, RunSummary
from scbench.results import RunResults
from scbench.rundir import checkpoint_dir

TOP = 10
"""Callables listed per run."""


def _series(run: RunSummary) -> dict[tuple[str, str], list[tuple[int, int] | None]]:
    """(path, name) -> (CC, SLOC) at each checkpoint of ``run`` (``None`` where absent or ungraded)."""
    found: dict[tuple[str, str], list[tuple[int, int] | None]] = {}
    for index, p in enumerate(run.points):
        snapshot = checkpoint_dir(Path(run.path), p.number) / "snapshot"
        if p.erosion is None or not snapshot.is_dir():
            continue
        for c in measure(snapshot).callables:
            found.setdefault((c.path, c.name), [None] * len(run.points))[index] = (c.cc, c.sloc)
    return found


def _growth(run: RunSummary, key: tuple[str, str], series: list[tuple[int, int] | None]) -> CallableGrowth:
    present = [value for value in series if value is not None]
    return CallableGrowth(run=run.path, path=key[0], name=key[1], cc=[v[0] if v else None for v in series],
                          sloc=[v[1] if v else None for v in series], cc_growth=present[-1][0] - present[0][0],
                          sloc_growth=present[-1][1] - present[0][1])


def callable_growth(run: RunSummary, top: int = TOP) -> list[CallableGrowth]:
    """The ``top`` callables of ``run`` that grew most (SLOC growth, then CC growth, then name);
    callables that never grew are left out."""
    grown = [g for key, series in _series(run).items() if (g := _growth(run, key, series)).sloc_growth > 0
             or g.cc_growth > 0]
    return sorted(grown, key=lambda g: (-g.sloc_growth, -g.cc_growth, g.path, g.name))[:top]


def _verdicts(run: RunSummary, number: int) -> dict[str, bool] | None:
    path = checkpoint_dir(Path(run.path), number) / "results.json"
    if not path.exists():
        return None
    return {f"{case.checkpoint}/{case.id}": case.passed
            for case in RunResults.model_validate_json(path.read_text()).cases}


def regression_onsets(run: RunSummary) -> list[RegressionOnset]:
    """Each checkpoint of ``run`` at which cases that passed at the checkpoint before now fail."""
    onsets = []
    verdicts = [_verdicts(run, p.number) for p in run.points]
    for before, after, p in zip(verdicts, verdicts[1:], run.points[1:], strict=False):
        broken = sorted(case for case, passed in (before or {}).items() if passed and not (after or {}).get(case, True))
        if broken:
            onsets.append(RegressionOnset(run=run.path, number=p.number, cases=broken,
                                          changed_files=[change.path for change in p.changes]))
    return onsets
