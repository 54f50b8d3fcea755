'use strict';
// query_files: one read-only SQL query over a directory of CSV files, printed as a markdown table.
// The CSV files are loaded into an in-memory SQLite database (sql.js), a table per file named by its path;
// the query runs there with NULLs sorted last in every ORDER BY, and the result goes to stdout (and --out).

const fs = require('fs');
const path = require('path');
const { parse } = require('csv-parse/sync');
const initSqlJs = require('sql.js');

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DOTTED_TABLE = /\b(FROM|JOIN)(\s+)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)/gi;
const ORDER_BY = /\bORDER\s+BY\b/gi;
const ORDER_END = /^(LIMIT|OFFSET)\b/i;

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

function csvFiles(root) {
  const found = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) found.push(...csvFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.csv')) found.push(full);
  }
  return found.sort();
}

function tableName(file, root) {
  const parts = path.relative(root, file).split(path.sep);
  const last = parts.pop().slice(0, -'.csv'.length).replace(/\./g, '_');
  return [...parts, last].join('.');
}

function columnType(values) {
  const filled = values.filter((value) => value !== '');
  if (filled.length && filled.every((value) => INTEGER.test(value))) return 'INTEGER';
  if (filled.length && filled.every((value) => DECIMAL.test(value))) return 'REAL';
  return 'TEXT';
}

const quoted = (name) => `"${name.replace(/"/g, '""')}"`;

function cell(value, kind) {
  if (kind === 'TEXT') return value;
  return value === '' ? null : Number(value);
}

function loadTable(database, name, file) {
  const rows = parse(fs.readFileSync(file, 'utf8'), { relax_column_count: true, skip_empty_lines: false });
  if (!rows.length || !rows[0].some((field) => field.trim())) throw new QueryError(`${file}: no header row`);
  const [header, ...body] = rows;
  const padded = body.map((row) => header.map((_, index) => row[index] ?? ''));
  const kinds = header.map((_, index) => columnType(padded.map((row) => row[index])));
  database.run(`CREATE TABLE ${quoted(name)} (${header.map((column, index) => `${quoted(column)} ${kinds[index]}`).join(', ')})`);
  const insert = database.prepare(`INSERT INTO ${quoted(name)} VALUES (${header.map(() => '?').join(', ')})`);
  for (const row of padded) insert.run(row.map((value, index) => cell(value, kinds[index])));
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
  let results;
  try {
    results = database.exec(nullsLast(text.replace(DOTTED_TABLE, (_, word, space, name) => word + space + quoted(name))));
  } catch (error) {
    throw new QueryError(error.message);
  }
  if (results.length > 1) throw new QueryError('only one SELECT statement is allowed');
  if (!results.length) {
    const statement = database.prepare(nullsLast(text.replace(DOTTED_TABLE, (_, w, s, n) => w + s + quoted(n))));
    const header = statement.getColumnNames();
    statement.free();
    return { header, rows: [] };
  }
  return { header: results[0].columns, rows: results[0].values.map((row) => row.map(shown)) };
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
    for (const file of csvFiles(args.data)) loadTable(database, tableName(file, args.data), file);
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
