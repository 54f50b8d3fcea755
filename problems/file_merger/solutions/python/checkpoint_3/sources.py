"""Input sources: format and compression detection, and one reader per format yielding rows of text cells."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
import math
import os
from dataclasses import dataclass, field

from errors import MergeError

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}


@dataclass
class Source:
    """One input file: where it is, how it is stored, and (for parquet) the declared type of each column."""

    path: str
    format: str
    gzip: bool
    declared: dict[str, str] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)


def _first_bytes(path: str, count: int, compressed: bool) -> bytes:
    opener = gzip.open if compressed else open
    with opener(path, "rb") as handle:
        return handle.read(count)


def _compression(path: str, mode: str) -> bool:
    is_gzip = _first_bytes(path, 2, False) == GZIP_MAGIC
    wanted = path.endswith(".gz") if mode == "auto" else mode == "gzip"
    if wanted and not is_gzip:
        raise MergeError(5, f'compression mismatch: "{path}" is not gzip-compressed')
    if is_gzip and not wanted:
        raise MergeError(5, f'compression mismatch: "{path}" is gzip-compressed')
    return wanted


def _format(path: str, mode: str, compressed: bool) -> str:
    if mode != "auto":
        return mode
    base = path[:-3] if compressed and path.endswith(".gz") else path
    found = EXTENSIONS.get(os.path.splitext(base)[1].lower())
    if found:
        return found
    if _first_bytes(path, 4, compressed) == PARQUET_MAGIC:
        return "parquet"
    raise MergeError(2, f'cannot detect the format of "{path}"')


def open_sources(paths: list[str], input_format: str, compression: str) -> list[Source]:
    for path in paths:
        if not os.path.isfile(path):
            raise MergeError(2, f'input file "{path}" not found')
    sources = []
    for path in paths:
        compressed = _compression(path, compression)
        sources.append(Source(path, _format(path, input_format, compressed), compressed))
    return sources


# ---------------------------------------------------------------- typed values as text


def text_of(value: object) -> str | None:
    """A JSON or Parquet value as the text a CSV cell would hold: null stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


# ---------------------------------------------------------------- readers: (row, line) pairs


def _binary_handle(source: Source):
    return gzip.open(source.path, "rb") if source.gzip else open(source.path, "rb")  # noqa: SIM115 (closed by the caller)


def _text_handle(source: Source):
    return io.TextIOWrapper(_binary_handle(source), encoding="utf-8", newline="")


def _check_header(header: list[str], path: str) -> list[str]:
    if header and header[0].startswith("\ufeff"):
        header[0] = header[0][1:]
    if len(set(header)) != len(header):
        raise MergeError(2, f'input file "{path}" names a column twice')
    return header


def read_csv(source: Source, dialect: dict):
    with _text_handle(source) as handle:
        reader = csv.reader(handle, **dialect)
        header = next(reader, None)
        if header is None:
            return
        header = source.columns = _check_header(header, source.path)
        for cells in reader:
            if cells:
                yield {name: cell or None for name, cell in zip(header, cells, strict=False)}, reader.line_num


def read_tsv(source: Source, _dialect: dict):
    with _text_handle(source) as handle:
        first = handle.readline()
        if not first:
            raise MergeError(5, f'tsv file "{source.path}" has no header row')
        header = source.columns = _check_header(first.rstrip("\r\n").split("\t"), source.path)
        for line_number, line in enumerate(handle, start=2):
            line = line.rstrip("\r\n")
            if not line:
                continue
            cells = line.split("\t")
            if len(cells) != len(header):
                raise MergeError(5, f"tsv row has {len(cells)} fields, not {len(header)} "
                                    f"(file={source.path} line={line_number})")
            yield {name: cells[index] or None for index, name in enumerate(header)}, line_number


def read_jsonl(source: Source, _dialect: dict):
    with _text_handle(source) as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise MergeError(5, f"invalid JSON (file={source.path} line={line_number}): {error}") from None
            if not isinstance(record, dict):
                raise MergeError(6, f"jsonl line is not an object (file={source.path} line={line_number})")
            for key, value in record.items():
                if isinstance(value, (dict, list)):
                    raise MergeError(6, f'nested value in field "{key}" (file={source.path} line={line_number})')
            yield {key: text_of(value) for key, value in record.items()}, line_number


def _arrow_kind(data_type) -> str | None:
    import pyarrow as pa

    checks = ((pa.types.is_boolean, "bool"), (pa.types.is_integer, "int"), (pa.types.is_floating, "float"),
              (pa.types.is_decimal, "float"), (pa.types.is_string, "string"), (pa.types.is_large_string, "string"),
              (pa.types.is_date, "date"), (pa.types.is_timestamp, "timestamp"))
    return next((kind for check, kind in checks if check(data_type)), None)


def parquet_file(source: Source):
    """The opened pyarrow ParquetFile; fills ``source.declared``. Nested columns are error 6."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with _binary_handle(source) as handle:
        raw = handle.read()
    try:
        parquet = pq.ParquetFile(pa.BufferReader(raw))
    except (pa.ArrowInvalid, OSError) as error:
        raise MergeError(5, f'cannot read parquet file "{source.path}": {error}') from None
    for column in parquet.schema_arrow:
        if pa.types.is_nested(column.type):
            raise MergeError(6, f'parquet column "{column.name}" is nested (file={source.path})')
        kind = _arrow_kind(column.type)
        if kind:
            source.declared[column.name] = kind
    return parquet


def read_parquet(source: Source, _dialect: dict):
    parquet = parquet_file(source)
    names = source.columns = parquet.schema_arrow.names
    row_number = 0
    for group in range(parquet.num_row_groups):
        for row in parquet.read_row_group(group, use_threads=False).to_pylist():
            row_number += 1
            yield {name: text_of(row.get(name)) for name in names}, row_number


READERS = {"csv": read_csv, "tsv": read_tsv, "jsonl": read_jsonl, "parquet": read_parquet}


def rows_of(source: Source, dialect: dict):
    """Yield (row as column -> text or None, line or row number) of one source."""
    try:
        yield from READERS[source.format](source, dialect)
    except (csv.Error, UnicodeDecodeError, EOFError, gzip.BadGzipFile) as error:
        raise MergeError(5, f'cannot read "{source.path}": {error}') from None
