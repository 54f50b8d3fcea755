'use strict';
// query_files: one read-only SQL query over a directory of data files, printed as a markdown table.
// CSV, TSV, JSON, JSON Lines and Parquet files (each possibly gzip- or bzip2-compressed) are loaded into an
// in-memory SQLite database (sql.js), a table per name, the files of one name concatenated in path order;
// the query runs there with NULLs sorted last in every ORDER BY, and the result goes to stdout (and --out).
// Integers stay exact: JSON numbers are read losslessly, SQLite integers come back as BigInt.

const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { parse } = require('csv-parse/sync');
const losslessJson = require('lossless-json');
const Bunzip = require('seek-bzip');
const initSqlJs = require('sql.js');

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DOTTED_TABLE = /\b(FROM|JOIN)(\s+)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)/gi;
const ORDER_BY = /\bORDER\s+BY\b/gi;
const ORDER_END = /^(LIMIT|OFFSET)\b/i;
const DATA_FILE = /^(.+)\.(csv|tsv|json|jsonl|parquet)(?:\.(gz|bz2))?$/;

class QueryError extends Error {}

function options(argv) {
  const known = { '--data': 'data', '--sql': 'sql', '--out': 'out' };
  const found = {};
  for (let index = 0; index < argv.length; index += 2) {
    if (!(argv[index] in known) || index + 1 >= argv.length) {
      throw new QueryError(`usage: --data DIR --sql QUERY [--out FILE] (at ${argv[index]})`);
    }
    found[known[argv[index]]] = argv[index + 1];
  }
  if (found.data === undefined || found.sql === undefined) {
    throw new QueryError('--data and --sql are required');
  }
  return found;
}

function dataFiles(root) {
  const found = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) found.push(...dataFiles(full));
    else if (entry.isFile() && DATA_FILE.test(entry.name)) found.push(full);
  }
  return found;
}

function tableName(file, root) {
  const parts = path.relative(root, file).split(path.sep);
  const stem = DATA_FILE.exec(parts.pop())[1];
  return [...parts, stem.replace(/\./g, '_')].join('.');
}

function delimited(delimiter) {
  return (text, file) => {
    const rows = parse(text, { delimiter, relax_column_count: true, relax_quotes: true });
    if (!rows.length || !rows[0].some((field) => field.trim())) throw new QueryError(`${file}: no header row`);
    const [header, ...body] = rows;
    return { header, rows: body.map((row) => header.map((_, index) => row[index] ?? '')) };
  };
}

function exact(value) {
  if (!losslessJson.isLosslessNumber(value)) return value;
  return INTEGER.test(value.value) ? BigInt(value.value) : Number(value.value);
}

function parseJson(text, file) {
  try {
    return losslessJson.parse(text);
  } catch (error) {
    throw new QueryError(`${file}: not valid JSON: ${error.message}`);
  }
}

function records(objects, file) {
  if (!objects.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item))) {
    throw new QueryError(`${file}: every record must be a JSON object`);
  }
  const header = [...new Set(objects.flatMap((item) => Object.keys(item)))];
  return { header, rows: objects.map((item) => header.map((column) => exact(item[column] ?? null))) };
}

function readJson(text, file) {
  const document = parseJson(text, file);
  if (Array.isArray(document)) return records(document, file);
  const columns = document !== null && typeof document === 'object' ? Object.values(document) : [];
  if (!columns.length || !columns.every(Array.isArray)) {
    throw new QueryError(`${file}: a JSON table is an array of objects or an object of equal-length arrays`);
  }
  if (new Set(columns.map((values) => values.length)).size > 1) {
    throw new QueryError(`${file}: the column arrays have different lengths`);
  }
  return { header: Object.keys(document), rows: columns[0].map((_, index) => columns.map((values) => exact(values[index]))) };
}

function readJsonl(text, file) {
  return records(text.split('\n').filter((line) => line.trim()).map((line) => parseJson(line, file)), file);
}

async function readParquet(raw, file) {
  const { parquetMetadata, parquetReadObjects } = await import('hyparquet');
  const buffer = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
  let metadata;
  try {
    metadata = parquetMetadata(buffer);
  } catch (error) {
    throw new QueryError(`${file}: not a valid Parquet file: ${error.message}`);
  }
  const header = metadata.schema.slice(1).map((element) => element.name);
  const objects = await parquetReadObjects({ file: buffer });
  return { header, rows: objects.map((item) => header.map((column) => item[column] ?? null)) };
}

const READERS = {
  csv: delimited(','), tsv: delimited('\t'), json: readJson, jsonl: readJsonl, parquet: readParquet,
};
const OPENERS = { gz: (raw) => zlib.gunzipSync(raw), bz2: (raw) => Bunzip.decode(raw) };

async function readFile(file) {
  const [, , format, compression] = DATA_FILE.exec(path.basename(file));
  let raw;
  try {
    raw = compression ? OPENERS[compression](fs.readFileSync(file)) : fs.readFileSync(file);
  } catch (error) {
    throw new QueryError(`${file}: cannot be decompressed: ${error.message}`);
  }
  return READERS[format](format === 'parquet' ? raw : raw.toString('utf8'), file);
}

const isInteger = (value) => typeof value === 'bigint' || Number.isInteger(value)
  || (typeof value === 'string' && INTEGER.test(value));
const isNumber = (value) => typeof value === 'bigint' || typeof value === 'number'
  || (typeof value === 'string' && DECIMAL.test(value));

function columnType(values) {
  const filled = values.filter((value) => value !== '' && value !== null);
  if (filled.length && filled.every(isInteger)) return 'INTEGER';
  if (filled.length && filled.every(isNumber)) return 'REAL';
  return 'TEXT';
}

const quoted = (name) => `"${name.replace(/"/g, '""')}"`;

function cell(value, kind) {
  if (value === null || (kind !== 'TEXT' && value === '')) return null;
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

async function loadTable(database, name, files) {
  let header = null;
  const rows = [];
  for (const file of files.sort()) {
    const table = await readFile(file);
    if (header !== null && table.header.join('\u0000') !== header.join('\u0000')) {
      throw new QueryError(`${file}: its columns differ from those of another file of table ${name}`);
    }
    header = table.header;
    rows.push(...table.rows);
  }
  const kinds = header.map((_, index) => columnType(rows.map((row) => row[index])));
  database.run(`CREATE TABLE ${quoted(name)} (${header.map((column, index) => `${quoted(column)} ${kinds[index]}`).join(', ')})`);
  const insert = database.prepare(`INSERT INTO ${quoted(name)} VALUES (${header.map(() => '?').join(', ')})`);
  for (const row of rows) insert.run(row.map((value, index) => cell(value, kinds[index])));
  insert.free();
}

function topLevelItems(text) {
  const items = [];
  let depth = 0;
  let start = 0;
  [...text].forEach((char, index) => {
    depth += char === '(' ? 1 : char === ')' ? -1 : 0;
    if (char === ',' && depth === 0) {
      items.push(text.slice(start, index));
      start = index + 1;
    }
  });
  return [...items, text.slice(start)];
}

function orderEnd(text, start) {
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    depth += text[index] === '(' ? 1 : text[index] === ')' ? -1 : 0;
    const boundary = !/\w/.test(text[index - 1] ?? '');
    if (depth < 0 || (depth === 0 && boundary && ORDER_END.test(text.slice(index)))) return index;
  }
  return text.length;
}

function nullsLast(text) {
  let result = '';
  let position = 0;
  for (const found of text.matchAll(ORDER_BY)) {
    if (found.index < position) continue;
    const begin = found.index + found[0].length;
    const end = orderEnd(text, begin);
    const items = topLevelItems(text.slice(begin, end))
      .map((item) => item.trim() + (/NULLS/i.test(item) ? '' : ' NULLS LAST'));
    result += `${text.slice(position, begin)} ${items.join(', ')} `;
    position = end;
  }
  return result + text.slice(position);
}

function shown(value) {
  if (value === null) return 'NULL';
  if (typeof value === 'number' && !Number.isInteger(value)) return String(Number(value.toPrecision(15)));
  return String(value);
}

function run(database, query) {
  const text = query.trim().replace(/;\s*$/, '').trim();
  if (!/^SELECT\b/i.test(text)) throw new QueryError('only one SELECT statement is allowed');
  let statement;
  try {
    statement = database.prepare(nullsLast(text.replace(DOTTED_TABLE, (_, word, space, name) => word + space + quoted(name))));
    const rows = [];
    while (statement.step()) rows.push(statement.get(null, { useBigInt: true }).map(shown));
    return { header: statement.getColumnNames(), rows };
  } catch (error) {
    throw new QueryError(error.message);
  } finally {
    statement?.free();
  }
}

function markdown(header, rows) {
  const line = (cells) => `| ${cells.map((text) => text.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n') + '\n';
}

function csvText(header, rows) {
  const field = (text) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\n') + '\n';
}

function readQuery(argument) {
  try {
    return fs.statSync(argument).isFile() ? fs.readFileSync(argument, 'utf8') : argument;
  } catch {
    return argument;
  }
}

async function main() {
  try {
    const args = options(process.argv.slice(2));
    if (!fs.existsSync(args.data) || !fs.statSync(args.data).isDirectory()) {
      throw new QueryError(`${args.data}: not a directory`);
    }
    const SQL = await initSqlJs();
    const database = new SQL.Database();
    database.run('PRAGMA case_sensitive_like = ON');
    const tables = {};
    for (const file of dataFiles(args.data)) (tables[tableName(file, args.data)] ??= []).push(file);
    for (const [name, files] of Object.entries(tables)) await loadTable(database, name, files);
    const { header, rows } = run(database, readQuery(args.sql));
    process.stdout.write(markdown(header, rows));
    if (args.out) {
      fs.mkdirSync(path.dirname(path.resolve(args.out)), { recursive: true });
      fs.writeFileSync(args.out, csvText(header, rows));
    }
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError) && !error.code) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 1;
  }
}

main().then((code) => { process.exitCode = code; });
