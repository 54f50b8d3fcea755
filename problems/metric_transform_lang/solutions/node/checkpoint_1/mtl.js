// MTL checkpoint 1: filter/apply/group_by/window/aggregate statements over a CSV of sales events, as JSON.
"use strict";

const fs = require("fs");

const KINDS = { 1: "bad_dsl", 2: "type_error", 3: "bad_io", 4: "runtime_error" };
const BASE_TYPES = {
  timestamp: "timestamp", location: "string", item: "string", price: "number",
  quantity: "number", unit: "string", category: "string",
};
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UNITS = { m: 60, h: 3600, d: 86400 };

class MtlError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
const fail = (code, message) => { throw new MtlError(code, message); };

// ---------------------------------------------------------------- expressions

const TOKEN = new RegExp(
  String.raw`\s*(?:(?<num>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?<str>'[^']*')` +
    String.raw`|(?<name>[A-Za-z_][A-Za-z0-9_]*)|(?<op><=|>=|==|!=|[<>()&|!])|(?<bad>\S))`,
  "y",
);

function tokenize(text) {
  const tokens = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const match = TOKEN.exec(text);
    if (!match) break;
    const [kind, value] = Object.entries(match.groups).find(([, v]) => v !== undefined) || [];
    if (kind === undefined) break;
    if (kind === "bad") fail(1, `unexpected character ${value}`);
    tokens.push([kind, value]);
  }
  tokens.push(["end", null]);
  return tokens;
}

// or := and ('|' and)*; and := not ('&' not)*; not := '!' not | cmp; cmp := primary [relop primary | in primary]
class Parser {
  constructor(text) {
    this.tokens = tokenize(text);
    this.at = 0;
  }
  peek() { return this.tokens[this.at]; }
  take() { return this.tokens[this.at++]; }
  isOp(op) { const [kind, value] = this.peek(); return kind === "op" && value === op; }
  parse() {
    const expr = this.binary("|", "or", () => this.binary("&", "and", () => this.negation()));
    if (this.peek()[0] !== "end") fail(1, `unexpected ${this.peek()[1]} in expression`);
    return expr;
  }
  binary(op, kind, operand) {
    let expr = operand();
    while (this.isOp(op)) {
      this.take();
      expr = { kind, args: [expr, operand()] };
    }
    return expr;
  }
  negation() {
    if (this.isOp("!")) {
      this.take();
      return { kind: "not", args: [this.negation()] };
    }
    return this.comparison();
  }
  comparison() {
    const left = this.primary();
    const [kind, text] = this.peek();
    if (kind === "name" && text.toLowerCase() === "in") {
      this.take();
      const right = this.primary();
      if (!(left.kind === "lit" && typeof left.value === "string") || right.kind !== "col") {
        fail(1, "'in' takes a string literal on the left and a column on the right");
      }
      return { kind: "in", args: [left, right] };
    }
    if (kind === "op" && ["<", "<=", ">", ">=", "==", "!="].includes(text)) {
      this.take();
      return { kind: "cmp", op: text, args: [left, this.primary()] };
    }
    return left;
  }
  primary() {
    const [kind, text] = this.take();
    if (kind === "num") return { kind: "lit", value: Number(text) };
    if (kind === "str") return { kind: "lit", value: text.slice(1, -1) };
    if (kind === "name" && ["true", "false"].includes(text.toLowerCase())) {
      return { kind: "lit", value: text.toLowerCase() === "true" };
    }
    if (kind === "name" && text.toLowerCase() !== "in") return { kind: "col", name: text };
    if (kind === "op" && text === "(") {
      const expr = this.binary("|", "or", () => this.binary("&", "and", () => this.negation()));
      const [closeKind, close] = this.take();
      if (closeKind !== "op" || close !== ")") fail(1, "missing ')'");
      return expr;
    }
    return fail(1, `unexpected ${text} in expression`);
  }
}

// --------------------------------------------------------------------- program

function statements(source) {
  const found = [];
  for (const line of source.split(/\r?\n/)) {
    const text = line.trim();
    if (!text || text.startsWith("#")) continue;
    if (/^\s/.test(line) && found.length) {
      if (!found[found.length - 1].startsWith("aggregate")) fail(1, "only aggregate continues on indented lines");
      found[found.length - 1] += " " + text;
    } else {
      found.push(text);
    }
  }
  return found;
}

function inside(text, keyword) {
  const body = text.slice(keyword.length + 1, -1).trim();
  if (!text.startsWith(keyword + "(") || !text.endsWith(")") || !body) fail(1, `${keyword} needs (...)`);
  return body;
}

function name(text) {
  if (!NAME.test(text.trim())) fail(1, `${text.trim()} is not a column name`);
  return text.trim();
}

const STATEMENTS = {
  filter(text, program) {
    program.steps.push({ kind: "filter", expr: new Parser(inside(text, "filter")).parse() });
  },
  apply(text, program) {
    const body = inside(text, "apply");
    const comma = body.lastIndexOf(",");
    const match = /^(len|day|month|year|round)\((.*)\)$/.exec(body.slice(0, comma).trim());
    if (comma < 0 || !match) fail(1, "apply takes a transform and a new column name");
    const args = match[2].split(",").map((part) => part.trim());
    let digits = 0;
    if (match[1] === "round" && args.length === 2) {
      if (!/^[+-]?\d+$/.test(args[1])) fail(1, "round's digits must be an integer literal");
      digits = Number(args.pop());
    }
    if (args.length !== 1) fail(1, `${match[1]} takes one column`);
    program.steps.push({ kind: "apply", fn: match[1], column: name(args[0]), digits, target: name(body.slice(comma + 1)) });
  },
  group_by(text, program) {
    if (program.groupBy) fail(1, "group_by given twice");
    const body = inside(text, "group_by");
    const columns = body.startsWith("[") && body.endsWith("]") ? body.slice(1, -1).split(",") : [body];
    program.groupBy = columns.map(name);
    program.groupAt = program.steps.length;
  },
  window(text, program) {
    if (program.window) fail(1, "window given twice");
    const match = /^(\d+)([mhd])$/.exec(inside(text, "window"));
    if (!match || Number(match[1]) === 0) fail(1, "window takes a positive duration such as 10m, 1h or 7d");
    program.window = Number(match[1]) * UNITS[match[2]];
  },
  aggregate(text, program) {
    if (program.aggregates) fail(1, "aggregate given twice");
    program.aggregates = text.slice("aggregate".length).split(",").map((entry) => {
      const match = /^\s*(sum|average|median|count|std|var|min|max)\(\s*([^()]*?)\s*\)\s+as\s+(\w+)\s*$/.exec(entry);
      if (!match || (match[1] === "count") !== (match[2] === "*")) fail(1, `bad aggregate entry ${entry.trim()}`);
      return { fn: match[1], column: match[2] === "*" ? null : name(match[2]), alias: match[3] };
    });
    const aliases = program.aggregates.map((a) => a.alias);
    if (new Set(aliases).size !== aliases.length) fail(1, "an alias is given twice");
  },
};

function parseProgram(source) {
  const program = { steps: [], groupBy: null, groupAt: 0, window: null, aggregates: null };
  for (const text of statements(source)) {
    const keyword = /^[a-z_]*/.exec(text)[0];
    if (!Object.hasOwn(STATEMENTS, keyword)) fail(1, `unknown statement ${text}`);
    if (program.aggregates && keyword !== "aggregate") fail(1, "aggregate must be the last statement");
    STATEMENTS[keyword](text, program);
  }
  if (!program.aggregates) fail(1, "an aggregate statement is required");
  return program;
}

// ----------------------------------------------------------------------- types

function exprType(expr, env) {
  if (expr.kind === "lit") return { boolean: "bool", string: "string" }[typeof expr.value] || "number";
  if (expr.kind === "col") return Object.hasOwn(env, expr.name) ? env[expr.name] : fail(2, `unknown column ${expr.name}`);
  if (expr.kind === "in") {
    if (exprType(expr.args[1], env) !== "string") fail(2, "'in' needs a string column");
    return "bool";
  }
  const kinds = expr.args.map((arg) => exprType(arg, env));
  if (expr.kind === "cmp") {
    if (kinds[0] !== kinds[1] || (kinds[0] === "bool" && !["==", "!="].includes(expr.op))) {
      fail(2, `cannot compare ${kinds[0]} ${expr.op} ${kinds[1]}`);
    }
  } else if (kinds.some((kind) => kind !== "bool")) {
    fail(2, `${expr.kind} needs booleans`);
  }
  return "bool";
}

const TRANSFORM_INPUT = { len: "string", day: "timestamp", month: "timestamp", year: "timestamp", round: "number" };

function checkColumns(columns, env) {
  for (const column of columns) if (!Object.hasOwn(env, column)) fail(2, `group_by column ${column} is not defined`);
}

function checkTypes(program, types) {
  const env = { ...types };
  program.steps.forEach((step, position) => {
    if (program.groupBy && program.groupAt === position) checkColumns(program.groupBy, env);
    if (step.kind === "filter") {
      if (exprType(step.expr, env) !== "bool") fail(2, "filter needs a boolean expression");
      return;
    }
    if (env[step.column] !== TRANSFORM_INPUT[step.fn]) fail(2, `${step.fn} needs a ${TRANSFORM_INPUT[step.fn]} column`);
    env[step.target] = "number";
  });
  if (program.groupBy) checkColumns(program.groupBy, env);
  if (env.timestamp !== "timestamp") fail(2, "timestamp must stay a timestamp");
  for (const { fn, column, alias } of program.aggregates) {
    if (column !== null && env[column] !== "number") fail(2, `${alias}: ${fn} needs a numeric column`);
  }
}

// ------------------------------------------------------------------------ time

function zoneOffsetMs(zone, utcMs) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-US", {
    timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  }).formatToParts(new Date(utcMs)).map((part) => [part.type, part.value]));
  const asUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

function localToUtc(fields, zone) {
  const guess = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
  const first = guess - zoneOffsetMs(zone, guess);
  return guess - zoneOffsetMs(zone, first);
}

function checkZone(zone) {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    fail(3, `unknown time zone ${zone}`);
  }
  return zone;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const DIRECTIVES = { Y: ["(\\d{4})", "year"], m: ["(\\d{1,2})", "month"], d: ["(\\d{1,2})", "day"],
  H: ["(\\d{1,2})", "hour"], M: ["(\\d{1,2})", "minute"], S: ["(\\d{1,2})", "second"] };

function fromFormat(text, format) {
  const names = [];
  const pattern = format.replace(/%(.)|[.*+?^${}()|[\]\\]/g, (token, directive) => {
    if (!directive) return "\\" + token;
    if (directive === "%") return "%";
    if (!DIRECTIVES[directive]) fail(4, `unsupported directive %${directive}`);
    names.push(DIRECTIVES[directive][1]);
    return DIRECTIVES[directive][0];
  });
  const match = new RegExp(`^${pattern}$`).exec(text);
  if (!match) return null;
  const fields = { year: 1900, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
  names.forEach((field, index) => { fields[field] = Number(match[index + 1]); });
  return { fields, offset: null };
}

function fromIso(text) {
  const match = ISO.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour = 0, minute = 0, second = 0, zone] = match;
  let offset = null;
  if (zone) {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.replace(/[^0-9]/g, "");
    offset = zone === "Z" ? 0 : sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60000;
  }
  return { fields: { year: +year, month: +month, day: +day, hour: +hour, minute: +minute, second: +second }, offset };
}

function validFields({ year, month, day, hour, minute, second }) {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
}

function parseTime(text, format, zone) {
  const parsed = format ? fromFormat(text, format) : fromIso(text);
  if (!parsed || !validFields(parsed.fields)) fail(4, `bad timestamp ${text}`);
  const { fields, offset } = parsed;
  if (offset === null) return localToUtc(fields, zone);
  return Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second) - offset;
}

const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

// ------------------------------------------------------------------------ data

function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") { row.push(field); field = ""; } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += char;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows.filter((r) => !(r.length === 1 && r[0] === ""));
}

function number(text, column) {
  const value = text.trim() === "" ? NaN : Number(text);
  if (!Number.isFinite(value)) fail(4, `${column} value ${text} is not a finite number`);
  return value;
}

function extraType(values) {
  const cleaned = values.map((value) => value.trim());
  if (cleaned.every((value) => ["true", "false"].includes(value.toLowerCase()))) return "bool";
  if (cleaned.every((value) => value !== "" && Number.isFinite(Number(value)))) return "number";
  return "string";
}

const CONVERT = {
  bool: (text) => text.trim().toLowerCase() === "true",
  number,
  string: (text) => text,
};

function load(path, format, zone) {
  let text;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch (error) {
    fail(3, `cannot read ${path}: ${error.message}`);
  }
  const [header = [], ...records] = parseCsv(text);
  const missing = Object.keys(BASE_TYPES).filter((column) => !header.includes(column)).sort();
  if (missing.length) fail(3, `the CSV lacks columns ${missing.join(", ")}`);
  const raw = records.map((record) => Object.fromEntries(header.map((column, i) => [column, record[i] ?? ""])));
  const types = {};
  for (const column of header) types[column] = BASE_TYPES[column] || extraType(raw.map((row) => row[column]));
  const rows = raw.map((row) => {
    const converted = {};
    for (const [column, kind] of Object.entries(types)) {
      if (kind !== "timestamp") converted[column] = CONVERT[kind](row[column], column);
    }
    converted.timestamp = parseTime(row.timestamp, format, zone);
    return converted;
  });
  return { rows, types };
}

// ------------------------------------------------------------------- execution

const COMPARE = {
  "<": (a, b) => a < b, "<=": (a, b) => a <= b, ">": (a, b) => a > b, ">=": (a, b) => a >= b,
  "==": (a, b) => a === b, "!=": (a, b) => a !== b,
};

function evaluate(expr, row) {
  switch (expr.kind) {
    case "lit": return expr.value;
    case "col": return row[expr.name];
    case "in": return row[expr.args[1].name].includes(expr.args[0].value);
    case "cmp": return COMPARE[expr.op](evaluate(expr.args[0], row), evaluate(expr.args[1], row));
    case "not": return !evaluate(expr.args[0], row);
    case "and": return expr.args.map((arg) => evaluate(arg, row)).every(Boolean);
    default: return expr.args.map((arg) => evaluate(arg, row)).some(Boolean);
  }
}

function roundAway(value, digits) {
  const scaled = value * 10 ** digits;
  return (Math.sign(scaled) * Math.floor(Math.abs(scaled) + 0.5)) / 10 ** digits;
}

const TRANSFORMS = {
  len: (value) => [...value].length,
  day: (ms) => new Date(ms).getUTCDate(),
  month: (ms) => new Date(ms).getUTCMonth() + 1,
  year: (ms) => new Date(ms).getUTCFullYear(),
};

function transformed(source, program) {
  const row = { ...source };
  for (const step of program.steps) {
    if (step.kind === "filter") {
      if (!evaluate(step.expr, row)) return null;
    } else {
      row[step.target] = step.fn === "round" ? roundAway(row[step.column], step.digits)
        : TRANSFORMS[step.fn](row[step.column]);
    }
  }
  return row;
}

const sum = (values) => values.reduce((total, value) => total + value, 0);
const mean = (values) => sum(values) / values.length;
const variance = (values) => mean(values.map((value) => (value - mean(values)) ** 2));
function median(values) {
  const ordered = [...values].sort((a, b) => a - b);
  const middle = Math.floor(ordered.length / 2);
  return ordered.length % 2 ? ordered[middle] : (ordered[middle - 1] + ordered[middle]) / 2;
}
const AGGREGATES = {
  sum, average: mean, median, min: (v) => Math.min(...v), max: (v) => Math.max(...v),
  var: variance, std: (v) => Math.sqrt(variance(v)),
};

function aggregate(rows, aggregates) {
  const result = {};
  const ordered = [...aggregates].sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
  for (const { fn, column, alias } of ordered) {
    if (fn === "count") {
      result[alias] = rows.length;
      continue;
    }
    const value = rows.length ? AGGREGATES[fn](rows.map((row) => row[column])) : null;
    if (value !== null && !Number.isFinite(value)) fail(4, `${alias} is not finite`);
    result[alias] = value;
  }
  return result;
}

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

function run(program, rows, types) {
  const kept = rows.map((row) => transformed(row, program)).filter((row) => row !== null);
  if (!program.groupBy && !program.window) return aggregate(kept, program.aggregates);
  const groups = new Map();
  for (const row of kept) {
    const width = program.window * 1000;
    const start = program.window ? Math.floor(row.timestamp / width) * width : null;
    const key = [start, ...(program.groupBy || []).map((column) => row[column])];
    const id = JSON.stringify(key);
    if (!groups.has(id)) groups.set(id, { key, rows: [] });
    groups.get(id).rows.push(row);
  }
  const sorted = [...groups.values()].sort((a, b) => compareKeys(a.key, b.key));
  const timestamps = (column) => types[column] === "timestamp";
  return sorted.map(({ key, rows: members }) => {
    const head = program.window ? { window_start: iso(key[0]), window_end: iso(key[0] + program.window * 1000) } : {};
    (program.groupBy || []).forEach((column, i) => { head[column] = timestamps(column) ? iso(key[i + 1]) : key[i + 1]; });
    return { ...head, ...aggregate(members, program.aggregates) };
  });
}

// ------------------------------------------------------------------------- CLI

function parseArgs(argv) {
  const options = { tz: "UTC" };
  const flags = { "--csv": "csv", "--dsl": "dsl", "--out": "out", "--tz": "tz", "--timestamp-format": "format" };
  for (let i = 0; i < argv.length; i += 2) {
    if (!flags[argv[i]] || i + 1 >= argv.length) {
      process.stderr.write(`usage: mtl --csv FILE --dsl FILE [--out FILE] [--tz ZONE] [--timestamp-format F]\n`);
      process.exit(2);
    }
    options[flags[argv[i]]] = argv[i + 1];
  }
  if (!options.csv || !options.dsl) {
    process.stderr.write("mtl: --csv and --dsl are required\n");
    process.exit(2);
  }
  return options;
}

function readDsl(path) {
  try {
    return fs.readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    return fail(3, `cannot read ${path}: ${error.message}`);
  }
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  try {
    const program = parseProgram(readDsl(options.dsl));
    const { rows, types } = load(options.csv, options.format, checkZone(options.tz));
    checkTypes(program, types);
    const text = JSON.stringify(run(program, rows, types)) + "\n";
    if (!options.out || options.out === "-") {
      process.stdout.write(text);
    } else {
      try {
        fs.writeFileSync(options.out, text);
      } catch (error) {
        fail(3, `cannot write ${options.out}: ${error.message}`);
      }
    }
  } catch (error) {
    if (!(error instanceof MtlError)) throw error;
    process.stderr.write(`ERROR:${KINDS[error.code]}:${error.message}\n`);
    process.exitCode = error.code;
  }
}

main();
