#!/usr/bin/env python3
"""Run the backup jobs of a YAML schedule that fall due in a time window with their strategies (full,
verify, pack into tar archives), skipping files unchanged since their last backup; print JSON Lines events."""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import io
import json
import sys
import tarfile
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

import yaml

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
KINDS = ("daily", "weekly", "once")
MOUNT = "mount://"
DEFAULT_PACK_BYTES = 1024 * 1024


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


class Strategy(NamedTuple):
    kind: str
    max_pack_bytes: int


class Job(NamedTuple):
    job_id: str
    enabled: bool
    source: Path
    exclude: tuple[str, ...]
    when: When
    strategy: Strategy | None
    destination: str

    def prior_backups(self, backup: Path | None) -> dict[str, str]:
        """Relative path -> checksum of every earlier backup of this job (no ``.tar`` file counts); a pack job
        keeps none."""
        folder = backup / self.destination / self.job_id if backup else None
        if folder is None or not folder.is_dir() or (self.strategy and self.strategy.kind == "pack"):
            return {}
        return {path.relative_to(folder).as_posix(): checksum(path.read_bytes()) for path in folder.rglob("*")
                if path.is_file() and path.suffix.lower() != ".tar"}


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
               parse_when(job_id, entry.get("when")), parse_strategy(job_id, entry.get("strategy")),
               parse_destination(job_id, entry.get("destination")))


def parse_destination(job_id: str, destination: object) -> str:
    """The directory (relative to --backup) a ``<scheme>://<path>`` destination names."""
    require(isinstance(destination, str), f"job {job_id}: destination must be a string <scheme>://<path>")
    scheme, separator, path = destination.partition("://")
    require(scheme != "" and separator != "", f"job {job_id}: destination must be <scheme>://<path>")
    require(".." not in path.split("/"), f"job {job_id}: destination may not contain ..")
    return path.strip("/")


def parse_strategy(job_id: str, strategy: object) -> Strategy | None:
    if strategy is None:
        return None
    require(isinstance(strategy, dict) and strategy.get("kind") in STRATEGIES,
            f"job {job_id}: strategy.kind must be one of {', '.join(STRATEGIES)}")
    options = strategy.get("options", {})
    require(isinstance(options, dict), f"job {job_id}: strategy.options must be a mapping")
    limit = options.get("max_pack_bytes", DEFAULT_PACK_BYTES)
    require(type(limit) is int and limit > 0, f"job {job_id}: max_pack_bytes must be a positive integer")
    return Strategy(strategy["kind"], limit)


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


def checksum(content: bytes) -> str:
    return f"sha256:{hashlib.sha256(content).hexdigest()}"


def tar_archive(members: list[tuple[str, bytes]]) -> bytes:
    """A GNU-format tar of ``members`` (name, content) with fixed headers (mtime 0, mode 0644, root, no names)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


# ----------------------------------------------------------------- running

def emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event, separators=(",", ":")) + "\n")


def local_time(moment: datetime) -> str:
    text = moment.isoformat(timespec="seconds")
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text


class Plain:
    """No strategy: files are only selected."""

    def __init__(self, job_id: str, stamp: str, strategy: Strategy | None) -> None:
        self.job_id = job_id

    def add(self, path: str, content: bytes) -> None:
        pass

    def finish(self) -> dict:
        return {}


class EachFile(Plain):
    """full and verify: one event per selected file with its size and checksum."""

    EVENTS = {"full": "FILE_BACKED_UP", "verify": "FILE_VERIFIED"}

    def __init__(self, job_id: str, stamp: str, strategy: Strategy) -> None:
        super().__init__(job_id, stamp, strategy)
        self.kind, self.total = strategy.kind, 0

    def add(self, path: str, content: bytes) -> None:
        self.total += len(content)
        emit({"event": self.EVENTS[self.kind], "job_id": self.job_id, "path": path, "size": len(content),
              "checksum": checksum(content)})

    def finish(self) -> dict:
        return {"total_size": self.total} if self.kind == "full" else {}


class Packer(Plain):
    """pack: files go into numbered tar archives of at most max_pack_bytes of content (a bigger file alone)."""

    def __init__(self, job_id: str, stamp: str, strategy: Strategy) -> None:
        super().__init__(job_id, stamp, strategy)
        self.stamp, self.limit = stamp, strategy.max_pack_bytes
        self.members: list[tuple[str, bytes]] = []
        self.size = self.total = self.packs = 0

    def add(self, path: str, content: bytes) -> None:
        if self.members and self.size + len(content) > self.limit:
            self.close()
        self.members.append((path, content))
        self.size += len(content)
        self.total += len(content)
        emit({"event": "FILE_PACKED", "job_id": self.job_id, "pack_id": self.packs + 1, "path": path,
              "size": len(content)})

    def close(self) -> None:
        archive = tar_archive(self.members)
        self.packs += 1
        emit({"event": "PACK_CREATED", "job_id": self.job_id, "name": f"pack-{self.packs}.tar", "size": self.size,
              "tar_size": len(archive), "checksum": checksum(archive), "timestamp": self.stamp})
        self.members, self.size = [], 0

    def finish(self) -> dict:
        if self.members:
            self.close()
        return {"total_size": self.total, "packs": self.packs}


STRATEGIES = {"full": EachFile, "pack": Packer, "verify": EachFile}
"""strategy.kind -> how a run handles its selected files."""


def run_job(job: Job, moment: datetime, backup: Path | None) -> None:
    emit({"event": "JOB_STARTED", "job_id": job.job_id, "exclude_count": len(job.exclude)})
    prior = job.prior_backups(backup)
    if prior:
        emit({"event": "DEST_STATE_LOADED", "job_id": job.job_id, "files_total": len(prior)})
    if job.strategy:
        emit({"event": "STRATEGY_SELECTED", "job_id": job.job_id, "kind": job.strategy.kind})
    handler = (STRATEGIES[job.strategy.kind] if job.strategy else Plain)(job.job_id, local_time(moment), job.strategy)
    selected = excluded = skipped = 0
    for path in source_files(job.source):
        pattern = first_exclusion(path, job.exclude)
        if pattern is not None:
            excluded += 1
            emit({"event": "FILE_EXCLUDED", "job_id": job.job_id, "path": path, "pattern": pattern})
            continue
        selected += 1
        emit({"event": "FILE_SELECTED", "job_id": job.job_id, "path": path})
        content = (job.source / path).read_bytes()
        if prior.get(path) == checksum(content):
            skipped += 1
            emit({"event": "FILE_SKIPPED_UNCHANGED", "job_id": job.job_id, "path": path, "hash": checksum(content)})
        else:
            handler.add(path, content)
    emit({"event": "JOB_COMPLETED", "job_id": job.job_id, "selected": selected, "excluded": excluded,
          "files_skipped_unchanged": skipped, "dest_state_files": len(prior), **handler.finish()})


def run(schedule: Schedule, start: datetime, end: datetime, backup: Path | None) -> None:
    emit({"event": "SCHEDULE_PARSED", "timezone": schedule.timezone, "jobs_total": len(schedule.jobs)})
    for job in sorted(schedule.jobs, key=lambda job: job.job_id):
        for moment in job.when.triggers(start, end, schedule.zone) if job.enabled else []:
            emit({"event": "JOB_ELIGIBLE", "job_id": job.job_id, "kind": job.when.kind,
                  "now_local": local_time(moment)})
            run_job(job, moment, backup)


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
    parser.add_argument("--backup", type=Path)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        start = parse_now(args.now)
        require(args.duration >= 0, "--duration must not be negative")
        mount = Path(args.mount)
        require(mount.is_dir(), f"--mount {args.mount} is not a directory")
        require(args.backup is None or not args.backup.exists() or args.backup.is_dir(),
                f"--backup {args.backup} is not a directory")
        schedule = load_schedule(args.schedule, mount)
    except ScheduleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    run(schedule, start, start + timedelta(hours=args.duration), args.backup)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
