"use strict";
// Pipeline runner: tasks from a pipeline file, a small expression language, jobs.jsonl, a cache (checkpoint 2).
// Values of the language: an int is a BigInt, a float a Number, then booleans, strings, arrays and null.

const childProcess = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const TOML = require("smol-toml");

const TEMPLATE = /\$\{\s*([A-Za-z_][\w.]*)\s*\}/g;
const TOKEN = new RegExp(
  [
    "(?<ws>\\s+|//[^\\n]*)",
    "(?<tpl>\\$\\{\\s*[A-Za-z_][\\w.]*\\s*\\})",
    "(?<env>\\$[A-Za-z_]\\w*)",
    "(?<float>\\d+\\.\\d*|\\.\\d+)",
    "(?<int>\\d+)",
    "(?<str>\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*')",
    "(?<name>[A-Za-z_]\\w*)",
    "(?<op>\\+\\+|--|==|!=|<=|>=|&&|\\|\\||[-+*/%<>=!(){}\\[\\];,:.])",
  ].join("|"),
  "ys",
);
const GROUPS = ["ws", "tpl", "env", "float", "int", "str", "name", "op"];
const ESCAPES = { n: "\n", t: "\t", r: "\r", "\\": "\\", '"': '"', "'": "'" };
const TYPES = new Set(["int", "float", "string", "bool"]);
const ECHO = `echo() {
  local nl=1 esc=1
  while [[ "$1" == -* ]]; do
    case "$1" in -n) nl=0 ;; -e) esc=1 ;; -E) esc=0 ;; *) break ;; esac
    shift
  done
  local out
  if [[ $esc -eq 1 ]]; then builtin printf -v out '%b' "$*"; else out="$*"; fi
  if [[ $nl -eq 1 && "$out" != *$'\\n' ]]; then builtin printf '%s\\n' "$out"; else builtin printf '%s' "$out"; fi
}
set -e
`;

class PipeError extends Error {}
class SyntaxErr extends PipeError {
  get code() { return 2; }
  get kind() { return "SYNTAX_ERROR"; }
}
class InvalidPipe extends PipeError {
  get code() { return 3; }
  get kind() { return "INVALID_PIPE"; }
}
class CacheErr extends PipeError {
  get code() { return 5; }
  get kind() { return "CACHE_ERROR"; }
}
/** Raised inside `requires` or `success` evaluation: the task fails (exit_code 1). */
class TaskFailure extends Error {}
class Break extends Error {}
class Continue extends Error {}
class Return extends Error {
  constructor(value) {
    super("return");
    this.value = value;
  }
}

// ---------------------------------------------------------------- values

const isInt = (v) => typeof v === "bigint";
const isFloat = (v) => typeof v === "number";
const isNumber = (v) => isInt(v) || isFloat(v);
const isBool = (v) => typeof v === "boolean";

/** A float's text as Python writes it: `5.0`, `2.5`, `1e+16`. */
function floatText(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return x.toFixed(1);
  let text = String(x);
  if (Math.abs(x) >= 1e16 && !text.includes("e")) text = x.toExponential();
  return text.replace(/e([+-])(\d)$/, "e$10$2");
}

/** Python's str() of a value (a file name given to contains/equals, an [env] value of the config). */
function pyStr(v) {
  if (v === null || v === undefined) return "None";
  if (isBool(v)) return v ? "True" : "False";
  if (isFloat(v)) return floatText(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return String(v);
}

function pyRepr(v) {
  return typeof v === "string" ? `'${v}'` : pyStr(v);
}

/** JSON text as Python's json.dumps writes it (separators `, ` and `: `, non-ASCII escaped). */
function pyJson(value, sortKeys = false) {
  if (value === null || value === undefined) return "null";
  if (isBool(value)) return value ? "true" : "false";
  if (isInt(value)) return value.toString();
  if (isFloat(value)) {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    return floatText(value);
  }
  if (typeof value === "string") {
    return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  }
  if (Array.isArray(value)) return `[${value.map((item) => pyJson(item, sortKeys)).join(", ")}]`;
  const keys = Object.keys(value);
  if (sortKeys) keys.sort();
  return `{${keys.map((key) => `${pyJson(key)}: ${pyJson(value[key], sortKeys)}`).join(", ")}}`;
}

function unescape(text) {
  return text.replace(/\\([\s\S])/g, (_, c) => (c in ESCAPES ? ESCAPES[c] : c));
}

function tokenize(text) {
  const tokens = [];
  let pos = 0;
  while (pos < text.length) {
    TOKEN.lastIndex = pos;
    const match = TOKEN.exec(text);
    if (!match) throw new SyntaxErr(`unexpected character '${text[pos]}'`);
    pos = TOKEN.lastIndex;
    const kind = GROUPS.find((group) => match.groups[group] !== undefined);
    if (kind !== "ws") tokens.push([kind, match[0]]);
  }
  tokens.push(["eof", ""]);
  return tokens;
}

// ---------------------------------------------------------------- the language

const KEYWORDS = new Set(["if", "elif", "else", "for", "while", "break", "continue", "return"]);
const BINARY = [["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-", "%"], ["*", "/"]];
const BOOLEANS = { TRUE: true, true: true, FALSE: false, false: false };

/** Recursive descent over the tokens of the expression language; builds arrays [kind, ...]. */
class Parser {
  constructor(text) {
    this.tokens = tokenize(text);
    this.pos = 0;
  }

  peek(offset = 0) {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  at(...values) {
    const [kind, text] = this.peek();
    return values.includes(text) && (kind === "op" || kind === "name");
  }

  take(value) {
    const token = this.peek();
    if (value !== undefined && token[1] !== value) {
      throw new SyntaxErr(`expected '${value}', found '${token[1] || "end of input"}'`);
    }
    this.pos += 1;
    return token;
  }

  skip(value) {
    if (this.at(value)) {
      this.pos += 1;
      return true;
    }
    return false;
  }

  done() {
    return this.peek()[0] === "eof";
  }

  program(end = "eof") {
    const body = [];
    while (!(end === "eof" ? this.done() : this.at(end))) {
      if (this.done()) throw new SyntaxErr("unterminated block");
      body.push(this.statement());
    }
    return body;
  }

  block() {
    this.take("{");
    const body = this.program("}");
    this.take("}");
    return body;
  }

  statement() {
    const [kind, text] = this.peek();
    const handler = kind === "name" ? STATEMENTS[text] : undefined;
    if (handler) return handler.call(this);
    if (this.isDeclaration()) return this.declaration();
    const node = this.simple();
    this.skip(";");
    return node;
  }

  isDeclaration() {
    const [kind, text] = this.peek();
    const [nextKind, nextText] = this.peek(1);
    return kind === "name" && (TYPES.has(text) || text === "list") && (nextKind === "name" || (nextKind === "op" && nextText === "["));
  }

  declaration() {
    parseType(this);
    const name = this.take()[1];
    this.take("=");
    const value = this.expression();
    this.skip(";");
    return ["assign", ["var", name], value];
  }

  simple() {
    const target = this.expression();
    if (this.skip("=")) return ["assign", target, this.expression()];
    if (this.at("++", "--")) return ["assign", target, ["binary", this.take()[1][0], target, ["lit", 1n]]];
    return ["expr", target];
  }

  sIf() {
    const branches = [];
    this.take();
    branches.push(this.conditionBlock());
    while (this.at("elif")) {
      this.take();
      branches.push(this.conditionBlock());
    }
    const orelse = this.skip("else") ? this.block() : [];
    return ["if", branches, orelse];
  }

  conditionBlock() {
    this.take("(");
    const cond = this.expression();
    this.take(")");
    return [cond, this.block()];
  }

  sWhile() {
    this.take();
    const [cond, body] = this.conditionBlock();
    return ["for", [], cond, [], body];
  }

  sFor() {
    this.take();
    this.take("(");
    const init = this.at(";") ? [] : [this.isDeclaration() ? this.declaration() : this.simple()];
    this.skip(";");
    const cond = this.at(";") ? ["lit", true] : this.expression();
    this.take(";");
    const step = this.at(")") ? [] : [this.simple()];
    this.take(")");
    return ["for", init, cond, step, this.block()];
  }

  sJump() {
    const word = this.take()[1];
    this.skip(";");
    return [word];
  }

  sReturn() {
    this.take();
    const value = this.at(";", "}") ? ["lit", null] : this.expression();
    this.skip(";");
    return ["return", value];
  }

  expression(level = 0) {
    if (level === BINARY.length) return this.unary();
    let left = this.expression(level + 1);
    while (this.peek()[0] === "op" && BINARY[level].includes(this.peek()[1])) {
      const op = this.take()[1];
      left = ["binary", op, left, this.expression(level + 1)];
    }
    return left;
  }

  unary() {
    if (this.at("!", "-")) {
      const op = this.take()[1];
      return ["unary", op, this.unary()];
    }
    let node = this.primary();
    while (this.at("[", "(")) node = this.peek()[1] === "[" ? this.index(node) : this.call(node);
    return node;
  }

  index(node) {
    this.take("[");
    const key = this.expression();
    this.take("]");
    return ["index", node, key];
  }

  call(node) {
    if (node[0] !== "var") throw new SyntaxErr("only a name can be called");
    this.take("(");
    const args = [];
    const kwargs = new Map();
    while (!this.at(")")) {
      if (this.peek()[0] === "name" && this.peek(1)[1] === "=" && this.peek(2)[1] !== "=") {
        const key = this.take()[1];
        this.take("=");
        kwargs.set(key, this.expression());
      } else if (kwargs.size) {
        throw new SyntaxErr("a positional argument follows a keyword argument");
      } else {
        args.push(this.expression());
      }
      if (!this.skip(",")) break;
    }
    this.take(")");
    return ["call", node[1], args, kwargs];
  }

  primary() {
    const [kind, text] = this.take();
    if (kind === "op" && text === "(") {
      const node = this.expression();
      this.take(")");
      return node;
    }
    if (kind === "op" && text === "[") return this.listLiteral();
    const factory = PRIMARIES[kind];
    if (factory === undefined || (kind === "name" && KEYWORDS.has(text))) {
      throw new SyntaxErr(`unexpected '${text || "end of input"}'`);
    }
    return factory(text);
  }

  listLiteral() {
    const items = [];
    while (!this.at("]")) {
      items.push(this.expression());
      if (!this.skip(",")) break;
    }
    this.take("]");
    return ["list", items];
  }
}

const STATEMENTS = {
  if: Parser.prototype.sIf,
  while: Parser.prototype.sWhile,
  for: Parser.prototype.sFor,
  break: Parser.prototype.sJump,
  continue: Parser.prototype.sJump,
  return: Parser.prototype.sReturn,
};

const PRIMARIES = {
  int: (text) => ["lit", BigInt(text)],
  float: (text) => ["lit", parseFloat(text)],
  str: (text) => ["str", unescape(text.slice(1, -1))],
  tpl: (text) => ["tpl", /\$\{\s*([A-Za-z_][\w.]*)\s*\}/.exec(text)[1]],
  env: (text) => ["env", text.slice(1)],
  name: (text) => (text in BOOLEANS ? ["lit", BOOLEANS[text]] : ["var", text]),
};

function parseType(parser) {
  const name = parser.take()[1];
  if (name === "list") {
    parser.take("[");
    const inner = parseType(parser);
    parser.take("]");
    return ["list", inner];
  }
  if (!TYPES.has(name)) throw new SyntaxErr(`unknown type '${name}'`);
  return name;
}

/** Whether a statement list holds a `return` anywhere, branches and loop bodies included. */
function containsReturn(body) {
  return body.some((node) => {
    if (node[0] === "return") return true;
    if (node[0] === "if") return node[1].some(([, branch]) => containsReturn(branch)) || containsReturn(node[2]);
    if (node[0] === "for") return containsReturn(node[4]);
    return false;
  });
}

// ---------------------------------------------------------------- pipeline file

const TASK_HEADER = /\s*(?:\/\/[^\n]*\s*)*task\s+([A-Za-z_]\w*)\s*\{/y;
const TRAILER = /\s*(?:\/\/[^\n]*\s*)*$/y;

/** [name, body text] of every `task NAME { ... }` of a pipeline file. */
function splitTasks(text) {
  const tasks = [];
  let pos = 0;
  for (;;) {
    TRAILER.lastIndex = pos;
    if (TRAILER.test(text)) return tasks;
    TASK_HEADER.lastIndex = pos;
    const match = TASK_HEADER.exec(text);
    if (!match) throw new SyntaxErr(`expected 'task NAME {' at offset ${pos}`);
    const end = matchingBrace(text, TASK_HEADER.lastIndex - 1);
    tasks.push([match[1], text.slice(TASK_HEADER.lastIndex, end)]);
    pos = end + 1;
  }
}

function matchingBrace(text, start) {
  const opener = text[start];
  const closer = { "{": "}", "[": "]" }[opener];
  let depth = 0;
  let quote = null;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (quote) {
      const escaped = ch === "\\" && quote === '"';
      if (ch === quote) quote = null;
      if (escaped) i += 1;
    } else if (text.startsWith("//", i) && (i === 0 || /\s/.test(text[i - 1]))) {
      const newline = text.indexOf("\n", i);
      i = (newline === -1 ? text.length : newline) - 1;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === opener) {
      depth += 1;
    } else if (ch === closer) {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  throw new SyntaxErr("unterminated block");
}

const FIELD = /\s*(?:\/\/[^\n]*\s*)*([A-Za-z_]\w*)\s*:?\s*/y;

function parseSections(body) {
  const sections = new Map();
  let pos = 0;
  while (body.slice(pos).trim() && !/^(\s*\/\/[^\n]*)*\s*$/.test(body.slice(pos))) {
    FIELD.lastIndex = pos;
    const match = FIELD.exec(body);
    if (!match) throw new SyntaxErr(`unexpected text '${body.slice(pos, pos + 20)}'`);
    const name = match[1];
    pos = FIELD.lastIndex;
    if (sections.has(name)) throw new SyntaxErr(`section '${name}' given twice`);
    if (body[pos] === "{" || body[pos] === "[") {
      const end = matchingBrace(body, pos);
      sections.set(name, body.slice(pos + 1, end));
      pos = end + 1;
    } else {
      const line = /^[^\n]*/.exec(body.slice(pos))[0];
      const value = line.replace(/\s+\/\/[^"']*$/, "");
      sections.set(name, value.trim().replace(/;+$/, "").trim());
      pos += line.length;
    }
  }
  return sections;
}

function parseParams(text) {
  const parser = new Parser(text);
  const params = [];
  let seenDefault = false;
  while (!parser.done()) {
    const name = parser.take()[1];
    parser.take(":");
    const type = parseType(parser);
    let fallback = null;
    if (parser.skip("=")) {
      fallback = parser.expression();
      seenDefault = true;
    } else if (seenDefault) {
      throw new SyntaxErr(`parameter '${name}' without a default follows one with a default`);
    }
    params.push([name, type, fallback]);
    if (!parser.skip(";")) parser.skip(",");
  }
  return params;
}

function parseSuccess(text) {
  const parser = new Parser(text);
  const criteria = new Map();
  while (!parser.done()) {
    const name = parser.take()[1];
    parser.take(":");
    if (parser.at("{")) {
      const body = parser.block();
      if (!containsReturn(body)) throw new SyntaxErr(`success criterion '${name}' is a block without a return`);
      criteria.set(name, ["block", body]);
    } else {
      criteria.set(name, ["expr", parser.expression()]);
    }
    parser.skip(";");
  }
  return criteria;
}

function parseOutput(text) {
  const quoted = text.length >= 2 && text[0] === text[text.length - 1] && (text[0] === '"' || text[0] === "'");
  return ["str", quoted ? unescape(text.slice(1, -1)) : text];
}

function parseTimeout(text) {
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) throw new SyntaxErr(`timeout must be a number of seconds, not '${text}'`);
  return parseFloat(text);
}

/** The items of a list body: quoted strings or bare words, separated by commas or white space. */
function parseList(text) {
  const items = [];
  for (const match of text.replace(/(^|\s)\/\/[^\n]*/g, "").matchAll(/"([^"]*)"|'([^']*)'|([^\s,[\]]+)/g)) {
    items.push(match.slice(1).find((group) => group));
  }
  return items;
}

const SETTING = /([A-Za-z_]\w*)\s*:?\s*(\[[^\]]*\]|"[^"]*"|'[^']*'|[^\s,;]+)/g;
const TTL_UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };

function parseSettings(text, allowed, what) {
  const pairs = [...text.replace(/(^|\s)\/\/[^\n]*/g, "").matchAll(SETTING)].map((match) => [match[1], match[2]]);
  const unknown = pairs.find(([name]) => !(name in allowed));
  if (unknown) throw new SyntaxErr(`unknown ${what} setting '${unknown[0]}'`);
  return Object.fromEntries(pairs.map(([name, value]) => [name, allowed[name](value)]));
}

function parseBool(text) {
  if (!(text in BOOLEANS)) throw new SyntaxErr(`expected a boolean, found '${text}'`);
  return BOOLEANS[text];
}

function parseInteger(text) {
  if (!/^-?\d+$/.test(text)) throw new SyntaxErr(`a ttl unit must be an integer, not '${text}'`);
  return BigInt(text);
}

function unquote(text) {
  const quoted = text.length >= 2 && text[0] === text[text.length - 1] && (text[0] === '"' || text[0] === "'");
  return quoted ? text.slice(1, -1) : text;
}

const CACHE_SETTINGS = {
  enabled: parseBool,
  strategy: unquote,
  version: unquote,
  location: unquote,
  ttl: (text) => parseSettings(text, Object.fromEntries(Object.keys(TTL_UNITS).map((unit) => [unit, parseInteger])), "ttl"),
  key: (text) => parseSettings(text, { include: parseList, exclude: parseList }, "key"),
};

function parseCache(text) {
  const sections = parseSections(text);
  const unknown = [...sections.keys()].filter((name) => !(name in CACHE_SETTINGS)).sort();
  if (unknown.length) throw new SyntaxErr(`unknown cache setting '${unknown[0]}'`);
  return Object.fromEntries([...sections].map(([name, value]) => [name, CACHE_SETTINGS[name](value)]));
}

const SECTIONS = {
  inputs: parseList,
  cache: parseCache,
  params: parseParams,
  run: (text) => text,
  success: parseSuccess,
  requires: (text) => new Parser(text).program(),
  output: parseOutput,
  timeout: parseTimeout,
};

function loadPipeline(file) {
  const tasks = new Map();
  for (const [name, body] of splitTasks(fs.readFileSync(file, "utf8"))) {
    if (tasks.has(name)) throw new SyntaxErr(`task '${name}' defined twice`);
    const parsed = {};
    let unknown;
    try {
      const sections = parseSections(body);
      for (const [key, text] of sections) if (key in SECTIONS) parsed[key] = SECTIONS[key](text);
      unknown = [...sections.keys()].filter((key) => !(key in SECTIONS)).sort();
    } catch (error) {
      if (error instanceof SyntaxErr) throw new SyntaxErr(`in task '${name}': ${error.message}`);
      throw error;
    }
    if (unknown.length) throw new SyntaxErr(`in task '${name}': unknown section '${unknown[0]}'`);
    if (!("run" in parsed) && !("requires" in parsed)) throw new SyntaxErr(`task '${name}' has neither run nor requires`);
    tasks.set(name, { params: [], success: new Map(), requires: [], ...parsed, name });
  }
  return tasks;
}

function* callsIn(node) {
  if (Array.isArray(node)) {
    if (node[0] === "call") yield node[1];
    for (const part of node) yield* callsIn(part);
  } else if (node instanceof Map) {
    for (const part of node.values()) yield* callsIn(part);
  }
}

function checkGraph(tasks, entry) {
  for (const task of tasks.values()) {
    for (const callee of callsIn(task.requires)) {
      if (!tasks.has(callee) && !(callee in BUILTINS) && callee !== "fail" && callee !== "fails") {
        throw new InvalidPipe(`task '${task.name}' calls undefined task '${callee}'`);
      }
    }
  }
  const visit = (name, trail) => {
    if (trail.includes(name)) throw new InvalidPipe(`circular dependency: ${[...trail, name].join(" -> ")}`);
    const callees = new Set([...callsIn(tasks.get(name).requires)].filter((callee) => tasks.has(callee)));
    for (const callee of callees) visit(callee, [...trail, name]);
  };
  visit(entry, []);
}

// ---------------------------------------------------------------- cache settings

/** A task's cache settings with every default filled in: the `cache` object of its records. */
function cacheSettings(rawSettings, location) {
  const ttl = rawSettings.ttl;
  const key = rawSettings.key || {};
  const given = (name, fallback) => (rawSettings[name] === undefined ? fallback : rawSettings[name]);
  return { enabled: given("enabled", false), strategy: given("strategy", "content"), version: given("version", null),
    location: given("location", location),
    ttl: ttl === undefined ? null : Object.fromEntries(Object.keys(TTL_UNITS).map((unit) => [unit, ttl[unit] ?? null])),
    key: { include: key.include || [], exclude: key.exclude || [] } };
}

function ttlSeconds(settings) {
  return Object.entries(settings.ttl || {}).reduce((sum, [unit, amount]) => sum + Number(amount || 0) * TTL_UNITS[unit], 0);
}

/** Why these settings are refused (CACHE_ERROR), first reason first; empty when they are fine. */
function cacheProblems(settings, params) {
  const { strategy, ttl } = settings;
  const named = new Set([...settings.key.include, ...settings.key.exclude]);
  const strangers = [...named].filter((name) => !params.includes(name)).sort();
  return [
    [!(strategy in STRATEGIES), `unknown cache strategy '${strategy}'`],
    [strategy === "stale" && !ttlSeconds(settings), "the stale strategy needs a ttl above 0"],
    [strategy !== "stale" && ttl !== null, `a ttl is given with the '${strategy}' strategy`],
    [Object.values(ttl || {}).some((amount) => Number(amount || 0) < 0), "a ttl unit is negative"],
    [strangers.length > 0, `cache key names unknown parameter(s) ${strangers.join(", ")}`],
  ].filter(([failed]) => failed).map(([, message]) => message);
}

function checkCaches(tasks, location) {
  for (const task of tasks.values()) {
    const params = task.params.map(([name]) => name);
    const problems = cacheProblems(cacheSettings(task.cache || {}, location), params);
    if (problems.length) throw new CacheErr(`task '${task.name}': ${problems[0]}`);
  }
}

/** The distinct paths of per-item path lists, sorted. */
function distinct(named) {
  return [...new Set(named.flat())].sort();
}

/** An input path as its record shows it: `workspace/<path relative to the workspace>`, else absolute. */
function shown(file, workspace) {
  const relative = path.relative(workspace, file);
  if (relative.startsWith("..")) return file;
  return relative === "" ? "workspace" : `workspace/${relative}`;
}

/** Each input file's content digest, null for a path that is not a file. */
function fingerprint(paths) {
  return pyJson(Object.fromEntries(paths.map((file) => [file,
    isFile(file) ? crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex") : null])));
}

const STRATEGIES = {
  content: (entry, settings, paths) => entry.contents === fingerprint(paths),
  stale: (entry, settings) => Date.now() / 1000 - entry.time < ttlSeconds(settings),
  always: () => true,
};

/** A glob pattern's segment as a regular expression (fnmatch: `*`, `?`, `[...]`, `[!...]`). */
function segmentPattern(segment) {
  let source = "";
  for (let i = 0; i < segment.length; i += 1) {
    const ch = segment[i];
    const close = ch === "[" ? segment.indexOf("]", i + 2) : -1;
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else if (close !== -1) {
      let inner = segment.slice(i + 1, close).replace(/\\/g, "\\\\");
      if (inner.startsWith("!")) inner = `^${inner.slice(1)}`;
      source += `[${inner}]`;
      i = close;
    } else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "s");
}

const MAGIC = /[*?[]/;

function listDir(dir) {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function descendants(dir, withFiles) {
  const found = [];
  for (const entry of listDir(dir)) {
    if (entry.name.startsWith(".")) continue;
    const child = path.join(dir, entry.name);
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(child));
    if (isDir || withFiles) found.push(child);
    if (isDir) found.push(...descendants(child, withFiles));
  }
  return found;
}

function isDirectory(file) {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function exists(file) {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** The paths an absolute glob pattern matches, as Python's glob.glob(recursive=True) finds them. */
function globPaths(base, segments) {
  if (!segments.length) return exists(base) ? [base] : [];
  const [segment, ...rest] = segments;
  if (segment === "**") {
    if (!rest.length) return [base, ...descendants(base, true)];
    return [base, ...descendants(base, false)].flatMap((dir) => globPaths(dir, rest));
  }
  if (!MAGIC.test(segment)) return globPaths(path.join(base, segment), rest);
  const pattern = segmentPattern(segment);
  return listDir(base)
    .filter((entry) => pattern.test(entry.name) && (segment.startsWith(".") || !entry.name.startsWith(".")))
    .flatMap((entry) => globPaths(path.join(base, entry.name), rest));
}

// ---------------------------------------------------------------- values of parameters

function castEnv(type, text) {
  const stripped = text.trim();
  if (type === "int" && /^[+-]?\d+$/.test(stripped)) return BigInt(stripped);
  if (type === "float" && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(stripped)) return parseFloat(stripped);
  if (type === "string") return text;
  if (type === "bool" && ["1", "true", "0", "false"].includes(stripped.toLowerCase())) {
    return ["1", "true"].includes(stripped.toLowerCase());
  }
  if (!TYPES.has(type)) throw new InvalidPipe(`an environment variable cannot be a default of type ${typeName(type)}`);
  throw new InvalidPipe(`environment value '${text}' is not a ${type}`);
}

function typeName(type) {
  return Array.isArray(type) ? `list[${typeName(type[1])}]` : type;
}

function checkType(type, value, what) {
  if (Array.isArray(type)) {
    if (!Array.isArray(value)) throw new InvalidPipe(`${what}: expected ${typeName(type)}, got ${show(value)}`);
    return value.map((item) => checkType(type[1], item, what));
  }
  const ok = {
    int: (v) => isInt(v) || (isFloat(v) && Number.isInteger(v)),
    float: isNumber,
    string: (v) => typeof v === "string",
    bool: isBool,
  }[type];
  if (!ok(value)) throw new InvalidPipe(`${what}: expected ${type}, got ${show(value)}`);
  if (type === "int") return BigInt(value);
  if (type === "float") return Number(value);
  return value;
}

/** A value's text in run scripts, outputs and strings: TRUE/FALSE for booleans; a list has none. */
function show(value) {
  if (isBool(value)) return value ? "TRUE" : "FALSE";
  if (Array.isArray(value)) throw new TaskFailure("a list cannot be converted to a string");
  return pyStr(value);
}

function arith(op, left, right) {
  if (op === "%" && (typeof left === "string" || typeof right === "string")) return show(left) + show(right);
  if (!isNumber(left) || !isNumber(right)) throw new TaskFailure(`operator '${op}' needs numbers`);
  if ((op === "/" || op === "%") && Number(right) === 0) throw new TaskFailure("division by zero");
  if (op === "/") return Number(left) / Number(right);
  if (isInt(left) && isInt(right)) {
    if (op === "+") return left + right;
    if (op === "-") return left - right;
    if (op === "*") return left * right;
    return ((left % right) + right) % right;
  }
  const [a, b] = [Number(left), Number(right)];
  if (op === "+") return a + b;
  if (op === "-") return a - b;
  if (op === "*") return a * b;
  return ((a % b) + b) % b;
}

function equal(a, b) {
  if (isBool(a) !== isBool(b)) return false;
  if (isNumber(a) && isNumber(b)) return Number(a) === Number(b) && (isFloat(a) || isFloat(b) || a === b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equal(item, b[i]));
  return a === b;
}

function compare(op, a, b) {
  const numbers = isNumber(a) && isNumber(b);
  if (!numbers && !(typeof a === "string" && typeof b === "string")) {
    throw new TaskFailure(`cannot compare ${show(a)} and ${show(b)}`);
  }
  if (op === "<") return a < b;
  if (op === "<=") return a <= b;
  if (op === ">") return a > b;
  return a >= b;
}

function truthy(value) {
  if (Array.isArray(value)) throw new TaskFailure("a list is not a condition");
  return Boolean(value);
}

function indexOf(container, key) {
  if (!Array.isArray(container) || !isInt(key)) throw new TaskFailure("indexing needs a list and an int");
  const length = BigInt(container.length);
  if (key < -length || key >= length) throw new TaskFailure("list index out of range");
  return Number(key < 0n ? key + length : key);
}

// ---------------------------------------------------------------- evaluation

/** What an expression sees: variables, the task's params, workspace, output, run dir and streams. */
class Scope {
  constructor(runner, job, streams = null) {
    this.runner = runner;
    this.job = job;
    this.streams = streams || {};
    this.vars = new Map(Object.entries(this.streams));
  }

  template(key) {
    if (key.startsWith("params.")) {
      const name = key.slice(7);
      if (!this.job.params.has(name)) throw new TaskFailure(`unknown parameter '${name}'`);
      return this.job.params.get(name);
    }
    if (key === "workspace") return this.runner.workspace;
    if (key === "output") {
      if (this.job.output === null) throw new TaskFailure("${output} in a task without output");
      return this.job.output;
    }
    throw new TaskFailure(`unknown placeholder \${${key}}`);
  }

  interpolate(text) {
    return text.replace(TEMPLATE, (_, key) => show(this.template(key)));
  }

  /** `text` with each placeholder replaced as in a run script (a list as its items and spaces). */
  interpolateRaw(text) {
    return text.replace(TEMPLATE, (_, key) => raw(this.template(key)));
  }

  evaluate(node) {
    return EVALUATORS[node[0]](this, node);
  }

  run(body) {
    for (const node of body) EXECUTORS[node[0]](this, node);
  }

  runLoop(node) {
    const [, init, cond, step, body] = node;
    this.run(init);
    while (truthy(this.evaluate(cond))) {
      try {
        this.run(body);
      } catch (signal) {
        if (signal instanceof Break) break;
        if (!(signal instanceof Continue)) throw signal;
      }
      this.run(step);
    }
  }

  runIf(node) {
    for (const [cond, body] of node[1]) {
      if (truthy(this.evaluate(cond))) return this.run(body);
    }
    return this.run(node[2]);
  }

  runExpr(node) {
    const target = node[1];
    if (target[0] === "call" && this.runner.tasks.has(target[1])) {
      if (!this.call(target)) throw new TaskFailure(`required task '${target[1]}' failed`);
      return;
    }
    if (target[0] === "call" && (target[1] === "fail" || target[1] === "fails")) {
      this.expectFailure(target);
      return;
    }
    this.evaluate(target);
  }

  expectFailure(node) {
    const inner = node[2].length === 1 && !node[3].size ? node[2][0] : null;
    if (inner === null || inner[0] !== "call" || !this.runner.tasks.has(inner[1])) {
      throw new TaskFailure("fail() takes one task call");
    }
    if (this.call(inner)) throw new TaskFailure(`task '${inner[1]}' succeeded where fail() expected a failure`);
  }

  assign(node) {
    const [, target, valueNode] = node;
    const value = this.evaluate(valueNode);
    if (target[0] === "var") {
      this.vars.set(target[1], value);
      return;
    }
    if (target[0] !== "index") throw new TaskFailure("invalid assignment target");
    const container = this.evaluate(target[1]);
    container[indexOf(container, this.evaluate(target[2]))] = value;
  }

  call(node) {
    const [, name, args, kwargs] = node;
    if (this.runner.tasks.has(name)) {
      if (Object.keys(this.streams).length) throw new TaskFailure("a success criterion cannot call a task");
      const values = args.map((arg) => this.evaluate(arg));
      const named = new Map([...kwargs].map(([key, arg]) => [key, this.evaluate(arg)]));
      return this.runner.execute(name, values, named, this.job.job_id);
    }
    if (name === "fail" || name === "fails") throw new TaskFailure("fail() is a statement of requires");
    if (!(name in BUILTINS)) throw new TaskFailure(`unknown function '${name}'`);
    return BUILTINS[name](this, args);
  }

  /** The text a contains/equals argument names: a stream by its bare name, else a file. */
  source(node) {
    if (node[0] === "var" && node[1] in this.streams) return this.streams[node[1]];
    const file = path.resolve(this.runner.workspace, pyStr(this.evaluate(node)));
    return isFile(file) ? fs.readFileSync(file).toString("utf8") : null;
  }
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function arity(name, count, fn) {
  return (scope, args) => {
    if (args.length !== count) throw new TaskFailure(`${name}() takes ${count} argument(s)`);
    return fn(scope, args);
  };
}

const BUILTINS = {
  len: arity("len", 1, (scope, args) => {
    const value = scope.evaluate(args[0]);
    if (typeof value === "string") return BigInt([...value].length);
    if (Array.isArray(value)) return BigInt(value.length);
    throw new TaskFailure("len() takes a list or a string");
  }),
  contains: arity("contains", 2, (scope, args) => {
    const text = scope.source(args[0]);
    const pattern = show(scope.evaluate(args[1]));
    if (text === null) return false;
    if (text.includes(pattern)) return true;
    try {
      return new RegExp(pattern).test(text);
    } catch {
      return false;
    }
  }),
  equals: arity("equals", 2, (scope, args) => {
    const expected = scope.evaluate(args[1]);
    if (args[0][0] === "var" && args[0][1] === "exit_code" && "exit_code" in scope.streams) {
      const comparable = isNumber(expected) || isBool(expected);
      return comparable && Number(scope.streams.exit_code) === Number(expected);
    }
    return scope.source(args[0]) === show(expected);
  }),
  exists: arity("exists", 1, (scope, args) => fs.existsSync(path.resolve(scope.runner.workspace, show(scope.evaluate(args[0]))))),
};

const EVALUATORS = {
  lit: (scope, node) => node[1],
  str: (scope, node) => scope.interpolate(node[1]),
  tpl: (scope, node) => scope.template(node[1]),
  env: (scope, node) => {
    if (!(node[1] in scope.runner.env)) throw new TaskFailure(`environment variable '${node[1]}' is not set`);
    return scope.runner.env[node[1]];
  },
  var: (scope, node) => {
    if (!scope.vars.has(node[1])) throw new TaskFailure(`undefined variable '${node[1]}'`);
    return scope.vars.get(node[1]);
  },
  list: (scope, node) => node[1].map((item) => scope.evaluate(item)),
  binary: (scope, node) => {
    const [, op, left, right] = node;
    if (op === "&&" || op === "||") {
      const first = truthy(scope.evaluate(left));
      return first === (op === "||") ? first : truthy(scope.evaluate(right));
    }
    const a = scope.evaluate(left);
    const b = scope.evaluate(right);
    if (op === "==" || op === "!=") return equal(a, b) === (op === "==");
    if (["<", "<=", ">", ">="].includes(op)) return compare(op, a, b);
    return arith(op, a, b);
  },
  unary: (scope, node) => {
    const value = scope.evaluate(node[2]);
    if (node[1] === "!") return !truthy(value);
    if (!isNumber(value)) throw new TaskFailure("unary minus needs a number");
    return -value;
  },
  index: (scope, node) => {
    const container = scope.evaluate(node[1]);
    return container[indexOf(container, scope.evaluate(node[2]))];
  },
  call: (scope, node) => scope.call(node),
};

const EXECUTORS = {
  assign: (scope, node) => scope.assign(node),
  expr: (scope, node) => scope.runExpr(node),
  if: (scope, node) => scope.runIf(node),
  for: (scope, node) => scope.runLoop(node),
  return: (scope, node) => {
    throw new Return(scope.evaluate(node[1]));
  },
  break: () => {
    throw new Break("break");
  },
  continue: () => {
    throw new Continue("continue");
  },
};

// ---------------------------------------------------------------- running

const RECORD_KEYS = ["job_id", "task", "params", "stdout", "stderr", "timed_out", "success", "output", "exit_code",
  "parent", "duration", "inputs", "cache"];
const CACHE_KEYS = ["cache_hit", "cache_key"];

function succeeded(result) {
  return result.exit_code === 0n && Object.values(result.success).every(Boolean);
}

function write(text) {
  fs.writeSync(1, text);
}

/** Runs jobs: numbering, events on stdout, records in OUTPUT/jobs.jsonl, the workspace rules. */
class Runner {
  constructor(tasks, workspace, output, env, cache) {
    this.tasks = tasks;
    this.cache = cache;
    this.store = new Map();
    this.workspace = workspace;
    this.env = env;
    this.jobsFile = path.join(output, "jobs.jsonl");
    this.nextId = 0;
    this.cwdStack = [workspace];
  }

  event(name, job) {
    write(`${pyJson({ event: name, job_id: job.job_id, task: job.task, parent: job.parent })}\n`);
  }

  bind(task, args, kwargs) {
    const spec = task.params;
    if (args.length > spec.length) {
      throw new InvalidPipe(`task '${task.name}' takes ${spec.length} argument(s), ${args.length} given`);
    }
    const names = new Set(spec.map(([name]) => name));
    const unknown = [...kwargs.keys()].filter((key) => !names.has(key)).sort();
    if (unknown.length) throw new InvalidPipe(`task '${task.name}' has no parameter '${unknown[0]}'`);
    const params = new Map();
    spec.forEach(([name, type, fallback], position) => {
      if (position < args.length && kwargs.has(name)) {
        throw new InvalidPipe(`parameter '${name}' of task '${task.name}' given twice`);
      }
      const value = this.argument(task, position, name, args, kwargs, type, fallback);
      params.set(name, checkType(type, value, `parameter '${name}' of task '${task.name}'`));
    });
    return params;
  }

  argument(task, position, name, args, kwargs, type, fallback) {
    if (position < args.length) return args[position];
    if (kwargs.has(name)) return kwargs.get(name);
    if (fallback === null) throw new InvalidPipe(`task '${task.name}' is missing its argument '${name}'`);
    if (fallback[0] === "env") {
      if (!(fallback[1] in this.env)) throw new InvalidPipe(`environment variable '${fallback[1]}' of a default is not set`);
      return castEnv(type, this.env[fallback[1]]);
    }
    try {
      return new Scope(this, { params: new Map(), output: null }).evaluate(fallback);
    } catch (error) {
      if (error instanceof TaskFailure) {
        throw new InvalidPipe(`default of '${name}' in task '${task.name}': ${error.message}`);
      }
      throw error;
    }
  }

  outputDir(task, job) {
    if (task.output === undefined) return null;
    const label = show(new Scope(this, job).evaluate(task.output));
    const dir = path.resolve(this.cwdStack[this.cwdStack.length - 1], label);
    if (dir !== this.workspace && !dir.startsWith(this.workspace + path.sep)) {
      throw new InvalidPipe(`output '${label}' of task '${task.name}' escapes the workspace`);
    }
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  execute(name, args, kwargs, parent) {
    const task = this.tasks.get(name);
    this.nextId += 1;
    const job = { job_id: this.nextId, task: name, params: new Map(), parent, output: null, inputs: null, cache: null };
    this.event("TASK_STARTED", job);
    const start = process.hrtime.bigint();
    job.params = this.bind(task, args, kwargs);
    const out = this.outputDir(task, job);
    job.output = out === null ? null : path.relative(this.workspace, out) || ".";
    job.cwd = out || this.workspace;
    this.cwdStack.push(out || this.cwdStack[this.cwdStack.length - 1]);
    let result;
    try {
      result = this.attempt(task, job);
    } finally {
      this.cwdStack.pop();
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const record = { ...job, params: Object.fromEntries(job.params), ...result, duration: Math.round(seconds * 1e4) / 1e4 };
    const ok = succeeded(record);
    const keys = job.cache ? [...RECORD_KEYS, ...CACHE_KEYS] : RECORD_KEYS;
    fs.appendFileSync(this.jobsFile, `${pyJson(Object.fromEntries(keys.map((key) => [key, record[key]])))}\n`);
    this.event(ok ? "TASK_COMPLETED" : "TASK_FAILED", job);
    return ok;
  }

  attempt(task, job) {
    try {
      new Scope(this, job).run(task.requires);
      const named = this.inputs(task, job);
      const listed = named.flat().map((file) => shown(file, this.workspace)).sort();
      job.inputs = listed.length ? listed : null;
      job.paths = distinct(named);
    } catch (error) {
      if (error instanceof TaskFailure) {
        return { stdout: "", stderr: "", timed_out: false, success: {}, exit_code: 1n };
      }
      throw error;
    }
    const settings = this.settings(task);
    return settings === null ? this.perform(task, job) : this.cached(task, job, settings);
  }

  /** The task's cache settings when it is cacheable in this run, else null. */
  settings(task) {
    const cacheable = task.cache && task.cache.enabled && this.cache.enabled;
    if (!cacheable || this.cache.force_refresh.includes(task.name)) return null;
    return cacheSettings(task.cache, this.cache.location);
  }

  /** Per item of the task's `inputs`, in order: the normalised absolute paths it names (a glob's matches,
   * sorted; the item itself when it is no glob or matches nothing). */
  inputs(task, job) {
    const scope = new Scope(this, job);
    return (task.inputs || []).map((item) => {
      const file = path.resolve(this.workspace, scope.interpolateRaw(item));
      const matches = MAGIC.test(item) ? globPaths("/", file.split("/").filter(Boolean)) : [];
      const found = [...new Set(matches.map((match) => path.normalize(match)))].sort();
      return found.length ? found : [file];
    });
  }

  cached(task, job, settings) {
    const keyParams = settings.key.include.length ? settings.key.include : [...job.params.keys()];
    const kept = Object.fromEntries(keyParams.filter((name) => !settings.key.exclude.includes(name))
      .map((name) => [name, job.params.get(name)]));
    const key = crypto.createHash("sha256").update(pyJson([task.name, kept, settings.version], true)).digest("hex");
    const entry = this.store.get(key);
    const hit = entry !== undefined && STRATEGIES[settings.strategy](entry, settings, job.paths);
    Object.assign(job, { cache: settings, cache_key: key, cache_hit: hit });
    this.event("CACHE_CHECK", job);
    this.event(hit ? "CACHE_HIT" : "CACHE_MISS", job);
    if (hit) {
      job.output = entry.output;
      return entry.result;
    }
    const result = this.perform(task, job);
    if (succeeded(result)) {
      this.store.set(key, { result, time: Date.now() / 1000, output: job.output,
        contents: fingerprint(distinct(this.inputs(task, job))) });
    }
    return result;
  }

  perform(task, job) {
    this.event("TASK_RUNNING", job);
    const [stdout, stderr, code, timedOut] = this.shell(task, job);
    const streams = { stdout, stderr, exit_code: code };
    const success = {};
    for (const [name, spec] of task.success) success[name] = criterion(new Scope(this, job, streams), spec);
    return { stdout, stderr, timed_out: timedOut, success, exit_code: code };
  }

  shell(task, job) {
    const scope = new Scope(this, job);
    let script;
    try {
      script = scope.interpolateRaw(task.run || "").trim();
    } catch (error) {
      if (error instanceof TaskFailure) return ["", `${error.message}\n`, 1n, false];
      throw error;
    }
    if (!script) return ["", "", 0n, false];
    const timeout = task.timeout;
    const command = timeout === undefined ? ["bash", "-c", ECHO + script]
      : ["timeout", "-s", "KILL", String(timeout), "bash", "-c", ECHO + script];
    const start = Date.now();
    const proc = childProcess.spawnSync(command[0], command.slice(1), { cwd: job.cwd, env: this.env,
      maxBuffer: 1 << 30 });
    const killed = proc.signal === "SIGKILL" || proc.status === 137;
    if (timeout !== undefined && killed && (Date.now() - start) / 1000 >= timeout * 0.99) {
      return [clean(proc.stdout), clean(proc.stderr), 124n, true];
    }
    const code = proc.status === null ? 128 + (require("os").constants.signals[proc.signal] || 0) : proc.status;
    return [clean(proc.stdout), clean(proc.stderr), BigInt(code), false];
  }
}

function raw(value) {
  return Array.isArray(value) ? value.map(show).join(" ") : show(value);
}

function clean(data) {
  return (data || Buffer.alloc(0)).toString("utf8").replace(/[\u2018\u2019]/g, "'");
}

/** A success criterion's value: FALSE when it fails to evaluate or a block ends without `return`. */
function criterion(scope, [kind, node]) {
  try {
    if (kind === "expr") return truthy(scope.evaluate(node));
    scope.run(node);
  } catch (error) {
    if (error instanceof Return) return truthy(error.value);
    if (error instanceof TaskFailure) return false;
    throw error;
  }
  return false;
}

// ---------------------------------------------------------------- command line

function loadConfig(file) {
  if (file === undefined) return {};
  let config;
  try {
    config = TOML.parse(fs.readFileSync(file, "utf8"), { integersAsBigInt: true });
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "EISDIR") throw error;
    throw new SyntaxErr(`config ${file}: ${error.message.split("\n")[0]}`);
  }
  const entry = config.entry === undefined ? "" : config.entry;
  const cleanCwd = config.clean_cwd === undefined ? false : config.clean_cwd;
  if (typeof entry !== "string" || typeof cleanCwd !== "boolean") {
    throw new SyntaxErr("config: entry must be a string and clean_cwd a boolean");
  }
  if (config.env !== undefined && (typeof config.env !== "object" || Array.isArray(config.env))) {
    throw new SyntaxErr("config: [env] must be a table");
  }
  return config;
}

function tomlText(value) {
  if (isFloat(value)) return floatText(value);
  return pyStr(value);
}

/** The config's [cache] table with its defaults; CacheErr when a value has the wrong type. */
function cacheConfig(config) {
  const table = config.cache === undefined ? {} : config.cache;
  if (typeof table !== "object" || Array.isArray(table) || table === null) throw new CacheErr("config: [cache] must be a table");
  const cache = { enabled: true, location: ".pipe-cache", force_refresh: [], ...table };
  const names = cache.force_refresh;
  const valid = isBool(cache.enabled) && typeof cache.location === "string" && Array.isArray(names);
  if (!valid || !names.every((name) => typeof name === "string")) {
    throw new CacheErr("config [cache]: enabled must be a boolean, location a string, force_refresh a list of strings");
  }
  // the cache lives in memory, so the config's location stores nothing; a record shows the task's own location
  return { ...cache, location: ".pipe-cache" };
}

function parseEntry(text) {
  const parser = new Parser(text);
  const node = parser.expression();
  if (!parser.done() || (node[0] !== "var" && node[0] !== "call")) {
    throw new SyntaxErr(`entry '${text}' is not a task name or call`);
  }
  return node[0] === "var" ? ["call", node[1], [], new Map()] : node;
}

function parseArgs(argv) {
  const options = {};
  const positional = [];
  for (let i = 0; i < argv.length; i += 1) {
    const match = /^--(workspace|output|config)(?:=(.*))?$/s.exec(argv[i]);
    if (match && match[2] !== undefined) {
      options[match[1]] = match[2];
    } else if (match && i + 1 < argv.length) {
      options[match[1]] = argv[i + 1];
      i += 1;
    } else if (argv[i].startsWith("-") && argv[i] !== "-") {
      return null;
    } else {
      positional.push(argv[i]);
    }
  }
  if (positional.length !== 1 || options.workspace === undefined || options.output === undefined) return null;
  return { pipeline: positional[0], ...options };
}

function emptyDirectory(dir) {
  for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
}

function run(args) {
  if (!isFile(args.pipeline)) throw new SyntaxErr(`pipeline file ${args.pipeline} not found`);
  const tasks = loadPipeline(args.pipeline);
  const config = loadConfig(args.config);
  const entry = parseEntry(config.entry === undefined ? "main" : config.entry);
  const cache = cacheConfig(config);
  checkCaches(tasks, cache.location);
  if (!tasks.has(entry[1])) throw new InvalidPipe(`entry task '${entry[1]}' is not defined`);
  checkGraph(tasks, entry[1]);
  fs.mkdirSync(path.resolve(args.workspace), { recursive: true });
  const workspace = fs.realpathSync(path.resolve(args.workspace));
  const output = path.resolve(args.output);
  if (config.clean_cwd) emptyDirectory(workspace);
  fs.mkdirSync(output, { recursive: true });
  fs.writeFileSync(path.join(output, "jobs.jsonl"), "");
  const env = { ...process.env };
  for (const [key, value] of Object.entries(config.env || {})) env[key] = tomlText(value);
  const runner = new Runner(tasks, workspace, output, env, cache);
  const scope = new Scope(runner, { params: new Map(), output: null, job_id: null });
  const values = entry[2].map((arg) => scope.evaluate(arg));
  const named = new Map([...entry[3]].map(([key, arg]) => [key, scope.evaluate(arg)]));
  return runner.execute(entry[1], values, named, null) ? 0 : 1;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args === null) {
    process.stderr.write("usage: launch <pipeline> --workspace <dir> --output <dir> [--config <file>]\n");
    process.exit(2);
  }
  try {
    process.exitCode = run(args);
  } catch (error) {
    if (!(error instanceof PipeError)) throw error;
    process.stderr.write(`${error.kind}:${error.message}\n`);
    process.exitCode = error.code;
  }
}

main();
