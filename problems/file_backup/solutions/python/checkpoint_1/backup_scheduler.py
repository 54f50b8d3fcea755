#!/usr/bin/env python3
"""Simulate the backup jobs of a YAML schedule that fall due in a time window; print JSON Lines events."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

import yaml

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
KINDS = ("daily", "weekly", "once")
MOUNT = "mount://"


class ScheduleError(Exception):
    """Invalid command line or schedule: nothing is printed on stdout, exit status 1."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise ScheduleError(message)


def dates(first: date, last: date) -> Iterator[date]:
    """Every date from ``first`` to ``last``, both included."""
    while first <= last:
        yield first
        first += timedelta(days=1)


class When(NamedTuple):
    kind: str
    at: time | None
    days: frozenset[int]
    once: datetime | None

    def triggers(self, start: datetime, end: datetime, zone: ZoneInfo) -> list[datetime]:
        """Local trigger times within [start, end] (UTC instants, both inclusive), in order."""
        if self.kind == "once":
            candidates = [self.once.replace(tzinfo=zone)]
        else:
            candidates = [datetime.combine(day, self.at, tzinfo=zone)
                          for day in dates(start.astimezone(zone).date(), end.astimezone(zone).date())]
        return [moment for moment in candidates
                if start <= moment.astimezone(UTC) <= end and self.on_day(moment.date())]

    def on_day(self, day: date) -> bool:
        return self.kind != "weekly" or day.weekday() in self.days


class Job(NamedTuple):
    job_id: str
    enabled: bool
    source: Path
    exclude: tuple[str, ...]
    when: When


class Schedule(NamedTuple):
    timezone: str
    zone: ZoneInfo
    jobs: tuple[Job, ...]


# ---------------------------------------------------------------- schedule

def load_schedule(path: str, mount: Path) -> Schedule:
    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ScheduleError(f"cannot read schedule {path}: {exc}") from exc
    require(isinstance(document, dict), "the schedule must be a mapping")
    require(document.get("version") == 1, "version must be 1")
    name = document.get("timezone", "UTC")
    zone = parse_zone(name)
    entries = document.get("jobs")
    require(isinstance(entries, list) and entries != [], "jobs must be a non-empty list")
    jobs = tuple(parse_job(entry, mount) for entry in entries)
    ids = [job.job_id for job in jobs]
    require(len(ids) == len(set(ids)), "job ids must be unique")
    return Schedule(name, zone, jobs)


def parse_zone(name: object) -> ZoneInfo:
    require(isinstance(name, str), "timezone must be a string")
    try:
        return ZoneInfo(name)
    except (ValueError, KeyError) as exc:
        raise ScheduleError(f"unknown timezone {name!r}") from exc


def parse_job(entry: object, mount: Path) -> Job:
    require(isinstance(entry, dict), "each job must be a mapping")
    job_id = entry.get("id")
    require(isinstance(job_id, str) and job_id != "", "job id must be a non-empty string")
    enabled = entry.get("enabled", True)
    require(isinstance(enabled, bool), f"job {job_id}: enabled must be a boolean")
    exclude = entry.get("exclude", [])
    require(isinstance(exclude, list) and all(isinstance(p, str) for p in exclude),
            f"job {job_id}: exclude must be a list of strings")
    return Job(job_id, enabled, parse_source(job_id, entry.get("source"), mount), tuple(exclude),
               parse_when(job_id, entry.get("when")))


def parse_source(job_id: str, source: object, mount: Path) -> Path:
    require(isinstance(source, str) and source.startswith(MOUNT), f"job {job_id}: source must start with {MOUNT}")
    root = mount.resolve()
    target = (root / source.removeprefix(MOUNT).lstrip("/")).resolve()
    require(target.is_relative_to(root) and target.is_dir(), f"job {job_id}: source {source} is not a directory "
            "of the mount")
    return target


def parse_when(job_id: str, when: object) -> When:
    require(isinstance(when, dict), f"job {job_id}: when must be a mapping")
    kind = when.get("kind")
    require(kind in KINDS, f"job {job_id}: when.kind must be one of {', '.join(KINDS)}")
    at = when.get("at")
    require(isinstance(at, str), f"job {job_id}: when.at must be a string")
    if kind == "once":
        return When(kind, None, frozenset(), parse_once(job_id, at))
    days = parse_days(job_id, when.get("days")) if kind == "weekly" else frozenset()
    try:
        clock = datetime.strptime(at, "%H:%M").time()
    except ValueError as exc:
        raise ScheduleError(f"job {job_id}: when.at must be HH:MM, got {at!r}") from exc
    return When(kind, clock, days, None)


def parse_once(job_id: str, at: str) -> datetime:
    try:
        moment = datetime.fromisoformat(at)
    except ValueError as exc:
        raise ScheduleError(f"job {job_id}: when.at must be a date and time, got {at!r}") from exc
    require(moment.tzinfo is None, f"job {job_id}: when.at of a once job takes no UTC offset")
    return moment.replace(second=0, microsecond=0)


def parse_days(job_id: str, days: object) -> frozenset[int]:
    require(isinstance(days, list) and days != [], f"job {job_id}: a weekly job needs a non-empty days list")
    names = [day.lower() if isinstance(day, str) else day for day in days]
    require(all(name in DAYS for name in names), f"job {job_id}: days are Mon, Tue, Wed, Thu, Fri, Sat, Sun")
    return frozenset(DAYS.index(name) for name in names)


# ------------------------------------------------------------------- files

def source_files(root: Path) -> list[str]:
    """Relative '/'-separated paths of every regular file under ``root``, in code-point order."""
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())


def glob_matches(pattern: list[str], path: list[str]) -> bool:
    """Whether the path's segments match the pattern's; a ``**`` segment matches zero or more segments."""
    if not pattern:
        return not path
    if pattern[0] == "**":
        return glob_matches(pattern[1:], path) or (bool(path) and glob_matches(pattern, path[1:]))
    return bool(path) and fnmatch.fnmatchcase(path[0], pattern[0]) and glob_matches(pattern[1:], path[1:])


def first_exclusion(path: str, patterns: tuple[str, ...]) -> str | None:
    return next((p for p in patterns if glob_matches(p.split("/"), path.split("/"))), None)


# ----------------------------------------------------------------- running

def emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event, separators=(",", ":")) + "\n")


def local_time(moment: datetime) -> str:
    text = moment.isoformat(timespec="seconds")
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text


def run_job(job: Job) -> None:
    emit({"event": "JOB_STARTED", "job_id": job.job_id, "exclude_count": len(job.exclude)})
    selected = excluded = 0
    for path in source_files(job.source):
        pattern = first_exclusion(path, job.exclude)
        if pattern is None:
            selected += 1
            emit({"event": "FILE_SELECTED", "job_id": job.job_id, "path": path})
        else:
            excluded += 1
            emit({"event": "FILE_EXCLUDED", "job_id": job.job_id, "path": path, "pattern": pattern})
    emit({"event": "JOB_COMPLETED", "job_id": job.job_id, "selected": selected, "excluded": excluded})


def run(schedule: Schedule, start: datetime, end: datetime) -> None:
    emit({"event": "SCHEDULE_PARSED", "timezone": schedule.timezone, "jobs_total": len(schedule.jobs)})
    for job in sorted(schedule.jobs, key=lambda job: job.job_id):
        for moment in job.when.triggers(start, end, schedule.zone) if job.enabled else []:
            emit({"event": "JOB_ELIGIBLE", "job_id": job.job_id, "kind": job.when.kind,
                  "now_local": local_time(moment)})
            run_job(job)


# --------------------------------------------------------------------- cli

def parse_now(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ScheduleError(f"--now must be an ISO-8601 timestamp, got {text!r}") from exc
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(second=0, microsecond=0)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="backup_scheduler", description=__doc__)
    parser.add_argument("--schedule", required=True)
    parser.add_argument("--now", required=True)
    parser.add_argument("--duration", type=int, default=24)
    parser.add_argument("--mount", required=True)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        start = parse_now(args.now)
        require(args.duration >= 0, "--duration must not be negative")
        mount = Path(args.mount)
        require(mount.is_dir(), f"--mount {args.mount} is not a directory")
        schedule = load_schedule(args.schedule, mount)
    except ScheduleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    run(schedule, start, start + timedelta(hours=args.duration))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
