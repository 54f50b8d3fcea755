"""Rolling totals over the runs made since start: count and duration statistics."""

from __future__ import annotations

import statistics
import threading

DECIMALS = 3


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)


def summary(values: list[float]) -> dict[str, float | None]:
    """Mean, median, max, min and sample standard deviation of ``values``, rounded; ``None`` where
    undefined (everything without values, ``stddev`` with fewer than two)."""
    if not values:
        return dict.fromkeys(("average", "median", "max", "min", "stddev"))
    return {"average": rounded(statistics.mean(values)), "median": rounded(statistics.median(values)),
            "max": rounded(max(values)), "min": rounded(min(values)),
            "stddev": rounded(statistics.stdev(values)) if len(values) > 1 else None}


class Stats:
    """Thread-safe record of run durations (seconds)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._durations: list[float] = []

    def record(self, duration: float) -> None:
        with self._lock:
            self._durations.append(duration)

    def report(self) -> dict:
        """The body of ``GET /v1/stats/execution``."""
        with self._lock:
            durations = list(self._durations)
        return {"ran": len(durations), "duration": summary(durations)}
