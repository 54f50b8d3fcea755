"""Rolling totals over the runs made since start: counts of runs and commands, their duration
statistics, and the answers served from the cache."""

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


def per_run(count: int, runs: int) -> float | None:
    return rounded(count / runs) if runs else None


class Stats:
    """Thread-safe record of run durations, command durations (seconds), commands given and cache hits
    (every run is a cache miss)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._durations: list[float] = []
        self._command_durations: list[float] = []
        self._commands = 0
        self._hits = 0

    def record(self, duration: float, commands: int, command_durations: list[float]) -> None:
        """One run: its duration, how many commands it gave, the durations of those that ran."""
        with self._lock:
            self._durations.append(duration)
            self._commands += commands
            self._command_durations += command_durations

    def hit(self) -> None:
        """One answer served from the cache."""
        with self._lock:
            self._hits += 1

    def report(self) -> dict:
        """The body of ``GET /v1/stats/execution``."""
        with self._lock:
            durations, ran, total = list(self._durations), list(self._command_durations), self._commands
            hits = self._hits
        runs = len(durations)
        return {"ran": runs, "duration": summary(durations),
                "commands": {"total": total, "ran": len(ran), "average": per_run(total, runs),
                             "average_ran": per_run(len(ran), runs), "duration": summary(ran)},
                "cache": {"hits": hits if runs else None, "misses": runs if runs else None,
                          "hit_rate": per_run(hits, hits + runs)}}
