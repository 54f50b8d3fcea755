#!/usr/bin/env python3
"""Run the backup jobs of a YAML schedule that fall due in a time window with their strategies (full,
verify, pack into tar archives), skipping files and packs unchanged since their last backup; print JSON Lines
events."""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import io
import json
import re
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
PACK_NAME = re.compile(r"pack-([1-9][0-9]*)\.tar")


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

    def folder(self, backup: Path | None) -> Path | None:
        """The job directory under --backup, if one was given."""
        return backup / self.destination / self.job_id if backup else None

    def prior_backups(self, backup: Path | None) -> dict[str, str]:
        """Relative path -> checksum of every earlier backup of this job (no ``.tar`` file counts)."""
        folder = self.folder(backup)
        if folder is None or not folder.is_dir():
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

    def __init__(self, job: Job) -> None:
        self.job_id = job.job_id

    def add(self, path: str, content: bytes) -> None:
        pass

    def finish(self) -> dict:
        return {}


class EachFile(Plain):
    """full and verify: one event per selected file with its size and checksum."""

    EVENTS = {"full": "FILE_BACKED_UP", "verify": "FILE_VERIFIED"}

    def __init__(self, job: Job) -> None:
        super().__init__(job)
        self.kind, self.total = job.strategy.kind, 0

    def add(self, path: str, content: bytes) -> None:
        self.total += len(content)
        emit({"event": self.EVENTS[self.kind], "job_id": self.job_id, "path": path, "size": len(content),
              "checksum": checksum(content)})

    def finish(self) -> dict:
        return {"total_size": self.total} if self.kind == "full" else {}


def run_files(job: Job, moment: datetime, backup: Path | None) -> dict:
    """A run without a strategy or with full or verify: files in order, unchanged ones skipped."""
    prior = job.prior_backups(backup)
    if prior:
        emit({"event": "DEST_STATE_LOADED", "job_id": job.job_id, "files_total": len(prior)})
    if job.strategy:
        emit({"event": "STRATEGY_SELECTED", "job_id": job.job_id, "kind": job.strategy.kind})
    handler = EachFile(job) if job.strategy else Plain(job)
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
    return {"selected": selected, "excluded": excluded, "files_skipped_unchanged": skipped,
            "dest_state_files": len(prior), **handler.finish()}


class Archive(NamedTuple):
    """A pack found in the job directory: its name, checksum, content size and (member, checksum) list."""

    name: str
    checksum: str
    size: int
    members: list[tuple[str, str]]


def read_archive(path: Path) -> Archive:
    try:
        with tarfile.open(path) as archive:
            contents = [(member.name, archive.extractfile(member).read()) for member in archive if member.isfile()]
    except tarfile.TarError as exc:
        raise ScheduleError(f"{path} is not a tar archive: {exc}") from exc
    return Archive(path.name, checksum(path.read_bytes()), sum(len(content) for _, content in contents),
                   [(name, checksum(content)) for name, content in contents])


def load_packs(job_id: str, folder: Path | None) -> dict[int, Archive]:
    """The job directory's ``pack-<N>.tar`` files by N, each announced with PACK_LOADED in order of N."""
    numbered = {}
    for path in folder.iterdir() if folder is not None and folder.is_dir() else []:
        found = PACK_NAME.fullmatch(path.name)
        if found and path.is_file():
            numbered[int(found.group(1))] = path
    packs = {}
    for number in sorted(numbered):
        pack = packs[number] = read_archive(numbered[number])
        emit({"event": "PACK_LOADED", "job_id": job_id, "name": pack.name, "files_total": len(pack.members),
              "checksum": pack.checksum})
    return packs


def plan_packs(files: list[tuple[str, bytes]], limit: int) -> list[list[tuple[str, bytes]]]:
    """Files in order, a new pack whenever the next file would take the current one over ``limit``."""
    packs: list[list[tuple[str, bytes]]] = []
    size = 0
    for path, content in files:
        if not packs or size + len(content) > limit:
            packs.append([])
            size = 0
        packs[-1].append((path, content))
        size += len(content)
    return packs


class PackWriter:
    """Writes the planned packs of one run, keeping those whose members did not change."""

    def __init__(self, job_id: str, stamp: str, folder: Path | None, existing: dict[int, Archive]) -> None:
        self.job_id, self.stamp, self.folder, self.existing = job_id, stamp, folder, existing
        self.skipped = 0

    def write(self, packs: list[list[tuple[str, bytes]]]) -> None:
        pending = None
        for number, members in enumerate(packs, 1):
            old = self.existing.get(number)
            same = old is not None and old.members == [(path, checksum(content)) for path, content in members]
            for path, content in members:
                emit({"event": "FILE_SELECTED", "job_id": self.job_id, "path": path})
                if pending:
                    emit(pending)
                    pending = None
                self.report(number, path, content, same)
            pending = self.close(number, members, old, same)
        if pending:
            emit(pending)
        for number, old in self.existing.items():
            if number > len(packs):
                (self.folder / old.name).unlink()

    def report(self, number: int, path: str, content: bytes, same: bool) -> None:
        event = {"event": "FILE_PACKED", "job_id": self.job_id, "pack_id": number, "path": path, "size": len(content)}
        if same:
            self.skipped += 1
            event.update(event="PACK_SKIP_UNCHANGED", hash=checksum(content))
        emit(event)

    def close(self, number: int, members: list[tuple[str, bytes]], old: Archive | None, same: bool) -> dict:
        """The event that finishes pack ``number``; a changed or new pack is written to the job directory."""
        name = f"pack-{number}.tar"
        if same:
            return {"event": "PACK_UNCHANGED", "job_id": self.job_id, "name": name, "checksum": old.checksum}
        archive = tar_archive(members)
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / name).write_bytes(archive)
        event = {"event": "PACK_CREATED", "job_id": self.job_id, "name": name,
                 "size": sum(len(content) for _, content in members), "tar_size": len(archive),
                 "checksum": checksum(archive), "timestamp": self.stamp}
        if old is not None:
            event.update(event="PACK_UPDATED", old_size=old.size, old_checksum=old.checksum)
        return event


def run_pack(job: Job, moment: datetime, backup: Path | None) -> dict:
    """A pack run: packs loaded, excluded files reported first, then the selected files pack by pack."""
    emit({"event": "STRATEGY_SELECTED", "job_id": job.job_id, "kind": "pack"})
    folder = job.folder(backup)
    writer = PackWriter(job.job_id, local_time(moment), folder, load_packs(job.job_id, folder))
    selected, excluded = [], 0
    for path in source_files(job.source):
        pattern = first_exclusion(path, job.exclude)
        if pattern is None:
            selected.append((path, (job.source / path).read_bytes()))
        else:
            excluded += 1
            emit({"event": "FILE_EXCLUDED", "job_id": job.job_id, "path": path, "pattern": pattern})
    packs = plan_packs(selected, job.strategy.max_pack_bytes)
    writer.write(packs)
    return {"selected": len(selected), "excluded": excluded,
            "files_skipped_unchanged": writer.skipped, "dest_state_files": 0, "packs": len(packs),
            "total_size": sum(len(content) for _, content in selected)}


STRATEGIES = {"full": run_files, "pack": run_pack, "verify": run_files}
"""strategy.kind -> how a run of the job goes."""


def run_job(job: Job, moment: datetime, backup: Path | None) -> None:
    emit({"event": "JOB_STARTED", "job_id": job.job_id, "exclude_count": len(job.exclude)})
    totals = (STRATEGIES[job.strategy.kind] if job.strategy else run_files)(job, moment, backup)
    emit({"event": "JOB_COMPLETED", "job_id": job.job_id, **totals})


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
        run(load_schedule(args.schedule, mount), start, start + timedelta(hours=args.duration), args.backup)
    except ScheduleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
