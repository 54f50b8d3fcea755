"""Apply a JSON migration file to an SQLite database: create tables, add and drop columns, change data, manage
foreign keys, indexes and check constraints, record versions with their operations; roll migrations back; a
migration or a rollback is one transaction."""

import json
import re
import sqlite3
import sys

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TYPES = {"INTEGER", "TEXT", "REAL", "BLOB", "TIMESTAMP"}
REQUIRED = ("version", "description", "operations")
TRACKING = ("CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
            "applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, operations TEXT NOT NULL)")
USAGE = ("usage: migration_tool migrate <migration.json> <database.db>\n"
         "       migration_tool rollback <database.db> [--to-version <version> | --count <n>]")


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


def table_sql(db, table):
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
    return row[0]


def split_top_level(body):
    """The comma-separated parts of a CREATE TABLE body, ignoring commas inside brackets and quotes."""
    parts, depth, quote, current = [], 0, None, []
    closing = {'"': '"', "'": "'", "`": "`", "[": "]"}
    for char in body:
        if quote:
            quote = None if char == quote else quote
        elif char in closing:
            quote = closing[char]
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    return parts + ["".join(current).strip()]


def table_parts(db, table):
    """The column definitions and table constraints of ``table``, as written in its CREATE TABLE statement."""
    sql = table_sql(db, table)
    return split_top_level(sql[sql.index("(") + 1:sql.rindex(")")])


CONSTRAINT_WORDS = ("CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN")
NAMED = re.compile(r'CONSTRAINT\s+("(?:[^"]|"")*"|\w+)\s+(FOREIGN\s+KEY|CHECK)\b', re.IGNORECASE)


def unquoted(token):
    if token[:1] in '"`[':
        return token[1:-1].replace('""', '"')
    return token


def part_column(part):
    """The column a definition defines, or None for a table constraint."""
    match = re.match(r'("(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|\S+)', part)
    token = match.group(1)
    return None if token.upper() in CONSTRAINT_WORDS else unquoted(token)


def named_constraint(part):
    """(name, kind) of a named FOREIGN KEY or CHECK table constraint ('foreign_key' or 'check'), else None."""
    match = NAMED.match(part)
    if not match:
        return None
    return unquoted(match.group(1)), "check" if match.group(2).upper() == "CHECK" else "foreign_key"


def mentions(part, column):
    return re.search(rf'(?<![\w"]){re.escape(column)}(?![\w"])|"{re.escape(column)}"', part) is not None


def rebuild(db, table, parts, dropped=None):
    """Recreate ``table`` from ``parts`` under its own name, keeping its rows and its indexes (but those on
    ``dropped``)."""
    indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
                         "AND sql IS NOT NULL", (table,)).fetchall()
    kept_indexes = [sql for name, sql in indexes
                    if dropped not in (row[2] for row in db.execute(f"PRAGMA index_info({quoted(name)})"))]
    names = ", ".join(quoted(row[1]) for row in columns_of(db, table) if row[1] != dropped)
    staging = quoted(f"_{table}_rebuild")
    db.execute(f"CREATE TABLE {staging} ({', '.join(parts)})")
    db.execute(f"INSERT INTO {staging} ({names}) SELECT {names} FROM {quoted(table)}")
    db.execute(f"DROP TABLE {quoted(table)}")
    db.execute(f"ALTER TABLE {staging} RENAME TO {quoted(table)}")
    for sql in kept_indexes:
        db.execute(sql)


def remove_column(db, table, name):
    """Rebuild ``table`` without its column ``name`` and the table constraints and indexes naming it."""
    rows = columns_of(db, table)
    dropped = next(row for row in rows if row[1] == name)
    if dropped[5] or len(rows) == 1:
        raise MigrationError(f"cannot drop column '{name}': it is the primary key or the only column of '{table}'")
    parts = [part for part in table_parts(db, table)
             if part_column(part) != name and (part_column(part) is not None or not mentions(part, name))]
    rebuild(db, table, parts, dropped=name)


def drop_column(db, operation):
    table = existing_table(db, operation.get("table"))
    name = existing_column(db, table, identifier(operation.get("column")))
    remove_column(db, table, name)
    return {"table": table, "column": name}


def expression(value):
    """An SQL expression field: a string as written, a number as itself, null as NULL."""
    return "NULL" if value is None else value if isinstance(value, str) else json.dumps(value)


def existing_column(db, table, name):
    if not any(row[1] == name for row in columns_of(db, table)):
        raise MigrationError(f"column '{name}' does not exist in table '{table}'")
    return name


def transform_data(db, operation):
    table, transformations = existing_table(db, operation.get("table")), operation.get("transformations")
    if not isinstance(transformations, list) or not transformations:
        raise MigrationError("transform_data needs a non-empty list of transformations")
    for step in transformations:
        if not isinstance(step, dict) or "column" not in step or "expression" not in step:
            raise MigrationError("a transformation needs a column and an expression")
        column = existing_column(db, table, step["column"])
        db.execute(f"UPDATE {quoted(table)} SET {quoted(column)} = {expression(step['expression'])}")
    return {"table": table}


def migrate_column_data(db, operation):
    table = existing_table(db, operation.get("table"))
    source, target = (existing_column(db, table, operation.get(key)) for key in ("from_column", "to_column"))
    fallback = expression(operation.get("default_value"))
    db.execute(f"UPDATE {quoted(table)} SET {quoted(target)} = coalesce({quoted(source)}, {fallback})")
    return {"table": table, "from_column": source, "to_column": target}


def backfill_data(db, operation):
    table = existing_table(db, operation.get("table"))
    column = existing_column(db, table, operation.get("column"))
    if "value" not in operation:
        raise MigrationError("backfill_data needs a value")
    condition = f" WHERE {operation['where']}" if operation.get("where") else ""
    db.execute(f"UPDATE {quoted(table)} SET {quoted(column)} = {expression(operation['value'])}{condition}")
    return {"table": table, "column": column}


ACTIONS = ("CASCADE", "RESTRICT", "SET NULL", "NO ACTION", "SET DEFAULT")


def identifiers(value, what):
    if not isinstance(value, list) or not value:
        raise MigrationError(f"{what} must be a non-empty list of column names")
    return [identifier(name) for name in value]


def unused_constraint_name(db, table, name):
    if any((named_constraint(part) or (None,))[0] == name for part in table_parts(db, table)):
        raise MigrationError(f"constraint '{name}' already exists on table '{table}'")


def referenced_tables(db):
    """Each table's set of the tables its foreign keys refer to."""
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                           "AND name NOT LIKE 'sqlite_%'")]
    return {table: {row[2] for row in db.execute(f"PRAGMA foreign_key_list({quoted(table)})")} for table in tables}


def reference_path(graph, start, goal, seen=None):
    """A list of tables leading from ``start`` to ``goal`` along foreign keys, or None."""
    if start == goal:
        return [goal]
    seen = seen if seen is not None else set()
    seen.add(start)
    for parent in sorted(graph.get(start, ())):
        if parent not in seen:
            path = reference_path(graph, parent, goal, seen)
            if path:
                return [start] + path
    return None


def check_no_cycle(db, table, parent):
    path = reference_path(referenced_tables(db), parent, table)
    if path:
        raise MigrationError(f"circular foreign key dependency: {' -> '.join([table] + path)}")


def check_reference(db, table, columns, references):
    """The referenced table and columns of a foreign key, after checking them against ``table``'s ``columns``."""
    if not isinstance(references, dict):
        raise MigrationError("add_foreign_key needs references with a table and columns")
    parent = identifier(references.get("table"))
    parent_columns = identifiers(references.get("columns"), "references.columns")
    if len(parent_columns) != len(columns):
        raise MigrationError("foreign key column count must match the referenced column count")
    if not columns_of(db, parent):
        raise MigrationError(f"cannot add foreign key: referenced table '{parent}' does not exist")
    own = {row[1]: row[2] for row in columns_of(db, table)}
    theirs = {row[1]: row[2] for row in columns_of(db, parent)}
    for column, target in zip(columns, parent_columns, strict=True):
        existing_column(db, table, column)
        if target not in theirs:
            raise MigrationError(f"cannot add foreign key: referenced column '{parent}.{target}' does not exist")
        if own[column].upper() != theirs[target].upper():
            raise MigrationError(f"cannot add foreign key: '{table}.{column}' is {own[column]} but "
                                 f"'{parent}.{target}' is {theirs[target]}")
    return parent, parent_columns


def action_clauses(operation):
    clauses = []
    for key, clause in (("on_delete", "ON DELETE"), ("on_update", "ON UPDATE")):
        action = operation.get(key)
        if action is None:
            continue
        if action not in ACTIONS:
            raise MigrationError(f"invalid {key} action: {json.dumps(action)}")
        clauses.append(f" {clause} {action}")
    return "".join(clauses)


def add_foreign_key(db, operation):
    table = existing_table(db, operation.get("table"))
    name = identifier(operation.get("name"))
    columns = identifiers(operation.get("columns"), "columns")
    parent, parent_columns = check_reference(db, table, columns, operation.get("references"))
    actions = action_clauses(operation)
    unused_constraint_name(db, table, name)
    check_no_cycle(db, table, parent)
    clause = (f"CONSTRAINT {quoted(name)} FOREIGN KEY ({', '.join(map(quoted, columns))}) "
              f"REFERENCES {quoted(parent)} ({', '.join(map(quoted, parent_columns))}){actions}")
    rebuild(db, table, table_parts(db, table) + [clause])
    return {"table": table, "name": name}


def drop_named(db, operation, kind, what):
    """Rebuild the operation's table without its named constraint of ``kind``."""
    table = existing_table(db, operation.get("table"))
    name = identifier(operation.get("name"))
    parts = table_parts(db, table)
    kept = [part for part in parts if named_constraint(part) != (name, kind)]
    if len(kept) == len(parts):
        raise MigrationError(f"{what} '{name}' does not exist on table '{table}'")
    rebuild(db, table, kept)
    return {"table": table, "name": name}


def drop_foreign_key(db, operation):
    return drop_named(db, operation, "foreign_key", "foreign key constraint")


def add_check_constraint(db, operation):
    table = existing_table(db, operation.get("table"))
    name = identifier(operation.get("name"))
    condition = operation.get("expression")
    if not isinstance(condition, str) or not condition.strip():
        raise MigrationError("add_check_constraint needs a non-empty expression")
    unused_constraint_name(db, table, name)
    rebuild(db, table, table_parts(db, table) + [f"CONSTRAINT {quoted(name)} CHECK ({condition})"])
    return {"table": table, "name": name}


def drop_check_constraint(db, operation):
    return drop_named(db, operation, "check", "check constraint")


def index_table(db, name):
    row = db.execute("SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone()
    return row and row[0]


def create_index(db, operation):
    name = identifier(operation.get("name"))
    table = existing_table(db, operation.get("table"))
    columns = [existing_column(db, table, column) for column in identifiers(operation.get("columns"), "columns")]
    unique = operation.get("unique", False)
    if index_table(db, name):
        raise MigrationError(f"index '{name}' already exists")
    if unique:
        nullable = [row[1] for row in columns_of(db, table) if row[1] in columns and not (row[3] or row[5])]
        if nullable:
            raise MigrationError(f"cannot create unique index '{name}': column '{nullable[0]}' may be NULL")
    db.execute(f"CREATE {'UNIQUE ' if unique else ''}INDEX {quoted(name)} ON {quoted(table)} "
               f"({', '.join(map(quoted, columns))})")
    return {"name": name, "table": table}


def drop_index(db, operation):
    name = identifier(operation.get("name"))
    table = index_table(db, name)
    if not table:
        raise MigrationError(f"index '{name}' does not exist")
    db.execute(f"DROP INDEX {quoted(name)}")
    return {"name": name, "table": table}


def check_foreign_keys(db):
    violation = db.execute("PRAGMA foreign_key_check").fetchone()
    if violation:
        raise MigrationError(f"foreign key violation: referenced row in '{violation[2]}' table does not exist")


OPERATIONS = {"create_table": create_table, "add_column": add_column, "drop_column": drop_column,
              "transform_data": transform_data, "migrate_column_data": migrate_column_data,
              "backfill_data": backfill_data, "add_foreign_key": add_foreign_key,
              "drop_foreign_key": drop_foreign_key, "create_index": create_index, "drop_index": drop_index,
              "add_check_constraint": add_check_constraint, "drop_check_constraint": drop_check_constraint}


def column_definition(db, operation):
    """The column object of the column a drop_column operation is about to drop, or None."""
    table, name = operation.get("table"), operation.get("column")
    row = next((row for row in columns_of(db, str(table)) if row[1] == name), None)
    if row is None:
        return None
    unique = any(origin == "u" and [info[2] for info in db.execute(f"PRAGMA index_info({quoted(index)})")] == [name]
                 for _, index, _, origin, _ in db.execute(f"PRAGMA index_list({quoted(table)})"))
    return {"name": name, "type": row[2], "not_null": bool(row[3]), "default": row[4], "primary_key": bool(row[5]),
            "unique": unique}


def index_definition(db, operation):
    """The definition of the index a drop_index operation is about to drop, or None."""
    name = operation.get("name")
    table = index_table(db, str(name))
    if not table:
        return None
    unique = db.execute("SELECT \"unique\" FROM pragma_index_list(?) WHERE name = ?", (table, name)).fetchone()[0]
    columns = [row[2] for row in db.execute(f"PRAGMA index_info({quoted(name)})")]
    return {"name": name, "table": table, "columns": columns, "unique": bool(unique)}


def constraint_text(kind):
    def definition(db, operation):
        """The table constraint a drop operation is about to remove, as written in the table, or None."""
        table = operation.get("table")
        if not isinstance(table, str) or not columns_of(db, table):
            return None
        return next((part for part in table_parts(db, table)
                     if named_constraint(part) == (operation.get("name"), kind)), None)
    return definition


ORIGINALS = {"drop_column": column_definition, "drop_index": index_definition,
             "drop_foreign_key": constraint_text("foreign_key"), "drop_check_constraint": constraint_text("check")}


def record_of(db, operation):
    """The operation as recorded in _migrations: a drop keeps what it removes, for its rollback."""
    original = ORIGINALS.get(operation["type"])
    if not original:
        return operation
    definition = original(db, operation)
    extra = {"table": definition["table"]} if operation["type"] == "drop_index" and definition else {}
    return {**operation, **extra, "original_definition": definition}


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
    if not isinstance(migration.get("rollback_operations", []), list):
        raise MigrationError("invalid migration schema: rollback_operations must be a list")
    return migration


def emit(event):
    print(json.dumps(event))


def run_operation(db, operation):
    """Apply one operation; the fields of its event."""
    kind = operation.get("type") if isinstance(operation, dict) else None
    if kind not in OPERATIONS:
        raise MigrationError(f"unknown operation type: {json.dumps(kind)}")
    fields = OPERATIONS[kind](db, operation)
    check_foreign_keys(db)
    return fields


def apply(db, migration):
    """The events of applying ``migration``'s operations and recording it (printed by the caller once it commits)."""
    version, events, records = migration["version"], [], []
    for operation in migration["operations"]:
        record = record_of(db, operation) if isinstance(operation, dict) and operation.get("type") in ORIGINALS \
            else operation
        fields = run_operation(db, operation)
        records.append(record)
        events.append({"event": "operation_applied", "type": operation["type"], **fields, "version": version})
    explicit = migration.get("rollback_operations")
    stored = {"operations": records, "rollback_operations": explicit} if explicit else records
    db.execute("INSERT INTO _migrations (version, description, operations) VALUES (?, ?, ?)",
               (version, migration["description"], json.dumps(stored)))
    return events + [{"event": "migration_complete", "version": version,
                      "operations_count": len(migration["operations"])}]


def open_tracked(database_path):
    """A connection to the database in autocommit mode, its _migrations table ready."""
    db = sqlite3.connect(database_path, isolation_level=None)
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute(TRACKING)
    if not any(row[1] == "operations" for row in columns_of(db, "_migrations")):
        db.execute("ALTER TABLE _migrations ADD COLUMN operations TEXT NOT NULL DEFAULT '[]'")
    return db


def migrate(migration_path, database_path):
    migration = load(migration_path)
    db = open_tracked(database_path)
    try:
        version = migration["version"]
        if db.execute("SELECT 1 FROM _migrations WHERE version = ?", (version,)).fetchone():
            print(f"Warning: Migration version {version} already applied, skipping", file=sys.stderr)
            emit({"event": "migration_skipped", "version": version, "reason": "already_applied"})
            return
        db.execute("BEGIN")
        events = apply(db, migration)
        db.execute("COMMIT")
        for event in events:
            emit(event)
    finally:
        db.close()


# Rollback


def undo_create_table(db, operation):
    table = existing_table(db, operation.get("table"))
    for child, parents in referenced_tables(db).items():
        if table in parents and child != table:
            raise MigrationError(f"cannot rollback: foreign key constraint violation: table '{child}' refers to "
                                 f"'{table}'")
    db.execute(f"DROP TABLE {quoted(table)}")
    return {"table": table}


def undo_add_column(db, operation):
    table = existing_table(db, operation.get("table"))
    name = existing_column(db, table, (operation.get("column") or {}).get("name"))
    for _, index, *_ in db.execute(f"PRAGMA index_list({quoted(table)})").fetchall():
        if name in (row[2] for row in db.execute(f"PRAGMA index_info({quoted(index)})")):
            raise MigrationError(f"cannot rollback: index '{index}' depends on column '{table}.{name}'")
    if any(row[3] == name for row in db.execute(f"PRAGMA foreign_key_list({quoted(table)})")):
        raise MigrationError(f"cannot rollback: a foreign key of '{table}' depends on column '{name}'")
    remove_column(db, table, name)
    return {"table": table, "column": name}


def undo_drop_column(db, operation):
    table = existing_table(db, operation.get("table"))
    column = operation["original_definition"]
    if any(row[1] == column["name"] for row in columns_of(db, table)):
        raise MigrationError(f"column '{column['name']}' already exists in table '{table}'")
    restored = {key: column.get(key) for key in ("name", "type", "not_null", "unique", "default")}
    rebuild(db, table, table_parts(db, table) + [column_sql(restored)])
    return {"table": table, "column": column["name"]}


def undo_drop_constraint(db, operation):
    table = existing_table(db, operation.get("table"))
    unused_constraint_name(db, table, operation["name"])
    rebuild(db, table, table_parts(db, table) + [operation["original_definition"]])
    return {"table": table, "name": operation["name"]}


def undo_drop_index(db, operation):
    original = operation["original_definition"]
    return create_index(db, {"name": original["name"], "table": original["table"], "columns": original["columns"],
                             "unique": original.get("unique", False)})


def undo_migrate_column_data(db, operation):
    return migrate_column_data(db, {**operation, "from_column": operation.get("to_column"),
                                    "to_column": operation.get("from_column")})


UNDO = {"create_table": undo_create_table, "add_column": undo_add_column, "drop_column": undo_drop_column,
        "add_foreign_key": drop_foreign_key, "drop_foreign_key": undo_drop_constraint,
        "create_index": drop_index, "drop_index": undo_drop_index,
        "add_check_constraint": drop_check_constraint, "drop_check_constraint": undo_drop_constraint,
        "migrate_column_data": undo_migrate_column_data}


def undo_steps(version, stored):
    """(function, operation) pairs that roll back one recorded migration, in order."""
    if isinstance(stored, dict) and stored.get("rollback_operations"):
        return [(run_operation, operation) for operation in stored["rollback_operations"]]
    operations = stored.get("operations", []) if isinstance(stored, dict) else stored
    steps = []
    for operation in reversed(operations):
        kind = operation.get("type")
        if kind not in UNDO:
            raise MigrationError(f"cannot rollback version {version}: missing rollback_operations for {kind}")
        if kind in ORIGINALS and not operation.get("original_definition"):
            raise MigrationError(f"cannot rollback version {version}: missing original_definition for {kind}")
        steps.append((UNDO[kind], operation))
    return steps


def roll_back(db, version, description, stored):
    """The events of rolling back one recorded migration."""
    events = [{"event": "rollback_started", "version": version, "description": description}]
    for undo, operation in undo_steps(version, json.loads(stored)):
        try:
            fields = undo(db, operation)
        except MigrationError as error:
            if str(error).startswith("cannot rollback"):
                raise
            raise MigrationError(f"rollback failed: {error}") from None
        try:
            check_foreign_keys(db)
        except MigrationError as error:
            raise MigrationError(f"cannot rollback: foreign key constraint violation: {error}") from None
        events.append({"event": "operation_rolled_back", "type": operation["type"], **fields, "version": version})
    db.execute("DELETE FROM _migrations WHERE version = ?", (version,))
    return events + [{"event": "rollback_complete", "version": version}]


def chosen(applied, to_version, count):
    """The applied (version, description, operations) rows to roll back, highest version first."""
    if to_version is not None:
        if to_version not in [row[0] for row in applied]:
            raise MigrationError(f"version {to_version} not found")
        rows = [row for row in applied if row[0] > to_version]
    else:
        rows = applied[-count:] if count else []
    if not rows:
        raise MigrationError("no migrations to rollback")
    return rows[::-1]


def rollback(database_path, to_version, count):
    db = open_tracked(database_path)
    try:
        applied = db.execute("SELECT version, description, operations FROM _migrations ORDER BY version").fetchall()
        rows = chosen(applied, to_version, count)
        db.execute("BEGIN")
        events = []
        for version, description, stored in rows:
            events += roll_back(db, version, description, stored)
        db.execute("COMMIT")
        remaining = [row[0] for row in applied if row not in rows]
        events.append({"event": "rollback_finished", "versions_rolled_back": [row[0] for row in rows],
                       "final_version": max(remaining, default=0)})
        for event in events:
            emit(event)
    finally:
        db.close()


def rollback_options(argv):
    """(database, to_version, count) of a rollback command line; ValueError when it is not one."""
    database, to_version, count, rest = None, None, None, list(argv)
    while rest:
        argument = rest.pop(0)
        if argument in ("--to-version", "--count") and rest:
            value = int(rest.pop(0))
            if argument == "--count":
                count = value
            else:
                to_version = value
        elif database is None and not argument.startswith("--"):
            database = argument
        else:
            raise ValueError(argument)
    if database is None or (to_version is not None and count is not None) or (count is not None and count < 1):
        raise ValueError(argv)
    return database, to_version, 1 if count is None and to_version is None else count


def dispatch(argv):
    """Run the command of ``argv``; False when it is not a command line the tool knows."""
    if len(argv) == 3 and argv[0] == "migrate":
        migrate(argv[1], argv[2])
        return True
    if argv[:1] == ["rollback"]:
        try:
            options = rollback_options(argv[1:])
        except ValueError:
            return False
        rollback(*options)
        return True
    return False


def main(argv):
    try:
        if not dispatch(argv):
            print(USAGE, file=sys.stderr)
            return 1
    except MigrationError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    except sqlite3.Error as error:
        kind = "check constraint violation" if str(error).startswith("CHECK constraint failed") else "SQL error"
        print(f"Error: {kind}: {error}", file=sys.stderr)
        return 1
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
