"""Structured input files: a JSON value written in the format its path's extensions ask for."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
from collections.abc import Callable
from pathlib import PurePosixPath

import yaml
from errors import invalid

COMPRESSIONS: dict[str, Callable[[bytes], bytes]] = {".gz": lambda data: gzip.compress(data, mtime=0),
                                                      ".bz2": bz2.compress}
TABLE_FORMATS = {".jsonl", ".ndjson", ".csv", ".tsv"}
SEPARATORS = {".csv": ",", ".tsv": "\t"}


def refused(message: str):
    return invalid(message, "INVALID_FILES")


def with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def rows_of(value) -> list[dict]:
    """The rows of a table given as rows (an array of objects) or columns (an object of arrays); a
    row built from columns has every column, ``None`` past a column's end."""
    if isinstance(value, list) and all(isinstance(row, dict) for row in value):
        return value
    if isinstance(value, dict) and all(isinstance(column, list) for column in value.values()):
        length = max(map(len, value.values()), default=0)
        return [{name: column[i] if i < len(column) else None for name, column in value.items()}
                for i in range(length)]
    raise refused("a table must be an array of objects or an object of arrays")


def columns_of(rows: list[dict]) -> list[str]:
    return sorted({key for row in rows for key in row})


def json_lines(value) -> str:
    rows = rows_of(value)
    order = columns_of(rows)
    return "".join(json.dumps({key: row[key] for key in order if key in row}, ensure_ascii=False) + "\n"
                   for row in rows)


def cell(value) -> str:
    """One CSV/TSV field before quoting."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def table(separator: str) -> Callable[[object], str]:
    def write(value) -> str:
        rows = rows_of(value)
        order = columns_of(rows)
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=separator, lineterminator="\n")
        writer.writerow(order)
        writer.writerows([cell(row.get(key)) for key in order] for row in rows)
        return buffer.getvalue()
    return write


def json_text(value) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"


def yaml_text(value) -> str:
    return with_newline(yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=False))


WRITERS: dict[str, Callable[[object], str]] = {".json": json_text, ".yaml": yaml_text, ".yml": yaml_text,
                                               ".jsonl": json_lines, ".ndjson": json_lines,
                                               ".csv": table(","), ".tsv": table("\t")}
"""Format extension -> how a value that is not a string is written; others are written as JSON."""


def text_of(extension: str, value) -> str:
    if isinstance(value, str):
        return with_newline(value) if extension in TABLE_FORMATS else value
    return WRITERS.get(extension, json_text)(value)


def file_bytes(path: str, value) -> bytes:
    """The bytes of the file at ``path`` holding ``value``; raises ``ApiError`` (400) for a path with
    more than one compression extension or a table that is neither rows nor columns."""
    suffixes = PurePosixPath(path).suffixes
    if sum(suffix in COMPRESSIONS for suffix in suffixes) > 1:
        raise refused(f"file {path!r} has more than one compression extension")
    compress = COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    formats = suffixes[:-1] if compress else suffixes
    data = text_of(formats[-1] if formats else "", value).encode("utf-8")
    return compress(data) if compress else data
