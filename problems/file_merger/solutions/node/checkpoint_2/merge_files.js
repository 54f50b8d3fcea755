#!/usr/bin/env node
// merge_files: merge CSV, TSV, JSON Lines and Parquet files (optionally gzip-compressed) into one CSV sorted
// by a key, with a provided or inferred schema.
// Rows are cast as they are read, buffered up to the memory budget, spilled to temporary files as sorted
// runs, and merged back in order.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const zlib = require("zlib");

const TYPES = ["string", "int", "float", "bool", "date", "timestamp"];
const DETECTION_ORDER = ["bool", "int", "float", "date", "timestamp"];
const RANK = { bool: 0, int: 1, float: 2, date: 3, timestamp: 4, string: 5, kept: 6 };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

class MergeError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// ------------------------------------------------------------------ parsing text into typed values
// A typed value is {v: comparable, text: output text}. Numbers compare as [sign, digits] decimals.

function parseInt64(text) {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const value = BigInt(t);
  if (value < INT64_MIN || value > INT64_MAX) return null;
  return { v: decimalOf(value.toString()), text: value.toString() };
}

// A decimal as {neg, int, frac} strings without redundant zeros; text is its plain notation.
function decimalOf(text) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] === undefined || m[3] === ""))) return null;
  let digits = m[2] + (m[3] || "");
  let point = m[2].length + (m[4] ? parseInt(m[4], 10) : 0);
  if (Math.abs(point) > 10000) return null;
  if (point < 0) {
    digits = "0".repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += "0".repeat(point - digits.length);
  const int = digits.slice(0, point).replace(/^0+/, "");
  const frac = digits.slice(point).replace(/0+$/, "");
  const zero = int === "" && frac === "";
  return { neg: m[1] === "-" && !zero, int, frac };
}

function decimalText(d) {
  const body = (d.int || "0") + (d.frac ? "." + d.frac : "");
  return (d.neg ? "-" : "") + body;
}

function compareMagnitude(a, b) {
  if (a.int.length !== b.int.length) return a.int.length < b.int.length ? -1 : 1;
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  const width = Math.max(a.frac.length, b.frac.length);
  const fa = a.frac.padEnd(width, "0");
  const fb = b.frac.padEnd(width, "0");
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

function compareDecimal(a, b) {
  if (a.neg !== b.neg) return a.neg ? -1 : 1;
  const magnitude = compareMagnitude(a, b);
  return a.neg ? -magnitude : magnitude;
}

function parseFloatCell(text) {
  const d = decimalOf(text);
  return d ? { v: d, text: decimalText(d) } : null;
}

function parseBool(text) {
  const t = text.trim().toLowerCase();
  if (t === "true" || t === "1") return { v: 1, text: "true" };
  if (t === "false" || t === "0") return { v: 0, text: "false" };
  return null;
}

function validDate(y, mo, d) {
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() && y >= 1;
}

function parseDate(text) {
  const t = text.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (!m || !validDate(+m[1], +m[2], +m[3])) return null;
  return { v: t, text: t };
}

const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:\d{2})?$/;

function parseTimestamp(text) {
  const m = TIMESTAMP_RE.exec(text.trim());
  if (!m || !validDate(+m[1], +m[2], +m[3])) return null;
  const [hour, minute, second] = [+m[4], +m[5], +(m[6] || 0)];
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offset = 0;
  if (m[8] && m[8] !== "Z") {
    const sign = m[8][0] === "-" ? -1 : 1;
    const [oh, om] = [+m[8].slice(1, 3), +m[8].slice(4, 6)];
    if (oh > 23 || om > 59) return null;
    offset = sign * (oh * 60 + om);
  }
  const micros = (m[7] || "").padEnd(6, "0");
  const millis = Date.UTC(+m[1], +m[2] - 1, +m[3], hour, minute, second) - offset * 60000;
  const at = new Date(millis);
  const base = at.toISOString().slice(0, 19);
  const fraction = micros.replace(/0+$/, "");
  const key = base + "." + micros; // fixed width: sorts as text
  return { v: key, text: base + (fraction ? "." + fraction : "") + "Z" };
}

const PARSERS = {
  int: parseInt64,
  float: parseFloatCell,
  bool: parseBool,
  date: parseDate,
  timestamp: parseTimestamp,
  string: (text) => ({ v: text, text }),
};

function detect(text) {
  return DETECTION_ORDER.find((kind) => PARSERS[kind](text) !== null) || "string";
}

function join(left, right) {
  if (left === null || left === right) return right;
  const pair = [left, right].sort().join("+");
  if (pair === "float+int") return "float";
  if (pair === "date+timestamp") return "timestamp";
  return "string";
}

// ------------------------------------------------------------------ schema

function loadSchema(file) {
  let document;
  try {
    document = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    if (error.code === "ENOENT") throw new MergeError(2, `schema file "${file}" not found`);
    throw new MergeError(2, `invalid schema JSON: ${error.message}`);
  }
  const entries = document && typeof document === "object" ? document.columns : undefined;
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new MergeError(2, "schema JSON must hold a non-empty 'columns' list");
  }
  const columns = [];
  for (const entry of entries) {
    const name = entry && entry.name;
    const type = entry && entry.type;
    if (typeof name !== "string" || !name || columns.some((c) => c.name === name)) {
      throw new MergeError(2, `schema column name ${JSON.stringify(name)} is missing or repeated`);
    }
    if (!TYPES.includes(type)) throw new MergeError(2, `unsupported column type "${type}" for "${name}"`);
    columns.push({ name, type });
  }
  return columns;
}

class Observed {
  constructor() {
    this.strict = null;
    this.allOf = Object.fromEntries(DETECTION_ORDER.map((kind) => [kind, true]));
    this.temporal = true;
    this.anyTimestamp = false;
  }

  add(text) {
    this.strict = join(this.strict, detect(text));
    for (const kind of DETECTION_ORDER) this.allOf[kind] = this.allOf[kind] && PARSERS[kind](text) !== null;
    const isTimestamp = parseTimestamp(text) !== null;
    this.temporal = this.temporal && (parseDate(text) !== null || isTimestamp);
    this.anyTimestamp = this.anyTimestamp || isTimestamp;
  }

  resolve(mode) {
    if (this.strict === null) return "string";
    if (mode === "strict") return this.strict;
    const found = ["bool", "int", "float", "date"].find((kind) => this.allOf[kind]);
    if (found) return found;
    return this.temporal && this.anyTimestamp ? "timestamp" : "string";
  }
}

function joinAll(kinds) {
  return kinds.reduce((result, kind) => join(result, kind), null) || "string";
}

function choose(votes, overall, strategy, mode) {
  if (strategy === "consensus" && votes.length) {
    const counts = new Map();
    for (const vote of votes) counts.set(vote.kind, (counts.get(vote.kind) || 0) + 1);
    for (const [kind, count] of counts) if (count * 2 > votes.length) return kind;
  }
  if (strategy === "authoritative") {
    for (const authority of ["parquet", "values"]) {
      const kinds = votes.filter((vote) => vote.authority === authority).map((vote) => vote.kind);
      if (kinds.length) return joinAll(kinds);
    }
  }
  return overall.resolve(mode);
}

async function inferSchema(sources, dialect, mode, strategy) {
  const overall = new Map();
  const votes = new Map();
  const vote = (name, authority, kind) => {
    if (!votes.has(name)) votes.set(name, []);
    votes.get(name).push({ authority, kind });
  };
  for (const source of sources) {
    const inFile = new Map();
    for (const { row } of await rowsOf(source, dialect)) {
      for (const [name, text] of Object.entries(row)) {
        if (!overall.has(name)) overall.set(name, new Observed());
        if (!text) continue;
        overall.get(name).add(text);
        if (!inFile.has(name)) inFile.set(name, new Observed());
        inFile.get(name).add(text);
      }
    }
    for (const name of source.columns) if (!overall.has(name)) overall.set(name, new Observed());
    for (const [name, kind] of source.declared) vote(name, "parquet", kind);
    if (source.format !== "parquet") for (const [name, observed] of inFile) vote(name, "values", observed.resolve(mode));
  }
  const names = [...overall.keys()].sort(byCodePoint);
  return names.map((name) => ({ name, type: choose(votes.get(name) || [], overall.get(name), strategy, mode) }));
}

function byCodePoint(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d < 0 ? -1 : 1;
  }
  return x.length - y.length;
}

// ------------------------------------------------------------------ reading CSV

// Parse CSV text as Python's csv module does: quote doubling, or an escape character when given.
function parseCsvLines(text, dialect) {
  const records = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const startLine = line;
    const cells = [];
    let cell = "";
    let quoted = false;
    let wasQuoted = false;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (dialect.escape && ch === dialect.escape && i + 1 < text.length) {
        cell += text[++i];
      } else if (quoted) {
        if (ch === dialect.quote && !dialect.escape && text[i + 1] === dialect.quote) {
          cell += ch;
          i++;
        } else if (ch === dialect.quote) {
          quoted = false;
        } else {
          if (ch === "\n") line++;
          cell += ch;
        }
      } else if (ch === dialect.quote && cell === "" && !wasQuoted) {
        quoted = wasQuoted = true;
      } else if (ch === ",") {
        cells.push(cell);
        cell = "";
        wasQuoted = false;
      } else if (ch === "\n") {
        i++;
        line++;
        break;
      } else if (ch !== "\r") {
        cell += ch;
      }
    }
    if (quoted) throw new Error("unexpected end of data inside a quoted field");
    cells.push(cell);
    const blank = cells.length === 1 && cells[0] === "" && !wasQuoted;
    if (!blank) records.push({ cells, line: startLine });
  }
  return records;
}

const EXTENSIONS = { ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet" };

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function gunzip(raw, file) {
  try {
    return zlib.gunzipSync(raw);
  } catch (error) {
    throw new MergeError(5, `cannot read "${file}": ${error.message}`);
  }
}

function compressionOf(file, mode) {
  const head = fs.readFileSync(file).subarray(0, 2);
  const isGzip = head[0] === 0x1f && head[1] === 0x8b;
  const wanted = mode === "auto" ? file.endsWith(".gz") : mode === "gzip";
  if (wanted && !isGzip) throw new MergeError(5, `compression mismatch: "${file}" is not gzip-compressed`);
  if (isGzip && !wanted) throw new MergeError(5, `compression mismatch: "${file}" is gzip-compressed`);
  return wanted;
}

function formatOf(file, mode, compressed) {
  if (mode !== "auto") return mode;
  const base = compressed && file.endsWith(".gz") ? file.slice(0, -3) : file;
  const found = EXTENSIONS[path.extname(base).toLowerCase()];
  if (found) return found;
  let head = Buffer.alloc(0);
  try {
    head = (compressed ? zlib.gunzipSync(fs.readFileSync(file)) : fs.readFileSync(file)).subarray(0, 4);
  } catch {
    // unreadable content: not parquet
  }
  if (head.toString("latin1") === "PAR1") return "parquet";
  throw new MergeError(2, `cannot detect the format of "${file}"`);
}

function openSources(files, inputFormat, compression) {
  for (const file of files) if (!isFile(file)) throw new MergeError(2, `input file "${file}" not found`);
  return files.map((file) => {
    const compressed = compressionOf(file, compression);
    return { path: file, gzip: compressed, format: formatOf(file, inputFormat, compressed), declared: new Map(),
      columns: [] };
  });
}

function bytesOf(source) {
  const raw = fs.readFileSync(source.path);
  return source.gzip ? gunzip(raw, source.path) : raw;
}

function textOf(source) {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytesOf(source));
  } catch (error) {
    if (error instanceof MergeError) throw error;
    throw new MergeError(5, `cannot read "${source.path}": not UTF-8`);
  }
}

// A JSON or Parquet value as the text a CSV cell would hold; null stays null.
function cellText(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  }
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function checkHeader(header, file) {
  if (header.length && header[0].startsWith("\ufeff")) header[0] = header[0].slice(1);
  if (new Set(header).size !== header.length) throw new MergeError(2, `input file "${file}" names a column twice`);
  return header;
}

function readCsv(source, dialect) {
  let records;
  try {
    records = parseCsvLines(textOf(source), dialect);
  } catch (error) {
    if (error instanceof MergeError) throw error;
    throw new MergeError(5, `cannot read "${source.path}": ${error.message}`);
  }
  if (records.length === 0) return [];
  const header = (source.columns = checkHeader(records[0].cells, source.path));
  return records.slice(1).map(({ cells, line }) => {
    const row = {};
    header.forEach((name, index) => {
      if (index < cells.length) row[name] = cells[index] || null;
    });
    return { row, line };
  });
}

function readTsv(source) {
  const lines = textOf(source).split("\n");
  if (lines.length === 1 && lines[0] === "") throw new MergeError(5, `tsv file "${source.path}" has no header row`);
  const header = (source.columns = checkHeader(lines[0].replace(/\r$/, "").split("\t"), source.path));
  const rows = [];
  lines.slice(1).forEach((raw, index) => {
    const line = raw.replace(/\r$/, "");
    if (!line) return;
    const cells = line.split("\t");
    if (cells.length !== header.length) {
      throw new MergeError(5, `tsv row has ${cells.length} fields, not ${header.length} (file=${source.path} line=${index + 2})`);
    }
    rows.push({ row: Object.fromEntries(header.map((name, i) => [name, cells[i] || null])), line: index + 2 });
  });
  return rows;
}

function readJsonl(source) {
  const rows = [];
  textOf(source).split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    const where = `file=${source.path} line=${index + 1}`;
    let record;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw new MergeError(5, `invalid JSON (${where}): ${error.message}`);
    }
    if (record === null || typeof record !== "object" || Array.isArray(record)) {
      throw new MergeError(6, `jsonl line is not an object (${where})`);
    }
    for (const [key, value] of Object.entries(record)) {
      if (value !== null && typeof value === "object") throw new MergeError(6, `nested value in field "${key}" (${where})`);
    }
    rows.push({ row: Object.fromEntries(Object.entries(record).map(([key, value]) => [key, cellText(value)])), line: index + 1 });
  });
  return rows;
}

function parquetKind(element) {
  const logical = element.logical_type && element.logical_type.type;
  const converted = element.converted_type;
  if (logical === "DATE" || converted === "DATE") return "date";
  if (logical === "TIMESTAMP" || (converted && converted.startsWith("TIMESTAMP"))) return "timestamp";
  if (logical === "DECIMAL" || converted === "DECIMAL") return "float";
  if (logical === "STRING" || converted === "UTF8") return "string";
  const physical = { BOOLEAN: "bool", INT32: "int", INT64: "int", FLOAT: "float", DOUBLE: "float" };
  return physical[element.type] || null;
}

async function readParquet(source) {
  const { parquetMetadata, parquetReadObjects } = await import("hyparquet");
  const raw = bytesOf(source);
  const buffer = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
  let metadata;
  try {
    metadata = parquetMetadata(buffer);
  } catch (error) {
    throw new MergeError(5, `cannot read parquet file "${source.path}": ${error.message}`);
  }
  const columns = metadata.schema.slice(1);
  for (const element of columns) {
    if (element.num_children) throw new MergeError(6, `parquet column "${element.name}" is nested (file=${source.path})`);
    const kind = parquetKind(element);
    if (kind) source.declared.set(element.name, kind);
  }
  source.columns = columns.map((element) => element.name);
  const objects = await parquetReadObjects({ file: buffer });
  return objects.map((item, index) => ({
    row: Object.fromEntries(source.columns.map((name) => [name, cellText(item[name])])),
    line: index + 1,
  }));
}

const READERS = { csv: readCsv, tsv: readTsv, jsonl: readJsonl, parquet: readParquet };

async function rowsOf(source, dialect) {
  return READERS[source.format](source, dialect);
}

// ------------------------------------------------------------------ casting and comparing

function cast(text, column, settings, where) {
  if (text === undefined || text === null || text === "") return { text: settings.nullLiteral, key: null };
  const parsed = PARSERS[column.type](text);
  if (parsed !== null) return { text: parsed.text, key: { rank: RANK[column.type], v: parsed.v } };
  if (settings.onError === "fail") {
    throw new MergeError(4, `cannot cast "${text}" to ${column.type} in column "${column.name}" (${where})`);
  }
  if (settings.onError === "keep-string") return { text, key: { rank: RANK.kept, v: text } };
  return { text: settings.nullLiteral, key: null };
}

function compareValues(rank, a, b) {
  if (rank === RANK.int || rank === RANK.float) return compareDecimal(a, b);
  if (rank === RANK.bool) return a - b;
  if (rank === RANK.string || rank === RANK.kept) return byCodePoint(a, b);
  return a === b ? 0 : a < b ? -1 : 1;
}

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    if (x === null || y === null) {
      if (x !== y) return x === null ? -1 : 1;
      continue;
    }
    if (x.rank !== y.rank) return x.rank - y.rank;
    const d = compareValues(x.rank, x.v, y.v);
    if (d) return d;
  }
  return 0;
}

// ------------------------------------------------------------------ external sort

class Sorter {
  constructor(budget, tempRoot, descending) {
    this.budget = budget;
    this.descending = descending;
    this.directory = fs.mkdtempSync(path.join(tempRoot || os.tmpdir(), "merge-runs-"));
    this.buffer = [];
    this.used = 0;
    this.runs = [];
    this.sequence = 0;
  }

  order(a, b) {
    const d = compareKeys(a.key, b.key);
    if (d) return this.descending ? -d : d;
    return a.seq - b.seq;
  }

  add(key, cells) {
    this.buffer.push({ key, seq: this.sequence++, cells });
    this.used += 200 + cells.reduce((sum, cell) => sum + cell.length * 2, 0);
    if (this.used >= this.budget) this.spill();
  }

  spill() {
    this.buffer.sort((a, b) => this.order(a, b));
    const file = path.join(this.directory, `run-${String(this.runs.length).padStart(5, "0")}.jsonl`);
    fs.writeFileSync(file, this.buffer.map((record) => JSON.stringify(record)).join("\n") + "\n");
    this.runs.push(file);
    this.buffer = [];
    this.used = 0;
  }

  *merged() {
    this.buffer.sort((a, b) => this.order(a, b));
    const streams = this.runs.map((file) => readRun(file)).concat([this.buffer[Symbol.iterator]()]);
    const heads = streams.map((stream) => stream.next());
    for (;;) {
      let best = -1;
      heads.forEach((head, index) => {
        if (!head.done && (best < 0 || this.order(head.value, heads[best].value) < 0)) best = index;
      });
      if (best < 0) return;
      yield heads[best].value.cells;
      heads[best] = streams[best].next();
    }
  }

  close() {
    fs.rmSync(this.directory, { recursive: true, force: true });
  }
}

function* readRun(file) {
  for (const line of fs.readFileSync(file, "utf8").split("\n")) if (line) yield JSON.parse(line);
}

// ------------------------------------------------------------------ command line

const OPTIONS = {
  "--output": { key: "output" },
  "--key": { key: "key" },
  "--desc": { key: "desc", flag: true },
  "--schema": { key: "schema" },
  "--infer": { key: "infer", choices: ["strict", "loose"] },
  "--on-type-error": { key: "onTypeError", choices: ["coerce-null", "fail", "keep-string"] },
  "--memory-limit-mb": { key: "memoryLimitMb" },
  "--temp-dir": { key: "tempDir" },
  "--csv-quotechar": { key: "quote" },
  "--csv-escapechar": { key: "escape" },
  "--csv-null-literal": { key: "nullLiteral" },
  "--schema-strategy": { key: "strategy", choices: ["authoritative", "consensus", "union"] },
  "--input-format": { key: "inputFormat", choices: ["auto", "csv", "tsv", "jsonl", "parquet"] },
  "--compression": { key: "compression", choices: ["auto", "none", "gzip"] },
  "--parquet-row-group-bytes": { key: "rowGroupBytes" },
};

function parseArgs(argv) {
  const args = { desc: false, infer: "strict", onTypeError: "coerce-null", memoryLimitMb: "64", quote: '"',
    escape: null, nullLiteral: "", strategy: "authoritative", inputFormat: "auto", compression: "auto", inputs: [] };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].startsWith("--") ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const option = OPTIONS[name];
    if (!option) {
      if (argv[i].startsWith("--")) throw new MergeError(2, `unknown option ${argv[i]}`);
      args.inputs.push(argv[i]);
      continue;
    }
    if (option.flag) {
      args[option.key] = true;
      continue;
    }
    const value = inline !== undefined ? inline : argv[++i];
    if (value === undefined) throw new MergeError(2, `${name} needs a value`);
    if (option.choices && !option.choices.includes(value)) throw new MergeError(2, `invalid choice for ${name}: ${value}`);
    args[option.key] = value;
  }
  for (const required of ["output", "key"]) {
    if (args[required] === undefined) throw new MergeError(2, `--${required} is required`);
  }
  if (args.inputs.length === 0) throw new MergeError(2, "at least one input is required");
  return args;
}

function dialectOf(args) {
  if (args.quote.length !== 1 || (args.escape !== null && args.escape.length !== 1)) {
    throw new MergeError(2, "--csv-quotechar and --csv-escapechar take one character");
  }
  if (!/^\d+$/.test(args.memoryLimitMb) || +args.memoryLimitMb <= 0) {
    throw new MergeError(2, "--memory-limit-mb must be a positive integer");
  }
  return { quote: args.quote, escape: args.escape };
}

function keyColumns(raw, schema) {
  const names = raw.split(",").map((name) => name.trim());
  if (names.some((name) => !name)) throw new MergeError(2, "--key names an empty column");
  return names.map((name) => {
    const index = schema.findIndex((column) => column.name === name);
    if (index < 0) throw new MergeError(3, `key column "${name}" not present in resolved schema`);
    return index;
  });
}

// A field in the inputs' dialect: with an escape character, quotes and escapes are escaped and only commas and
// line breaks quote; without, a comma, quote or line break quotes the field and quotes are doubled.
function csvField(text, dialect) {
  if (dialect.escape) {
    const escaped = Array.from(text, (ch) => (ch === dialect.quote || ch === dialect.escape ? dialect.escape + ch : ch)).join("");
    return /[,\n\r]/.test(text) ? dialect.quote + escaped + dialect.quote : escaped;
  }
  if (!/[,\n\r]/.test(text) && !text.includes(dialect.quote)) return text;
  return dialect.quote + text.split(dialect.quote).join(dialect.quote + dialect.quote) + dialect.quote;
}

function csvLine(cells, dialect) {
  return cells.map((cell) => csvField(cell, dialect)).join(",") + "\n";
}

function writeOutput(target, header, rows, dialect) {
  if (target === "-") {
    const parts = [csvLine(header, dialect)];
    for (const cells of rows) parts.push(csvLine(cells, dialect));
    fs.writeSync(1, parts.join(""));
    return;
  }
  const directory = path.dirname(target);
  fs.mkdirSync(directory, { recursive: true });
  const temporary = path.join(directory, `.merge-${process.pid}.tmp`);
  try {
    const descriptor = fs.openSync(temporary, "w");
    try {
      fs.writeSync(descriptor, csvLine(header, dialect));
      for (const cells of rows) fs.writeSync(descriptor, csvLine(cells, dialect));
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, target);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

async function run(args) {
  const dialect = dialectOf(args);
  const sources = openSources(args.inputs, args.inputFormat, args.compression);
  const schema = args.schema ? loadSchema(args.schema) : await inferSchema(sources, dialect, args.infer, args.strategy);
  const keys = keyColumns(args.key, schema);
  const settings = { nullLiteral: args.nullLiteral, onError: args.onTypeError };
  if (args.tempDir) fs.mkdirSync(args.tempDir, { recursive: true });
  const sorter = new Sorter(+args.memoryLimitMb * 1024 * 1024, args.tempDir, args.desc);
  try {
    for (const source of sources) {
      const name = path.basename(source.path);
      for (const { row, line } of await rowsOf(source, dialect)) {
        const cast_ = schema.map((column) => cast(row[column.name], column, settings, `file=${name} line=${line}`));
        sorter.add(keys.map((index) => cast_[index].key), cast_.map((cell) => cell.text));
      }
    }
    writeOutput(args.output, schema.map((column) => column.name), sorter.merged(), dialect);
  } finally {
    sorter.close();
  }
}

async function main() {
  try {
    await run(parseArgs(process.argv.slice(2)));
    return 0;
  } catch (error) {
    if (!(error instanceof MergeError)) throw error;
    process.stderr.write(`ERR ${error.code} ${error.message}\n`);
    return error.code;
  }
}

main().then((code) => {
  process.exitCode = code;
});
