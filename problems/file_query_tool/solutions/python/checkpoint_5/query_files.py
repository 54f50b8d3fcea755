"""query_files: one read-only SQL query over a directory of data files, printed as a markdown table.

The data files (CSV, TSV, JSON, JSON Lines, Parquet; each possibly gzip- or bzip2-compressed) are loaded into
an in-memory SQLite database, a table per name (the files of one name concatenated in path order, shards
named by --sharded NAME=GLOB added to NAME), the query runs there, and the result is printed on stdout (and
written as CSV with --out). Empty (0-byte) files add nothing. Window functions are SQLite's; NULLs sort last in
every ORDER BY; a window error exits with 3. WITH queries and subqueries are SQLite's too, with a
scalar subquery of several rows made an error (exit 5) by a guard around it; a CTE error exits with 4.
"""

from __future__ import annotations

import argparse
import bz2
import csv
import glob
import gzip
import io
import json
import os
import re
import sqlite3
import sys
from pathlib import Path

INTEGER = re.compile(r"[+-]?\d+")
DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.IGNORECASE)
ORDER_END = re.compile(r"\b(LIMIT|OFFSET|ROWS|RANGE|GROUPS)\b", re.IGNORECASE)
DOTTED_TABLE = re.compile(r"\b(FROM|JOIN)(\s+)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)", re.IGNORECASE)
DATA_FILE = re.compile(r"(?P<stem>.+)\.(?P<format>csv|tsv|json|jsonl|parquet)(?:\.(?P<compression>gz|bz2))?")
OPENERS = {None: lambda raw: raw, "gz": gzip.decompress, "bz2": bz2.decompress}


WINDOW_MESSAGES = re.compile(r"window function|no such window|frame (starting|ending) offset|RANGE with offset"
                             r"|arguments to function (row_number|rank|dense_rank)\(\)", re.IGNORECASE)
BACKWARD_FRAME = re.compile(r"\bAND\s+UNBOUNDED\s+PRECEDING|\bBETWEEN\s+UNBOUNDED\s+FOLLOWING"
                            r"|\bBETWEEN\s+CURRENT\s+ROW\s+AND\s+\d+\s+PRECEDING"
                            r"|\bBETWEEN\s+\d+\s+FOLLOWING\s+AND\s+(CURRENT\s+ROW|\d+\s+PRECEDING)", re.IGNORECASE)
CTE_MESSAGES = re.compile(r"duplicate WITH table name|values for \d+ columns|circular reference|recursive",
                          re.IGNORECASE)
SUBQUERY_MESSAGES = re.compile(r"sub-select returns|user-defined function raised exception", re.IGNORECASE)
SUBQUERY = re.compile(r"\(\s*SELECT\b", re.IGNORECASE)
NOT_SCALAR = re.compile(r"\b(FROM|JOIN|IN|EXISTS|AS)\s*$", re.IGNORECASE)


class QueryError(Exception):
    """A query or an input the tool cannot run; its message goes to stderr, ``code`` is the exit status."""

    code = 1


class WindowError(QueryError):
    """A window function where none may be, or a frame that ends before it starts."""

    code = 3


class CteError(QueryError):
    """A WITH clause that defines a name twice, lists other columns than its query gives, or is circular."""

    code = 4


class SubqueryError(QueryError):
    """A subquery giving several rows or columns where one value is needed."""

    code = 5


ERRORS = ((WINDOW_MESSAGES, WindowError), (CTE_MESSAGES, CteError), (SUBQUERY_MESSAGES, SubqueryError))
"""SQLite's error messages -> the error they are."""


def delimited(delimiter: str):
    def read(raw: bytes, path: Path) -> tuple[list[str], list[list]]:
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8")), delimiter=delimiter))
        if not rows or not any(field.strip() for field in rows[0]):
            raise QueryError(f"{path}: no header row")
        header = rows[0]
        return header, [[None if value == "NULL" else value for value in row + [""] * (len(header) - len(row))]
                        for row in rows[1:]]
    return read


def records(objects: list, path: Path) -> tuple[list[str], list[list]]:
    if not all(isinstance(item, dict) for item in objects):
        raise QueryError(f"{path}: every record must be a JSON object")
    header = list(dict.fromkeys(key for item in objects for key in item))
    return header, [[item.get(column) for column in header] for item in objects]


def read_json(raw: bytes, path: Path) -> tuple[list[str], list[list]]:
    document = parse_json(raw.decode("utf-8"), path)
    if isinstance(document, list):
        return records(document, path)
    if not isinstance(document, dict) or not all(isinstance(values, list) for values in document.values()):
        raise QueryError(f"{path}: a JSON table is an array of objects or an object of equal-length arrays")
    try:
        return list(document), [list(row) for row in zip(*document.values(), strict=True)]
    except ValueError as error:
        raise QueryError(f"{path}: the column arrays have different lengths") from error


def read_jsonl(raw: bytes, path: Path) -> tuple[list[str], list[list]]:
    return records([parse_json(line, path) for line in raw.decode("utf-8").splitlines() if line.strip()], path)


def parse_json(text: str, path: Path):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise QueryError(f"{path}: not valid JSON: {error}") from error


def read_parquet(raw: bytes, path: Path) -> tuple[list[str], list[list]]:
    import pyarrow
    import pyarrow.parquet

    try:
        # no thread pool: Arrow's pools can abort at interpreter exit (apache/arrow#34314)
        table = pyarrow.parquet.ParquetFile(pyarrow.BufferReader(raw), pre_buffer=False).read(use_threads=False)
    except pyarrow.ArrowException as error:
        raise QueryError(f"{path}: not a valid Parquet file: {error}") from error
    return table.column_names, [list(row.values()) for row in table.to_pylist()]


READERS = {"csv": delimited(","), "tsv": delimited("\t"), "json": read_json, "jsonl": read_jsonl,
           "parquet": read_parquet}


def table_name(path: Path, root: Path, stem: str) -> str:
    """``sales/returns.2024.csv.gz`` -> ``sales.returns_2024``."""
    return ".".join([*path.relative_to(root).parent.parts, stem.replace(".", "_")])


def read_file(path: Path, found: re.Match) -> tuple[list[str], list[list]]:
    try:
        raw = OPENERS[found["compression"]](path.read_bytes())
    except (OSError, EOFError) as error:
        raise QueryError(f"{path}: cannot be decompressed: {error}") from error
    return READERS[found["format"]](raw, path)


def is_integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) or isinstance(value, str) and bool(
        INTEGER.fullmatch(value))


def is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) or isinstance(value, str) and bool(
        DECIMAL.fullmatch(value))


def column_type(values: list) -> str:
    """INTEGER when every value given is an integer, REAL when every one is a number, else TEXT."""
    filled = [value for value in values if value not in ("", None)]
    if filled and all(map(is_integer, filled)):
        return "INTEGER"
    if filled and all(map(is_number, filled)):
        return "REAL"
    return "TEXT"


CONVERT = {"INTEGER": int, "REAL": float, "TEXT": lambda value: value}


def cell(value, kind: str):
    if value is None or kind != "TEXT" and value == "":
        return None
    if isinstance(value, list | dict):
        return json.dumps(value)
    return CONVERT[kind](value)


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def create_table(database: sqlite3.Connection, name: str, header: list[str], body: list[list]) -> None:
    kinds = [column_type([row[index] for row in body]) for index in range(len(header))]
    columns = ", ".join(map("{} {}".format, map(quoted, header), kinds))
    database.execute(f"CREATE TABLE {quoted(name)} ({columns})")
    marks = ", ".join("?" * len(header))
    database.executemany(f"INSERT INTO {quoted(name)} VALUES ({marks})",
                         [list(map(cell, row, kinds)) for row in body])


def load_table(database: sqlite3.Connection, name: str, files: list[tuple[Path, re.Match]]) -> None:
    """The files of one table, in path order: one header, their rows concatenated."""
    header, body = None, []
    for path, found in sorted(files, key=lambda item: str(item[0])):
        columns, rows = read_file(path, found)
        if header is not None and columns != header:
            raise QueryError(f"{path}: its columns {columns} differ from {header} of another file of table {name}")
        header = columns
        body += rows
    create_table(database, name, header, body)


Files = dict[str, list[tuple[Path, re.Match]]]


def directory_tables(root: Path) -> Files:
    if not root.is_dir():
        raise QueryError(f"{root}: not a directory")
    tables: Files = {}
    for path in root.rglob("*"):
        found = DATA_FILE.fullmatch(path.name)
        if found and path.is_file() and path.stat().st_size:
            tables.setdefault(table_name(path, root, found["stem"]), []).append((path, found))
    return tables


def shard_files(name: str, pattern: str) -> list[tuple[Path, re.Match]]:
    """The non-empty table files ``pattern`` matches; a match of another kind is an error."""
    files = []
    for path in map(Path, sorted(glob.glob(pattern))):
        found = DATA_FILE.fullmatch(path.name)
        if path.is_file() and not found:
            raise QueryError(f"{path}: matched by the shards of {name}, and not a table file")
        if path.is_file() and path.stat().st_size:
            files.append((path, found))
    return files


def add_shards(tables: Files, sharded: list[str]) -> None:
    for value in sharded:
        name, equals, pattern = value.partition("=")
        if not (name.strip() and equals and pattern):
            raise QueryError(f"--sharded {value!r}: expected TABLE=GLOB")
        matched = glob.glob(pattern)
        files = shard_files(name.strip(), pattern)
        if matched and not files:
            raise QueryError(f"--sharded {value!r}: every file it matches is empty")
        if files:
            tables.setdefault(name.strip(), []).extend(files)


def load_directory(root: Path, sharded: list[str]) -> sqlite3.Connection:
    tables = directory_tables(root)
    add_shards(tables, sharded)
    database = sqlite3.connect(":memory:")
    database.execute("PRAGMA case_sensitive_like = ON")
    for name, files in tables.items():
        load_table(database, name, files)
    return database


def read_query(argument: str) -> str:
    """The text of the file ``argument`` names, else ``argument`` itself (a query longer than a file name too)."""
    return Path(argument).read_text(encoding="utf-8") if os.path.isfile(argument) else argument


def closing(text: str, start: int) -> int:
    """The index of the ``)`` that closes the ``(`` just before ``start``."""
    depth = 1
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    raise QueryError("a parenthesis is not closed")


def guard_scalars(text: str) -> str:
    """``text`` with each scalar subquery ``(SELECT ...)`` (one not after FROM, JOIN, IN, EXISTS or AS) made to
    call ``many_rows()`` when it gives more than one row, which SQLite would cut to its first."""
    pieces, position = [], 0
    for found in SUBQUERY.finditer(text):
        if found.start() < position:
            continue
        end = closing(text, found.start() + 1)
        body = guard_scalars(text[found.start() + 1:end])
        scalar = NOT_SCALAR.search(text[:found.start()]) is None
        pieces += [text[position:found.start()], f"(CASE WHEN (SELECT COUNT(*) FROM ({body})) > 1 THEN many_rows() "
                   f"ELSE ({body}) END)" if scalar else f"({body})"]
        position = end + 1
    return "".join(pieces) + text[position:]


def many_rows():
    raise ValueError("a scalar subquery gave more than one row")


def top_level_items(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    items, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(text[start:index])
            start = index + 1
    return [*items, text[start:]]


def order_end(text: str, start: int) -> int:
    """Where the ORDER BY list from ``start`` ends: at the parenthesis closing its group, a LIMIT, OFFSET or a
    window frame, or the end."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth < 0 or depth == 0 and ORDER_END.match(text, index):
            return index
    return len(text)


def nulls_last(text: str) -> str:
    """``text`` with ``NULLS LAST`` after each ORDER BY item (of the query, a subquery or a window) that does
    not say where NULLs go."""
    pieces, position = [], 0
    for found in ORDER_BY.finditer(text):
        if found.start() < position:
            continue
        end = order_end(text, found.end())
        items = [item.strip() + ("" if "NULLS" in item.upper() else " NULLS LAST")
                 for item in top_level_items(text[found.end():end])]
        pieces += [text[position:found.end()], f" {', '.join(items)} "]
        position = end
    return "".join(pieces) + text[position:]


def run(database: sqlite3.Connection, query: str) -> tuple[list[str], list[list[str]]]:
    text = query.strip().rstrip(";").strip()
    if not re.match(r"(SELECT|WITH)\b", text, re.IGNORECASE):
        raise QueryError("only one SELECT statement (with a WITH clause or not) is allowed")
    if BACKWARD_FRAME.search(text):
        raise WindowError("a window frame ends before it starts")
    database.create_function("many_rows", 0, many_rows)
    try:
        cursor = database.execute(nulls_last(guard_scalars(
            DOTTED_TABLE.sub(lambda m: m[1] + m[2] + quoted(m[3]), text))))
        rows = cursor.fetchall()
    except (sqlite3.Error, sqlite3.Warning) as error:
        kind = next((kind for pattern, kind in ERRORS if pattern.search(str(error))), QueryError)
        raise kind(str(error)) from error
    return [column[0] for column in cursor.description], [[shown(value) for value in row] for row in rows]


def shown(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return format(value, ".15g")
    return str(value)


def markdown(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(text.replace("|", "\\|") for text in cells) + " |"
    return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)]) + "\n"


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description="Run one SQL query over a directory of data files.")
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--sql", required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--sharded", action="append", default=[], metavar="TABLE=GLOB")
    args = parser.parse_args()
    try:
        header, rows = run(load_directory(args.data, args.sharded), read_query(args.sql))
    except (QueryError, OSError, UnicodeDecodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return getattr(error, "code", 1)
    sys.stdout.write(markdown(header, rows))
    if args.out:
        write_csv(args.out, header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
