"""Output writers: one CSV file (or stdout), or a directory of part files, optionally in Hive-style
partition directories, cut by a row count and/or a byte size."""

from __future__ import annotations

import csv
import io
import os
import shutil
import sys
import tempfile
from typing import NamedTuple
from urllib.parse import quote

SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
NULL_SEGMENT = "_null"


def csv_line(cells: list[str], dialect: dict) -> str:
    """One line of CSV in the inputs' dialect (quote and escape characters)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n", **dialect).writerow(cells)
    return buffer.getvalue()


def write_single(target: str, header: list[str], rows, dialect: dict) -> None:
    """One CSV at ``target`` (written beside it, then moved into place), or on stdout for ``-``."""
    if target == "-":
        sys.stdout.write(csv_line(header, dialect))
        for cells, _segments in rows:
            sys.stdout.write(csv_line(cells, dialect))
        return
    directory = os.path.dirname(target) or "."
    os.makedirs(directory, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".merge-", suffix=".tmp", dir=directory)
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(csv_line(header, dialect))
            for cells, _segments in rows:
                handle.write(csv_line(cells, dialect))
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def segment(column: str, text: str | None) -> str:
    """One ``column=value`` directory name: the value percent-encoded, ``_null`` for null."""
    return f"{column}={NULL_SEGMENT if text is None else quote(text, safe=SAFE)}"


class Limits(NamedTuple):
    """The part-file limits: rows per file and bytes per file, each None when not given."""

    rows: int | None
    bytes: int | None

    def full(self, rows: int, size: int, next_size: int) -> bool:
        """Whether a file holding ``rows`` rows in ``size`` bytes must be closed before a row of ``next_size``."""
        if self.rows is not None and rows >= self.rows:
            return True
        return self.bytes is not None and size + next_size > self.bytes


class PartWriter:
    """Writes rows, already grouped by partition, as ``part-NNNNN.csv`` files under a directory."""

    def __init__(self, root: str, header: list[str], limits: Limits, dialect: dict) -> None:
        self.root = root
        self.dialect = dialect
        self.header = csv_line(header, dialect)
        self.limits = limits
        self.directory: str | None = None
        self.handle = None

    def write(self, cells: list[str], segments: tuple[str, ...]) -> None:
        directory = os.path.join(self.root, *segments)
        if directory != self.directory:
            self.close()
            self.directory, self.number = directory, 0
        line = csv_line(cells, self.dialect)
        size = len(line.encode("utf-8"))
        if self.handle is None or self.limits.full(self.rows, self.size, size):
            self.open_next()
        self.handle.write(line)
        self.rows += 1
        self.size += size

    def open_next(self) -> None:
        self.close()
        os.makedirs(self.directory, exist_ok=True)
        path = os.path.join(self.directory, f"part-{self.number:05d}.csv")
        self.number += 1
        self.handle = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115 (closed by close())
        self.handle.write(self.header)
        self.rows, self.size = 0, len(self.header.encode("utf-8"))

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def write_parts(target: str, header: list[str], rows, limits: Limits, dialect: dict) -> None:
    """The part files in a sibling temporary directory, moved to ``target`` (replacing it) when complete."""
    parent = os.path.dirname(os.path.normpath(target)) or "."
    os.makedirs(parent, exist_ok=True)
    temporary = tempfile.mkdtemp(prefix=".merge-parts-", dir=parent)
    try:
        writer = PartWriter(temporary, header, limits, dialect)
        try:
            for cells, segments in rows:
                writer.write(cells, segments)
        finally:
            writer.close()
        if os.path.isdir(target):
            shutil.rmtree(target)
        elif os.path.exists(target):
            os.remove(target)
        os.replace(temporary, target)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
