"""Grade an output SQLite database: scbench runs the case's queries and statements itself (Python's
sqlite3), on copies of the files the step left, so the program graded never runs them and the graded
file never changes."""

from __future__ import annotations

import sqlite3
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from scbench.grade import structured
from scbench.grade.outputs import listed
from scbench.problem.model import Comparison, DatabaseExpectation, OutputExpectation, SqlQuery, SqlViolation
from scbench.results import Failure

SECONDS = 10.0
"""Seconds the statements on one connection to a database (its queries, or one violation with its setup) may take."""
PROGRESS_STEPS = 10_000
"""SQLite virtual-machine steps between two looks at the clock."""
MAX_ROWS = 100_000
"""Most rows a query may return; more is a failure (the expected rows are written in a case file)."""

CONSTRAINTS = {"any": ("SQLITE_CONSTRAINT", "a constraint error"),
               "not_null": ("SQLITE_CONSTRAINT_NOTNULL", "a NOT NULL constraint error"),
               "unique": ("SQLITE_CONSTRAINT_UNIQUE", "a UNIQUE constraint error"),
               "primary_key": ("SQLITE_CONSTRAINT_PRIMARYKEY", "a PRIMARY KEY constraint error"),
               "foreign_key": ("SQLITE_CONSTRAINT_FOREIGNKEY", "a FOREIGN KEY constraint error"),
               "check": ("SQLITE_CONSTRAINT_CHECK", "a CHECK constraint error")}
"""Constraint kind -> the prefix of the extended SQLite error name its violation raises, and its name in a
message."""


def _reason(error: sqlite3.Error) -> str:
    """SQLite's message, saying why an interrupted statement was."""
    return f"{error} (after {SECONDS:g} s)" if str(error) == "interrupted" else str(error)


def _copy(files: dict[str, bytes], path: Path) -> Path:
    """The database's files (suffix -> bytes) written as ``path`` and its sidecars; returns ``path``."""
    for suffix, data in files.items():
        path.with_name(path.name + suffix).write_bytes(data)
    return path


def _connect(path: Path, foreign_keys: bool, read_only: bool) -> sqlite3.Connection:
    """A connection in autocommit mode (each statement commits, a deferred constraint fails with it) to a file the
    solution wrote: the functions its views and triggers may call are only those without side effects
    (``trusted_schema`` off), and whatever runs on it is interrupted once the connection is :data:`SECONDS` old
    (a view that never ends fails, it does not stall the grader)."""
    connection = sqlite3.connect(path.as_uri() + ("?mode=ro" if read_only else ""), uri=True, isolation_level=None)
    deadline = time.monotonic() + SECONDS
    connection.set_progress_handler(lambda: time.monotonic() > deadline, PROGRESS_STEPS)
    connection.execute("PRAGMA trusted_schema = OFF")
    connection.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
    return connection


def _cell(item: Any) -> Any:
    """A column's value as the expected rows write it: a BLOB as the text ``X'0AFF'``."""
    return f"X'{item.hex().upper()}'" if isinstance(item, bytes) else item


def _comparison(query: SqlQuery) -> OutputExpectation:
    """The query's comparison options as the expectation of JSON Lines records (rows aligned as records)."""
    return OutputExpectation.model_validate({"format": "jsonl", **{name: getattr(query, name)
                                                                   for name in Comparison.model_fields}})


def _unusable(names: list[str], rows: list[tuple]) -> str | None:
    """Why a query's result cannot be compared as rows of objects (``None`` when it can)."""
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        return f"returns the column {', '.join(twice)} more than once: give each column its own name (AS)"
    return f"returns more than {MAX_ROWS} rows" if len(rows) > MAX_ROWS else None


def _query(number: int, query: SqlQuery, connection: sqlite3.Connection, target: str) -> Failure | None:
    try:
        cursor = connection.execute(query.sql)
        names, rows = [column[0] for column in cursor.description or ()], cursor.fetchmany(MAX_ROWS + 1)
    except sqlite3.Error as error:
        return Failure(target=target, message=f"query {number} fails: {_reason(error)}", diff=query.sql)
    if why := _unusable(names, rows):
        return Failure(target=target, message=f"query {number} {why}", diff=query.sql)
    actual = [{name: _cell(item) for name, item in zip(names, row, strict=True)} for row in rows]
    lines = structured.differences(query.rows, actual, _comparison(query))
    return listed(target, [f"query {number}: {line}" for line in lines], "differences")


def _setup(number: int, violation: SqlViolation, connection: sqlite3.Connection, target: str) -> Failure | None:
    for index, statement in enumerate(violation.setup, 1):
        try:
            connection.execute(statement)
        except sqlite3.Error as error:
            return Failure(target=target, message=f"violation {number}: setup statement {index} fails: "
                           f"{_reason(error)}", diff=statement)
    return None


def _violation(number: int, violation: SqlViolation, connection: sqlite3.Connection, target: str) -> Failure | None:
    prefix, wanted = CONSTRAINTS[violation.constraint]
    try:
        connection.execute(violation.sql)
    except sqlite3.Error as error:
        name = getattr(error, "sqlite_errorname", type(error).__name__)
        return None if name.startswith(prefix) else Failure(
            target=target, message=f"violation {number}: expected {wanted}, it fails with {_reason(error)} ({name})",
            diff=violation.sql)
    return Failure(target=target, message=f"violation {number}: expected {wanted}, the statement succeeds",
                   diff=violation.sql)


def _opens(path: Path, target: str) -> Failure | None:
    """``None`` when the copy at ``path`` opens as a database (a journal the program left is rolled back
    on the copy, as SQLite does when a program opens it)."""
    try:
        with closing(sqlite3.connect(path.as_uri(), uri=True)) as connection:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except sqlite3.Error as error:
        return Failure(target=target, message=f"does not open as an SQLite database: {error}")
    return None


def _violations(spec: DatabaseExpectation, files: dict[str, bytes], directory: Path, target: str) -> list[Failure]:
    failures = []
    for number, violation in enumerate(spec.violations, 1):
        copy = _copy(files, directory / f"violation-{number}.db")
        with closing(_connect(copy, spec.foreign_keys, read_only=False)) as connection:
            failure = _setup(number, violation, connection, target) or \
                _violation(number, violation, connection, target)
        failures += [failure] if failure else []
    return failures


def check_database(name: str, spec: DatabaseExpectation, files: dict[str, bytes] | None) -> list[Failure]:
    """Every failure of the database ``name`` (its files as the step left them, suffix -> bytes; ``None``
    when it was not created) against ``spec``: its queries on one read-only copy, each violation on a
    fresh writable copy. A file that does not open and a query or statement that errors are failures
    naming the database and SQLite's message."""
    target = f"database {name}"
    if files is None:
        return [Failure(target=target, message="was not created")]
    with tempfile.TemporaryDirectory(prefix="scbench-sqlite-") as directory:
        copy = _copy(files, Path(directory) / "queries.db")
        if failure := _opens(copy, target):
            return [failure]
        with closing(_connect(copy, spec.foreign_keys, read_only=True)) as connection:
            failures = [failure for number, query in enumerate(spec.queries, 1)
                        if (failure := _query(number, query, connection, target))]
        return failures + _violations(spec, files, Path(directory), target)
