'use strict';
// Apply a JSON migration file to an SQLite database: create tables, add and drop columns, change data, record
// versions; a migration is one transaction.
const fs = require('fs');
const initSqlJs = require('sql.js');

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TYPES = new Set(['INTEGER', 'TEXT', 'REAL', 'BLOB', 'TIMESTAMP']);
const REQUIRED = ['version', 'description', 'operations'];
const TRACKING = 'CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, ' +
  'applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)';
const OPTIONS = [['primary_key', 'PRIMARY KEY'], ['auto_increment', 'AUTOINCREMENT'], ['not_null', 'NOT NULL'],
  ['unique', 'UNIQUE']];

class MigrationError extends Error {}

const quoted = (name) => `"${name.replace(/"/g, '""')}"`;

function identifier(name) {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new MigrationError(`invalid identifier: ${JSON.stringify(name)}`);
  }
  return name;
}

const withDefault = (parts, value) => parts.concat(value === null || value === undefined ? [] : [`DEFAULT ${value}`]);

function columnSql(column) {
  if (column === null || typeof column !== 'object' || !('name' in column) || !('type' in column)) {
    throw new MigrationError('invalid column: name and type are required');
  }
  const name = identifier(column.name);
  if (!TYPES.has(column.type)) throw new MigrationError(`invalid column type: ${JSON.stringify(column.type)}`);
  const parts = [quoted(name), column.type].concat(OPTIONS.filter(([key]) => column[key]).map(([, sql]) => sql));
  return withDefault(parts, column.default).join(' ');
}

function columnsOf(db, table) {
  const result = db.exec(`PRAGMA table_info(${quoted(table)})`);
  return result.length ? result[0].values : [];
}

function existingTable(db, table) {
  if (!columnsOf(db, identifier(table)).length) throw new MigrationError(`table '${table}' does not exist`);
  return table;
}

function createTable(db, operation) {
  const table = identifier(operation.table);
  if (!Array.isArray(operation.columns)) throw new MigrationError('create_table needs a list of columns');
  const definitions = operation.columns.map(columnSql);
  if (columnsOf(db, table).length) throw new MigrationError(`table '${table}' already exists`);
  db.run(`CREATE TABLE ${quoted(table)} (${definitions.join(', ')})`);
  return { table };
}

function addColumn(db, operation) {
  const table = existingTable(db, operation.table);
  const column = operation.column;
  const definition = columnSql(column);
  if (columnsOf(db, table).some((row) => row[1] === column.name)) {
    throw new MigrationError(`column '${column.name}' already exists in table '${table}'`);
  }
  db.run(`ALTER TABLE ${quoted(table)} ADD COLUMN ${definition}`);
  return { table, column: column.name };
}

function keptDefinition([, name, type, notnull, dflt, pk]) {
  const parts = [quoted(name), type].concat(pk ? ['PRIMARY KEY'] : [], notnull ? ['NOT NULL'] : []);
  return withDefault(parts, dflt).join(' ');
}

function existingColumn(db, table, name) {
  if (!columnsOf(db, table).some((row) => row[1] === name)) {
    throw new MigrationError(`column '${name}' does not exist in table '${table}'`);
  }
  return name;
}

function dropColumn(db, operation) {
  const table = existingTable(db, operation.table);
  const name = existingColumn(db, table, identifier(operation.column));
  const rows = columnsOf(db, table);
  const dropped = rows.find((row) => row[1] === name);
  if (dropped[5] || rows.length === 1) {
    throw new MigrationError(`cannot drop column '${name}': it is the primary key or the only column of '${table}'`);
  }
  const kept = rows.filter((row) => row[1] !== name);
  const names = kept.map((row) => quoted(row[1])).join(', ');
  const staging = quoted(`_${table}_rebuild`);
  db.run(`CREATE TABLE ${staging} (${kept.map(keptDefinition).join(', ')})`);
  db.run(`INSERT INTO ${staging} (${names}) SELECT ${names} FROM ${quoted(table)}`);
  db.run(`DROP TABLE ${quoted(table)}`);
  db.run(`ALTER TABLE ${staging} RENAME TO ${quoted(table)}`);
  return { table, column: name };
}

// An SQL expression field: a string as written, a number as itself, null as NULL.
const expression = (value) => (value === null || value === undefined ? 'NULL'
  : typeof value === 'string' ? value : JSON.stringify(value));

function transformData(db, operation) {
  const table = existingTable(db, operation.table);
  const transformations = operation.transformations;
  if (!Array.isArray(transformations) || !transformations.length) {
    throw new MigrationError('transform_data needs a non-empty list of transformations');
  }
  for (const step of transformations) {
    if (step === null || typeof step !== 'object' || !('column' in step) || !('expression' in step)) {
      throw new MigrationError('a transformation needs a column and an expression');
    }
    const column = existingColumn(db, table, step.column);
    db.run(`UPDATE ${quoted(table)} SET ${quoted(column)} = ${expression(step.expression)}`);
  }
  return { table };
}

function migrateColumnData(db, operation) {
  const table = existingTable(db, operation.table);
  const [source, target] = [operation.from_column, operation.to_column].map((name) => existingColumn(db, table, name));
  const fallback = expression(operation.default_value);
  db.run(`UPDATE ${quoted(table)} SET ${quoted(target)} = coalesce(${quoted(source)}, ${fallback})`);
  return { table, from_column: source, to_column: target };
}

function backfillData(db, operation) {
  const table = existingTable(db, operation.table);
  const column = existingColumn(db, table, operation.column);
  if (!('value' in operation)) throw new MigrationError('backfill_data needs a value');
  const condition = operation.where ? ` WHERE ${operation.where}` : '';
  db.run(`UPDATE ${quoted(table)} SET ${quoted(column)} = ${expression(operation.value)}${condition}`);
  return { table, column };
}

const OPERATIONS = {
  create_table: createTable, add_column: addColumn, drop_column: dropColumn,
  transform_data: transformData, migrate_column_data: migrateColumnData, backfill_data: backfillData,
};

function readMigration(path) {
  let text;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') throw new MigrationError(`migration file not found: ${path}`);
    throw new MigrationError(`invalid migration file: ${error.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MigrationError(`invalid migration file: ${error.message}`);
  }
}

function load(path) {
  const migration = readMigration(path);
  if (migration === null || typeof migration !== 'object' || Array.isArray(migration)) {
    throw new MigrationError('invalid migration schema: not a JSON object');
  }
  const missing = REQUIRED.find((field) => !(field in migration));
  if (missing) throw new MigrationError(`invalid migration schema: missing required field '${missing}'`);
  if (!Number.isInteger(migration.version) || migration.version <= 0) {
    throw new MigrationError('invalid migration schema: version must be a positive integer');
  }
  if (typeof migration.description !== 'string') {
    throw new MigrationError('invalid migration schema: description must be a string');
  }
  if (!Array.isArray(migration.operations)) throw new MigrationError('invalid migration schema: operations must be a list');
  return migration;
}

const emit = (event) => process.stdout.write(JSON.stringify(event) + '\n');

// The events of applying the migration's operations and recording it (printed once it commits).
function apply(db, migration) {
  const version = migration.version;
  const events = migration.operations.map((operation) => {
    const kind = operation !== null && typeof operation === 'object' ? operation.type : undefined;
    if (!Object.hasOwn(OPERATIONS, kind)) throw new MigrationError(`unknown operation type: ${JSON.stringify(kind ?? null)}`);
    return { event: 'operation_applied', type: kind, ...OPERATIONS[kind](db, operation), version };
  });
  db.run('INSERT INTO _migrations (version, description) VALUES (?, ?)', [version, migration.description]);
  return events.concat([{ event: 'migration_complete', version, operations_count: migration.operations.length }]);
}

function migrateIn(db, migration) {
  db.run('PRAGMA foreign_keys = OFF');
  db.run(TRACKING);
  const version = migration.version;
  if (db.exec('SELECT 1 FROM _migrations WHERE version = ?', [version]).length) {
    process.stderr.write(`Warning: Migration version ${version} already applied, skipping\n`);
    emit({ event: 'migration_skipped', version, reason: 'already_applied' });
    return;
  }
  db.run('BEGIN');
  try {
    const events = apply(db, migration);
    db.run('COMMIT');
    events.forEach(emit);
  } catch (error) {
    db.run('ROLLBACK');
    throw error;
  }
}

async function migrate(migrationPath, databasePath) {
  const migration = load(migrationPath);
  const SQL = await initSqlJs();
  const db = fs.existsSync(databasePath) ? new SQL.Database(fs.readFileSync(databasePath)) : new SQL.Database();
  try {
    migrateIn(db, migration);
  } finally {
    fs.writeFileSync(databasePath, Buffer.from(db.export()));
    db.close();
  }
}

async function main(argv) {
  if (argv.length !== 3 || argv[0] !== 'migrate') {
    process.stderr.write('usage: migration_tool migrate <migration.json> <database.db>\n');
    return 1;
  }
  try {
    await migrate(argv[1], argv[2]);
  } catch (error) {
    process.stderr.write(error instanceof MigrationError ? `Error: ${error.message}\n` : `Error: SQL error: ${error.message}\n`);
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then((status) => { process.exitCode = status; });
