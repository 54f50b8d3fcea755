"""merge_files: merge CSV files into one CSV sorted by a key, with a provided or inferred schema.

Rows are cast to the resolved schema as they are read, buffered up to the memory budget, spilled as
sorted runs to a temporary directory, and merged back in order (an external merge sort).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import heapq
import json
import os
import pickle
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from itertools import count
from pathlib import Path
from typing import NamedTuple

TYPES = ("string", "int", "float", "bool", "date", "timestamp")
DETECTION_ORDER = ("bool", "int", "float", "date", "timestamp")
INT_RE = re.compile(r"[+-]?\d+")
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
TIMESTAMP_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?")
INT64 = 2**63


class MergeError(Exception):
    """A failure with its exit code: 2 usage, 3 schema/key, 4 cast, 5 input reading."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------- parsing text into typed values


def parse_int(text: str) -> int | None:
    text = text.strip()
    if not INT_RE.fullmatch(text):
        return None
    value = int(text)
    return value if -INT64 <= value < INT64 else None


def parse_float(text: str) -> Decimal | None:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def parse_bool(text: str) -> bool | None:
    return {"true": True, "1": True, "false": False, "0": False}.get(text.strip().lower())


def parse_date(text: str) -> dt.date | None:
    text = text.strip()
    if not DATE_RE.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def parse_timestamp(text: str) -> dt.datetime | None:
    text = text.strip()
    if not TIMESTAMP_RE.fullmatch(text):
        return None
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


PARSERS = {"int": parse_int, "float": parse_float, "bool": parse_bool, "date": parse_date,
           "timestamp": parse_timestamp, "string": lambda text: text}


def format_float(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("", "-", "-0") else text


def format_timestamp(value: dt.datetime) -> str:
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += "." + f"{value.microsecond:06d}".rstrip("0")
    return text + "Z"


def format_value(kind: str, value: object) -> str:
    if kind == "float":
        return format_float(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind == "timestamp":
        return format_timestamp(value)
    if kind == "date":
        return value.isoformat()
    return str(value)


def detect(text: str) -> str:
    """The first type of DETECTION_ORDER the text parses as, else string."""
    return next((kind for kind in DETECTION_ORDER if PARSERS[kind](text) is not None), "string")


def join(left: str | None, right: str) -> str:
    if left is None or left == right:
        return right
    pair = {left, right}
    if pair == {"int", "float"}:
        return "float"
    if pair == {"date", "timestamp"}:
        return "timestamp"
    return "string"


# ---------------------------------------------------------------- schema


@dataclass(frozen=True)
class Column:
    name: str
    type: str


def load_schema(path: str) -> list[Column]:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeError(2, f'schema file "{path}" not found') from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise MergeError(2, f"invalid schema JSON: {error}") from None
    entries = document.get("columns") if isinstance(document, dict) else None
    if not isinstance(entries, list) or not entries:
        raise MergeError(2, "schema JSON must hold a non-empty 'columns' list")
    columns: list[Column] = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        kind = entry.get("type") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name or any(c.name == name for c in columns):
            raise MergeError(2, f"schema column name {name!r} is missing or repeated")
        if kind not in TYPES:
            raise MergeError(2, f'unsupported column type "{kind}" for "{name}"')
        columns.append(Column(name, kind))
    return columns


class Observed:
    """What one column's non-empty values parse as, for both inference modes."""

    def __init__(self) -> None:
        self.strict: str | None = None
        self.all_of = {kind: True for kind in DETECTION_ORDER}
        self.temporal = True

    def add(self, text: str) -> None:
        self.strict = join(self.strict, detect(text))
        for kind in DETECTION_ORDER:
            self.all_of[kind] &= PARSERS[kind](text) is not None
        self.temporal &= parse_date(text) is not None or parse_timestamp(text) is not None

    def resolve(self, mode: str) -> str:
        if self.strict is None:
            return "string"
        if mode == "strict":
            return self.strict
        for kind in ("bool", "int", "float", "date"):
            if self.all_of[kind]:
                return kind
        return "timestamp" if self.temporal else "string"  # not all dates, so some timestamp


def infer_schema(paths: list[str], dialect: dict, mode: str) -> list[Column]:
    observed: dict[str, Observed] = {}
    for path in paths:
        header: list[str] = []
        for row, _line in read_csv(path, dialect, header):
            for name, text in row.items():
                if text:
                    observed.setdefault(name, Observed()).add(text)
        for name in header:
            observed.setdefault(name, Observed())
    return [Column(name, observed[name].resolve(mode)) for name in sorted(observed)]


# ---------------------------------------------------------------- reading and casting


def read_csv(path: str, dialect: dict, header_sink: list[str] | None = None):
    """Yield (row as name -> text, line number) for each data row; the header names every column (and is
    appended to ``header_sink`` when given)."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, **dialect)
            header = next(reader, None)
            if header is None:
                return
            if len(set(header)) != len(header):
                raise MergeError(2, f'input file "{path}" names a column twice')
            if header_sink is not None:
                header_sink.extend(header)
            for cells in reader:
                if cells:
                    yield dict(zip(header, cells, strict=False)), reader.line_num
    except FileNotFoundError:
        raise MergeError(2, f'input file "{path}" not found') from None
    except (csv.Error, UnicodeDecodeError) as error:
        raise MergeError(5, f'cannot read "{path}": {error}') from None


class Settings(NamedTuple):
    null: str
    on_error: str


NULL_KEY = (False, False, None)
"""The sort component of a null cell: before every value (typed values, then kept strings)."""


def cast(text: str | None, column: Column, settings: Settings, where: str) -> tuple[str, tuple]:
    """The output text and sort component of one cell."""
    if text is None or text == "":
        return settings.null, NULL_KEY
    value = PARSERS[column.type](text)
    if value is not None:
        return format_value(column.type, value), (True, False, value)
    if settings.on_error == "fail":
        raise MergeError(4, f'cannot cast "{text}" to {column.type} in column "{column.name}" ({where})')
    if settings.on_error == "keep-string":
        return text, (True, True, text)
    return settings.null, NULL_KEY


# ---------------------------------------------------------------- external sort


class Sorter:
    """Collects (key, cells) records; spills sorted runs past the budget; yields them merged in order."""

    def __init__(self, budget: int, temp_root: str | None, descending: bool) -> None:
        self.budget = budget
        self.descending = descending
        self.directory = tempfile.mkdtemp(prefix="merge-runs-", dir=temp_root)
        self.buffer: list[tuple] = []
        self.used = 0
        self.runs: list[str] = []
        self.sequence = count()

    def add(self, key: tuple, cells: list[str]) -> None:
        position = next(self.sequence)
        order = -position if self.descending else position
        self.buffer.append((key, order, cells))
        self.used += 200 + sum(len(cell) for cell in cells) * 2
        if self.used >= self.budget:
            self.spill()

    def spill(self) -> None:
        self.buffer.sort(reverse=self.descending)
        path = os.path.join(self.directory, f"run-{len(self.runs):05d}.bin")
        with open(path, "wb") as handle:
            for record in self.buffer:
                pickle.dump(record, handle)
        self.runs.append(path)
        self.buffer, self.used = [], 0

    def merged(self):
        self.buffer.sort(reverse=self.descending)
        streams = [read_run(path) for path in self.runs] + [iter(self.buffer)]
        for _key, _order, cells in heapq.merge(*streams, reverse=self.descending):
            yield cells

    def close(self) -> None:
        shutil.rmtree(self.directory)


def read_run(path: str):
    with open(path, "rb") as handle:
        while True:
            try:
                yield pickle.load(handle)
            except EOFError:
                return


# ---------------------------------------------------------------- command line


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="merge_files", description=__doc__)
    parser.add_argument("--output", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--desc", action="store_true")
    parser.add_argument("--schema")
    parser.add_argument("--infer", choices=["strict", "loose"], default="strict")
    parser.add_argument("--on-type-error", choices=["coerce-null", "fail", "keep-string"], default="coerce-null")
    parser.add_argument("--memory-limit-mb", type=int, default=64)
    parser.add_argument("--temp-dir")
    parser.add_argument("--csv-quotechar", default='"')
    parser.add_argument("--csv-escapechar")
    parser.add_argument("--csv-null-literal", default="")
    parser.add_argument("inputs", nargs="+")
    return parser.parse_args(argv)


def dialect_of(args: argparse.Namespace) -> dict:
    if len(args.csv_quotechar) != 1 or (args.csv_escapechar is not None and len(args.csv_escapechar) != 1):
        raise MergeError(2, "--csv-quotechar and --csv-escapechar take one character")
    if args.memory_limit_mb <= 0:
        raise MergeError(2, "--memory-limit-mb must be positive")
    return {"delimiter": ",", "quotechar": args.csv_quotechar, "escapechar": args.csv_escapechar,
            "doublequote": args.csv_escapechar is None}


def key_columns(raw: str, schema: list[Column]) -> list[int]:
    names = [name.strip() for name in raw.split(",")]
    if not all(names):
        raise MergeError(2, "--key names an empty column")
    positions = {column.name: index for index, column in enumerate(schema)}
    for name in names:
        if name not in positions:
            raise MergeError(3, f'key column "{name}" not present in resolved schema')
    return [positions[name] for name in names]


def write_output(target: str, header: list[str], rows) -> None:
    if target == "-":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return
    directory = os.path.dirname(target) or "."
    os.makedirs(directory, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".merge-", suffix=".tmp", dir=directory)
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def run(args: argparse.Namespace) -> None:
    dialect = dialect_of(args)
    schema = load_schema(args.schema) if args.schema else infer_schema(args.inputs, dialect, args.infer)
    keys = key_columns(args.key, schema)
    settings = Settings(args.csv_null_literal, args.on_type_error)
    if args.temp_dir:
        os.makedirs(args.temp_dir, exist_ok=True)
    sorter = Sorter(args.memory_limit_mb * 1024 * 1024, args.temp_dir, args.desc)
    try:
        for path in args.inputs:
            name = os.path.basename(path)
            for row, line in read_csv(path, dialect):
                cast_cells = [cast(row.get(column.name), column, settings, f"file={name} line={line}")
                              for column in schema]
                sorter.add(tuple(cast_cells[i][1] for i in keys), [text for text, _ in cast_cells])
        write_output(args.output, [column.name for column in schema], sorter.merged())
    finally:
        sorter.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        run(args)
    except MergeError as error:
        print(f"ERR {error.code} {error}", file=sys.stderr)
        return error.code
    except OSError as error:
        print(f"ERR 5 {error}", file=sys.stderr)
        return 5
    return 0


if __name__ == "__main__":
    sys.exit(main())
