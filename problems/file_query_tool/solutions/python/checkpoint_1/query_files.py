"""query_files: one read-only SQL query over a directory of CSV files, printed as a markdown table.

The CSV files are loaded into an in-memory SQLite database (a table per file, named by its path), the
query runs there, and the result is printed on stdout (and written as CSV with --out).
NULLs sort last in every ORDER BY.
"""

from __future__ import annotations

import argparse
import csv
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


class QueryError(Exception):
    """A query or an input the tool cannot run; its message goes to stderr."""


def table_name(path: Path, root: Path) -> str:
    """``sales/returns.2024.csv`` -> ``sales.returns_2024``."""
    *folders, last = path.relative_to(root).parts
    return ".".join([*folders, last[: -len(".csv")].replace(".", "_")])


def column_type(values: list[str]) -> str:
    """INTEGER when every non-empty value is an integer, REAL when every one is a number, else TEXT."""
    filled = [value for value in values if value != ""]
    if filled and all(INTEGER.fullmatch(value) for value in filled):
        return "INTEGER"
    if filled and all(DECIMAL.fullmatch(value) for value in filled):
        return "REAL"
    return "TEXT"


CONVERT = {"INTEGER": int, "REAL": float, "TEXT": str}


def cell(value: str, kind: str):
    if kind != "TEXT" and value == "":
        return None
    return CONVERT[kind](value)


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def load_table(database: sqlite3.Connection, name: str, path: Path) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows or not any(field.strip() for field in rows[0]):
        raise QueryError(f"{path}: no header row")
    header, body = rows[0], rows[1:]
    body = [row + [""] * (len(header) - len(row)) for row in body]
    kinds = [column_type([row[index] for row in body]) for index in range(len(header))]
    columns = ", ".join(f"{quoted(column)} {kind}" for column, kind in zip(header, kinds, strict=True))
    database.execute(f"CREATE TABLE {quoted(name)} ({columns})")
    marks = ", ".join("?" * len(header))
    database.executemany(f"INSERT INTO {quoted(name)} VALUES ({marks})",
                         [[cell(value, kind) for value, kind in zip(row, kinds, strict=False)] for row in body])


def load_directory(root: Path) -> sqlite3.Connection:
    if not root.is_dir():
        raise QueryError(f"{root}: not a directory")
    database = sqlite3.connect(":memory:")
    database.execute("PRAGMA case_sensitive_like = ON")
    for path in sorted(root.rglob("*.csv")):
        if path.is_file():
            load_table(database, table_name(path, root), path)
    return database


def read_query(argument: str) -> str:
    """The text of the file ``argument`` names, else ``argument`` itself (a query longer than a file name too)."""
    return Path(argument).read_text(encoding="utf-8") if os.path.isfile(argument) else argument


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
    if not re.match(r"SELECT\b", text, re.IGNORECASE):
        raise QueryError("only one SELECT statement is allowed")
    try:
        cursor = database.execute(nulls_last(DOTTED_TABLE.sub(lambda m: m[1] + m[2] + quoted(m[3]), text)))
        rows = cursor.fetchall()
    except (sqlite3.Error, sqlite3.Warning) as error:
        raise QueryError(str(error)) from error
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
    parser = argparse.ArgumentParser(description="Run one SQL query over a directory of CSV files.")
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--sql", required=True)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    try:
        header, rows = run(load_directory(args.data), read_query(args.sql))
    except (QueryError, OSError, UnicodeDecodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(markdown(header, rows))
    if args.out:
        write_csv(args.out, header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
