"""Apply a JSON migration file to an SQLite database: create tables, add and drop columns, record versions."""

import json
import re
import sqlite3
import sys

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TYPES = {"INTEGER", "TEXT", "REAL", "BLOB", "TIMESTAMP"}
REQUIRED = ("version", "description", "operations")
TRACKING = ("CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
            "applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")


class MigrationError(Exception):
    """A migration that cannot be applied; the message is printed after 'Error: '."""


def quoted(name):
    return '"' + name.replace('"', '""') + '"'


def identifier(name):
    if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
        raise MigrationError(f"invalid identifier: {json.dumps(name)}")
    return name


def column_sql(column):
    """The SQL definition of a column object, after checking it."""
    if not isinstance(column, dict) or "name" not in column or "type" not in column:
        raise MigrationError("invalid column: name and type are required")
    name, kind = identifier(column["name"]), column["type"]
    if kind not in TYPES:
        raise MigrationError(f"invalid column type: {json.dumps(kind)}")
    options = [("primary_key", "PRIMARY KEY"), ("auto_increment", "AUTOINCREMENT"), ("not_null", "NOT NULL"),
               ("unique", "UNIQUE")]
    parts = [quoted(name), kind] + [sql for key, sql in options if column.get(key)]
    default = column.get("default")
    return " ".join(parts + ([f"DEFAULT {default}"] if default is not None else []))


def columns_of(db, table):
    """PRAGMA table_info rows of ``table``: (cid, name, type, notnull, dflt_value, pk)."""
    return db.execute(f"PRAGMA table_info({quoted(table)})").fetchall()


def existing_table(db, table):
    if not columns_of(db, identifier(table)):
        raise MigrationError(f"table '{table}' does not exist")
    return table


def create_table(db, operation):
    table, columns = identifier(operation.get("table")), operation.get("columns")
    if not isinstance(columns, list):
        raise MigrationError("create_table needs a list of columns")
    definitions = [column_sql(column) for column in columns]
    if columns_of(db, table):
        raise MigrationError(f"table '{table}' already exists")
    db.execute(f"CREATE TABLE {quoted(table)} ({', '.join(definitions)})")
    return {"table": table}


def add_column(db, operation):
    table, column = existing_table(db, operation.get("table")), operation.get("column")
    definition = column_sql(column)
    if any(row[1] == column["name"] for row in columns_of(db, table)):
        raise MigrationError(f"column '{column['name']}' already exists in table '{table}'")
    db.execute(f"ALTER TABLE {quoted(table)} ADD COLUMN {definition}")
    return {"table": table, "column": column["name"]}


def kept_definition(row):
    """A column's definition rebuilt from its PRAGMA table_info row."""
    _, name, kind, notnull, default, pk = row
    parts = [quoted(name), kind] + (["PRIMARY KEY"] if pk else []) + (["NOT NULL"] if notnull else [])
    return " ".join(parts + ([f"DEFAULT {default}"] if default is not None else []))


def drop_column(db, operation):
    table, name = existing_table(db, operation.get("table")), identifier(operation.get("column"))
    rows = columns_of(db, table)
    dropped = next((row for row in rows if row[1] == name), None)
    if dropped is None:
        raise MigrationError(f"column '{name}' does not exist in table '{table}'")
    if dropped[5] or len(rows) == 1:
        raise MigrationError(f"cannot drop column '{name}': it is the primary key or the only column of '{table}'")
    kept = [row for row in rows if row[1] != name]
    names = ", ".join(quoted(row[1]) for row in kept)
    staging = quoted(f"_{table}_rebuild")
    db.execute(f"CREATE TABLE {staging} ({', '.join(map(kept_definition, kept))})")
    db.execute(f"INSERT INTO {staging} ({names}) SELECT {names} FROM {quoted(table)}")
    db.execute(f"DROP TABLE {quoted(table)}")
    db.execute(f"ALTER TABLE {staging} RENAME TO {quoted(table)}")
    return {"table": table, "column": name}


OPERATIONS = {"create_table": create_table, "add_column": add_column, "drop_column": drop_column}


def load(path):
    """The migration object of ``path``, its top-level fields checked."""
    try:
        with open(path, encoding="utf-8") as handle:
            migration = json.load(handle)
    except FileNotFoundError:
        raise MigrationError(f"migration file not found: {path}") from None
    except (ValueError, OSError) as error:
        raise MigrationError(f"invalid migration file: {error}") from None
    if not isinstance(migration, dict):
        raise MigrationError("invalid migration schema: not a JSON object")
    missing = next((field for field in REQUIRED if field not in migration), None)
    if missing:
        raise MigrationError(f"invalid migration schema: missing required field '{missing}'")
    version = migration["version"]
    if type(version) is not int or version <= 0:
        raise MigrationError("invalid migration schema: version must be a positive integer")
    if not isinstance(migration["description"], str):
        raise MigrationError("invalid migration schema: description must be a string")
    if not isinstance(migration["operations"], list):
        raise MigrationError("invalid migration schema: operations must be a list")
    return migration


def emit(event):
    print(json.dumps(event))


def apply(db, migration):
    version = migration["version"]
    for operation in migration["operations"]:
        kind = operation.get("type") if isinstance(operation, dict) else None
        if kind not in OPERATIONS:
            raise MigrationError(f"unknown operation type: {json.dumps(kind)}")
        emit({"event": "operation_applied", "type": kind, **OPERATIONS[kind](db, operation), "version": version})
    db.execute("INSERT INTO _migrations (version, description) VALUES (?, ?)",
               (version, migration["description"]))
    emit({"event": "migration_complete", "version": version, "operations_count": len(migration["operations"])})


def migrate(migration_path, database_path):
    migration = load(migration_path)
    db = sqlite3.connect(database_path, isolation_level=None)
    try:
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute(TRACKING)
        version = migration["version"]
        if db.execute("SELECT 1 FROM _migrations WHERE version = ?", (version,)).fetchone():
            print(f"Warning: Migration version {version} already applied, skipping", file=sys.stderr)
            emit({"event": "migration_skipped", "version": version, "reason": "already_applied"})
            return
        db.execute("BEGIN")
        apply(db, migration)
        db.execute("COMMIT")
    finally:
        db.close()


def main(argv):
    if len(argv) != 3 or argv[0] != "migrate":
        print("usage: migration_tool migrate <migration.json> <database.db>", file=sys.stderr)
        return 1
    try:
        migrate(argv[1], argv[2])
    except MigrationError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    except sqlite3.Error as error:
        print(f"Error: SQL error: {error}", file=sys.stderr)
        return 1
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
