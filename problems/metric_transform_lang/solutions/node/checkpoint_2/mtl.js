// MTL checkpoint 2: typed schemas with inheritance and calculated fields, a pipeline block with parameters,
// general expressions, calcs before and after aggregation and lag/lead; programs without blocks as before.
"use strict";

const fs = require("fs");

const KINDS = { 1: "bad_dsl", 2: "type_error", 3: "bad_io", 4: "runtime_error" };
const LEGACY_TYPES = {
  timestamp: "timestamp", location: "string", item: "string", price: "float",
  quantity: "float", unit: "string", category: "string",
};
const TYPES = ["string", "int", "float", "bool", "timestamp"];
const NUMERIC = ["int", "float"];
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UNITS = { m: 60, h: 3600, d: 86400 };
const KEYWORDS = ["filter", "apply", "group_by", "window", "calc", "aggregate", "schema", "pipeline", "params", "}"];
const WORDS = { true: true, false: false, null: null };

class MtlError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
const fail = (code, message) => { throw new MtlError(code, message); };
const has = (object, key) => Object.hasOwn(object, key);

// ---------------------------------------------------------------- expressions

const TOKEN = new RegExp(
  String.raw`\s*(?:(?<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)` +
    String.raw`|(?<str>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")` +
    String.raw`|(?<name>[A-Za-z_][A-Za-z0-9_]*)|(?<op><=|>=|==|!=|[<>()&|!,+\-*/])|(?<bad>\S))`,
  "y",
);

function tokenize(text) {
  const tokens = [];
  TOKEN.lastIndex = 0;
  let match;
  while (TOKEN.lastIndex < text.length && (match = TOKEN.exec(text))) {
    const found = Object.entries(match.groups).find(([, v]) => v !== undefined);
    if (!found) break;
    if (found[0] === "bad") fail(1, `unexpected character ${found[1]}`);
    tokens.push(found);
  }
  tokens.push(["end", null]);
  return tokens;
}

function stringValue(text) {
  const quote = text[0];
  return text.slice(1, -1).replace(new RegExp(String.raw`\\(.)|${quote}${quote}`, "g"), (_, escaped) => escaped ?? quote);
}

// or := and ('|' and)*; and := cmp ('&' cmp)*; cmp := sum [('in' | relop) sum];
// sum := product (('+'|'-') product)*; product := unary (('*'|'/') unary)*; unary := ('!'|'-') unary | primary
class Parser {
  constructor(text) {
    this.tokens = tokenize(text);
    this.at = 0;
  }
  peek() { return this.tokens[this.at]; }
  take() { return this.tokens[this.at++]; }
  isOp(...ops) { const [kind, value] = this.peek(); return kind === "op" && ops.includes(value); }
  expect(op) { if (!this.isOp(op)) fail(1, `expected ${op}`); this.take(); }
  parse() {
    const expr = this.disjunction();
    if (this.peek()[0] !== "end") fail(1, `unexpected ${this.peek()[1]} in expression`);
    return expr;
  }
  chain(operators, operand) {
    let expr = operand();
    while (this.isOp(...Object.keys(operators))) {
      const op = this.take()[1];
      expr = { kind: operators[op], op, args: [expr, operand()] };
    }
    return expr;
  }
  disjunction() { return this.chain({ "|": "or" }, () => this.conjunction()); }
  conjunction() { return this.chain({ "&": "and" }, () => this.comparison()); }
  sum() { return this.chain({ "+": "bin", "-": "bin" }, () => this.product()); }
  product() { return this.chain({ "*": "bin", "/": "bin" }, () => this.unary()); }
  comparison() {
    const left = this.sum();
    const [kind, text] = this.peek();
    if (kind === "name" && text.toLowerCase() === "in") {
      this.take();
      const right = this.sum();
      if (!(left.kind === "lit" && typeof left.value === "string") || right.kind !== "col") {
        fail(1, "'in' takes a string literal on the left and a column on the right");
      }
      return { kind: "in", args: [left, right] };
    }
    if (kind === "op" && ["<", "<=", ">", ">=", "==", "!="].includes(text)) {
      this.take();
      return { kind: "cmp", op: text, args: [left, this.sum()] };
    }
    return left;
  }
  unary() {
    if (this.isOp("!", "-")) {
      const kind = this.take()[1] === "!" ? "not" : "neg";
      return { kind, args: [this.unary()] };
    }
    return this.primary();
  }
  primary() {
    const [kind, text] = this.take();
    if (kind === "num") return { kind: "lit", value: Number(text), type: /[.eE]/.test(text) ? "float" : "int" };
    if (kind === "str") return { kind: "lit", value: stringValue(text), type: "string" };
    const lower = kind === "name" ? text.toLowerCase() : null;
    if (lower !== null && has(WORDS, lower)) {
      return { kind: "lit", value: WORDS[lower], type: lower === "null" ? null : "bool" };
    }
    if (lower !== null && lower !== "in" && lower !== "as") {
      return this.isOp("(") ? this.call(text) : { kind: "col", name: text };
    }
    if (kind === "op" && text === "(") {
      const expr = this.disjunction();
      this.expect(")");
      return expr;
    }
    return fail(1, `unexpected ${text} in expression`);
  }
  call(fn) {
    this.take();
    if (fn.toLowerCase() === "cast") {
      const inner = this.disjunction();
      const [kind, word] = this.take();
      const [targetKind, target] = this.take();
      if (kind !== "name" || word.toLowerCase() !== "as" || targetKind !== "name" || !TYPES.includes(target.toLowerCase())) {
        fail(1, "cast is cast(<expr> as <type>)");
      }
      this.expect(")");
      return { kind: "cast", type: target.toLowerCase(), args: [inner] };
    }
    const args = [];
    while (!this.isOp(")")) {
      args.push(this.disjunction());
      if (!this.isOp(")")) this.expect(",");
    }
    this.take();
    return { kind: "call", fn: fn.toLowerCase(), args };
  }
}

const parseExpr = (text) => new Parser(text).parse();

// --------------------------------------------------------------------- program

function statements(text) {
  const found = [];
  for (const line of text.split(/\r?\n/)) {
    const stripped = line.trim();
    if (!stripped || stripped.startsWith("#")) continue;
    const last = found[found.length - 1];
    const continues = last !== undefined && last.startsWith("aggregate") && /^\s/.test(line);
    if (continues && !KEYWORDS.some((keyword) => stripped.toLowerCase().startsWith(keyword))) {
      found[found.length - 1] += " " + stripped;
    } else {
      found.push(stripped);
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
  if (!NAME.test(text.trim())) fail(1, `${text.trim()} is not a name`);
  return text.trim();
}

function typeName(text) {
  if (!TYPES.includes(text.trim().toLowerCase())) fail(1, `unknown type ${text.trim()}`);
  return text.trim().toLowerCase();
}

function splitTop(text) {
  const parts = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    depth += char === "(" ? 1 : char === ")" ? -1 : 0;
    if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  return [...parts, current];
}

function open(pipeline) {
  if (pipeline.aggregates) fail(1, "only post_agg calcs may follow aggregate");
}

const STATEMENTS = {
  filter(text, pipeline) {
    open(pipeline);
    pipeline.steps.push({ kind: "filter", expr: parseExpr(inside(text, "filter")) });
  },
  apply(text, pipeline) {
    open(pipeline);
    const parts = splitTop(inside(text, "apply"));
    if (parts.length !== 2) fail(1, "apply takes an expression and a new column name");
    pipeline.steps.push({ kind: "apply", expr: parseExpr(parts[0]), target: name(parts[1]) });
  },
  group_by(text, pipeline) {
    open(pipeline);
    if (pipeline.groupBy) fail(1, "group_by given twice");
    const body = inside(text, "group_by");
    const columns = body.startsWith("[") && body.endsWith("]") ? body.slice(1, -1).split(",") : [body];
    pipeline.groupBy = columns.map((column) => name(column.trim().replace(/^(['"])(.*)\1$/, "$2")));
    pipeline.groupAt = pipeline.steps.length;
  },
  window(text, pipeline) {
    open(pipeline);
    if (pipeline.window) fail(1, "window given twice");
    const match = /^(\d+)([mhd])$/.exec(inside(text, "window"));
    if (!match || Number(match[1]) === 0) fail(1, "window takes a positive duration such as 10m, 1h or 7d");
    pipeline.window = Number(match[1]) * UNITS[match[2]];
    pipeline.windowAt = pipeline.steps.length;
  },
  aggregate(text, pipeline) {
    if (pipeline.aggregates) fail(1, "aggregate given twice");
    pipeline.aggregateAt = pipeline.steps.length;
    pipeline.aggregates = splitTop(text.slice("aggregate".length)).map((entry) => {
      const match = /^\s*(sum|average|median|count|std|var|min|max)\(\s*([^()]*?)\s*\)\s+as\s+(\w+)\s*$/.exec(entry);
      if (!match || (match[1] === "count") !== (match[2] === "*")) fail(1, `bad aggregate entry ${entry.trim()}`);
      return { fn: match[1], column: match[2] === "*" ? null : name(match[2]), alias: match[3] };
    });
    const aliases = pipeline.aggregates.map((a) => a.alias);
    if (new Set(aliases).size !== aliases.length) fail(1, "an alias is given twice");
  },
  calc(text, pipeline) {
    const match = /^calc\s+(.*?)=(.*):([^:]*)@stage\(\s*(\w*)\s*\)$/s.exec(text);
    if (!match || !["pre", "post_agg"].includes(match[4])) fail(1, "calc is calc <name> = <expr> : <type> @stage(...)");
    const calc = { kind: "calc", name: name(match[1]), expr: parseExpr(match[2]), type: typeName(match[3]) };
    if (match[4] === "post_agg") {
      if (!pipeline.aggregates) fail(1, "a post_agg calc comes after aggregate");
      pipeline.post.push(calc);
      return;
    }
    open(pipeline);
    pipeline.steps.push(calc);
  },
};

function parseStatements(lines, pipeline) {
  for (const text of lines) {
    const keyword = /^[a-z_]*/.exec(text)[0];
    if (!has(STATEMENTS, keyword)) fail(1, `unknown statement ${text}`);
    STATEMENTS[keyword](text, pipeline);
  }
  if (!pipeline.aggregates) fail(1, "an aggregate statement is required");
  return pipeline;
}

const newPipeline = (schema) => ({
  schema, params: [], steps: [], groupBy: null, groupAt: 0, window: null, windowAt: 0, aggregates: null,
  aggregateAt: 0, post: [],
});

function block(source, start) {
  const opening = source.indexOf("{", start);
  if (opening < 0 || source.slice(start, opening).trim()) fail(1, "expected '{'");
  let depth = 0;
  for (let position = opening; position < source.length; position++) {
    depth += source[position] === "{" ? 1 : source[position] === "}" ? -1 : 0;
    if (depth === 0) return [source.slice(opening + 1, position), position + 1];
  }
  return fail(1, "missing '}'");
}

const contentLines = (body) => body.split(/\r?\n/).map((line) => line.trim()).filter((line) => line && !line.startsWith("#"));

function parseSchemaBody(body, schema) {
  const fields = contentLines(body).map((text) => {
    const match = /^([^:=]*):([^=]*)(?:=(.*))?$/s.exec(text);
    if (!match) fail(1, `bad field ${text} in schema ${schema}`);
    if (match[3] !== undefined && !match[3].trim()) fail(1, `empty expression in schema ${schema}`);
    return { name: name(match[1]), type: typeName(match[2]), expr: match[3] ? parseExpr(match[3]) : null };
  });
  if (!fields.length) fail(1, `schema ${schema} has no field`);
  return fields;
}

const DEFAULT_ACCEPTS = {
  string: (literal) => literal.type === "string", int: (literal) => literal.type === "int",
  bool: (literal) => literal.type === "bool", float: (literal) => NUMERIC.includes(literal.type),
  timestamp: (literal) => literal.type === "string",
};

function defaultValue(text, type, param) {
  const literal = parseExpr(text);
  if (literal.kind !== "lit" || literal.value === null) fail(1, `the default of ${param} must be a literal`);
  if (!DEFAULT_ACCEPTS[type](literal)) fail(1, `the default of ${param} is not a ${type}`);
  if (type !== "timestamp") return literal.value;
  const moment = isoParam(literal.value);
  return moment === null ? fail(1, `the default of ${param} is not a timestamp`) : moment;
}

function parseParams(body) {
  const params = [];
  for (const text of contentLines(body)) {
    const [left, ...rest] = text.split("=");
    const defaultText = rest.join("=").trim();
    const [paramName, ...typeParts] = left.split(":");
    const typeText = typeParts.join(":");
    const param = { name: name(paramName), type: typeText.trim() ? typeName(typeText) : "string", hasDefault: false };
    if (defaultText) Object.assign(param, { value: defaultValue(defaultText, param.type, param.name), hasDefault: true });
    if (params.some((p) => p.name === param.name)) fail(1, `parameter ${param.name} given twice`);
    param.default = param.value;
    params.push(param);
  }
  return params;
}

function parsePipelineBody(body, schema) {
  const pipeline = newPipeline(schema);
  const content = body.split(/\r?\n/).filter((line) => !line.trim().startsWith("#")).join("\n");
  let rest = content;
  if (/^\s*params\b/.test(content)) {
    const [paramsBody, end] = block(content, content.indexOf("params") + "params".length);
    pipeline.params = parseParams(paramsBody);
    rest = content.slice(end);
  }
  return parseStatements(statements(rest), pipeline);
}

const HEADER = /(?:\s*#[^\n]*\n|\s)*(?:(schema)\s+(\w+)(?:\s+extends\s+(\w+))?|(pipeline)\s+(\w+)\s+using\s+(\w+)|(\S[^\n]*))/iy;

function parseBlocks(source) {
  const schemas = {};
  let pipeline = null;
  let position = 0;
  while (contentLines(source.slice(position)).length) {
    HEADER.lastIndex = position;
    const match = HEADER.exec(source);
    if (match[7] !== undefined) fail(1, `unexpected ${match[7].trim()}`);
    const [body, end] = block(source, HEADER.lastIndex);
    position = end;
    if (match[1]) {
      if (has(schemas, match[2])) fail(1, `schema ${match[2]} given twice`);
      schemas[match[2]] = { base: match[3] ?? null, fields: parseSchemaBody(body, match[2]) };
    } else if (pipeline) {
      fail(1, "one pipeline block only");
    } else {
      pipeline = parsePipelineBody(body, match[6]);
    }
  }
  if (!pipeline) fail(1, "a pipeline block is required");
  return { schemas, pipeline };
}

function parseProgram(source) {
  const code = source.split(/\r?\n/).map((line) => line.split("#")[0]).join("\n");
  if (/\b(schema|pipeline)\b/i.test(code)) return parseBlocks(source);
  return { schemas: {}, pipeline: parseStatements(statements(source), newPipeline(null)) };
}

// ----------------------------------------------------------------------- types

const widens = (from, to) => from === to || (from === "int" && to === "float");
const assignable = (declared, actual) => actual !== null && widens(actual, declared);
const CASTS = { string: TYPES, float: NUMERIC, int: NUMERIC, bool: ["bool", "string"], timestamp: ["timestamp", "string"] };

function numericArgs(expr, scope) {
  const kinds = expr.args.map((arg) => infer(arg, scope));
  if (kinds.includes(null)) fail(2, "arithmetic on null");
  if (kinds.some((kind) => !NUMERIC.includes(kind))) fail(2, "arithmetic needs numbers");
  return kinds;
}

function inferCol(expr, scope) {
  if (!has(scope.env, expr.name)) fail(scope.missing, `unknown column ${expr.name}`);
  return scope.env[expr.name];
}

function inferCmp(expr, scope) {
  const [left, right] = expr.args.map((arg) => infer(arg, scope));
  if (left === null || right === null) fail(2, "comparison with null");
  if (left !== right && !(NUMERIC.includes(left) && NUMERIC.includes(right))) fail(2, `cannot compare ${left} with ${right}`);
  if (left === "bool" && !["==", "!="].includes(expr.op)) fail(2, "booleans are only compared with == and !=");
  return "bool";
}

function inferLogic(expr, scope) {
  if (expr.args.some((arg) => infer(arg, scope) !== "bool")) fail(2, `${expr.kind} needs booleans`);
  return "bool";
}

const INFER = {
  lit: (expr) => expr.type,
  col: inferCol,
  bin: (expr, scope) => (expr.op === "/" || numericArgs(expr, scope).includes("float") ? "float" : "int"),
  neg: (expr, scope) => numericArgs(expr, scope)[0],
  cmp: inferCmp,
  and: inferLogic,
  or: inferLogic,
  not: inferLogic,
  in: (expr, scope) => (inferCol(expr.args[1], scope) === "string" ? "bool" : fail(2, "'in' needs a string column")),
  cast: (expr, scope) => (CASTS[expr.type].includes(infer(expr.args[0], scope)) ? expr.type
    : fail(2, `cannot cast to ${expr.type}`)),
  call: (expr, scope) => (has(CALLS, expr.fn) ? CALLS[expr.fn](expr, scope) : fail(2, `unknown function ${expr.fn}`)),
};

const infer = (expr, scope) => INFER[expr.kind](expr, scope);

function arity(expr, counts) {
  if (!counts.includes(expr.args.length)) fail(2, `${expr.fn} takes ${counts.join(" or ")} arguments`);
}

function paramType(paramName, scope) {
  if (!has(scope.params, paramName)) fail(1, `unknown parameter ${paramName}`);
  return scope.params[paramName].type;
}

const isNameLiteral = (expr) => expr.kind === "lit" && expr.type === "string";

function offsetOf(expr, scope) {
  if (expr.kind === "lit" && expr.type === "int") return expr.value;
  if (expr.kind === "call" && expr.fn === "param" && expr.args.length === 1 && isNameLiteral(expr.args[0])) {
    if (paramType(expr.args[0].value, scope) !== "int") fail(2, "an offset parameter must be an int");
    return scope.params[expr.args[0].value].value;
  }
  return fail(2, "an offset is an int literal or an int parameter");
}

function perRow(takes) {
  return (expr, scope) => {
    if (scope.stage === "post") fail(2, `${expr.fn} is not available after aggregation`);
    arity(expr, [1]);
    if (infer(expr.args[0], scope) !== takes) fail(2, `${expr.fn} takes a ${takes}`);
    return "int";
  };
}

function textCall(expr, scope) {
  arity(expr, [2]);
  if (expr.args.some((arg) => infer(arg, scope) !== "string")) fail(2, `${expr.fn} takes strings`);
  return "bool";
}

const CALLS = {
  coalesce(expr, scope) {
    arity(expr, [2]);
    const kinds = [...new Set(expr.args.map((arg) => infer(arg, scope)).filter((kind) => kind !== null))];
    if (!kinds.length) fail(2, "coalesce of two nulls");
    if (kinds.length === 2 && !kinds.every((kind) => NUMERIC.includes(kind))) fail(2, "coalesce of different types");
    return kinds.length === 1 ? kinds[0] : "float";
  },
  starts_with: textCall,
  ends_with: textCall,
  contains: textCall,
  round(expr, scope) {
    arity(expr, [1, 2]);
    if (!NUMERIC.includes(infer(expr.args[0], scope)) || (expr.args.length === 2 && infer(expr.args[1], scope) !== "int")) {
      fail(2, "round takes a number and an int");
    }
    return "float";
  },
  len: perRow("string"),
  day: perRow("timestamp"),
  month: perRow("timestamp"),
  year: perRow("timestamp"),
  param(expr, scope) {
    arity(expr, [1]);
    if (scope.stage === "schema" || !isNameLiteral(expr.args[0])) fail(2, "param takes a parameter name, outside schemas");
    return paramType(expr.args[0].value, scope);
  },
  lag: shiftType,
  lead: shiftType,
};

function shiftType(expr, scope) {
  if (scope.stage !== "post") fail(2, `${expr.fn} is only for post_agg calcs`);
  arity(expr, [2]);
  const kind = infer(expr.args[0], scope);
  if (offsetOf(expr.args[1], scope) <= 0) fail(2, "an offset must be positive");
  return kind;
}

function resolveSchema(schemas, schemaName, columns, visiting = []) {
  if (!has(schemas, schemaName)) fail(1, `unknown schema ${schemaName}`);
  if (visiting.includes(schemaName)) fail(1, `schema ${schemaName} extends itself`);
  const schema = schemas[schemaName];
  const fields = new Map(schema.base ? resolveSchema(schemas, schema.base, null, [...visiting, schemaName]) : []);
  for (const field of schema.fields) {
    const old = fields.get(field.name);
    if (old && !widens(old.type, field.type)) fail(2, `${field.name} cannot change from ${old.type} to ${field.type}`);
    if (field.expr) {
      const env = Object.fromEntries([...fields].map(([key, value]) => [key, value.type]));
      if (!assignable(field.type, infer(field.expr, { env, params: {}, stage: "schema", missing: 1 }))) {
        fail(2, `${field.name} is not a ${field.type}`);
      }
    }
    fields.set(field.name, { type: field.type, expr: field.expr });
  }
  const missing = [...fields].filter(([key, value]) => !value.expr && columns && !columns.has(key)).map(([key]) => key);
  if (missing.length) fail(2, `the CSV lacks ${missing.join(", ")}`);
  return fields;
}

function checkStep(step, scope) {
  if (step.kind === "filter") {
    if (infer(step.expr, scope) !== "bool") fail(2, "filter needs a boolean");
  } else if (step.kind === "apply") {
    const kind = infer(step.expr, scope);
    if (kind === null) fail(2, "apply of null");
    scope.env[step.target] = kind;
  } else {
    if (has(scope.env, step.name)) fail(1, `calc ${step.name} exists already`);
    if (!assignable(step.type, infer(step.expr, scope))) fail(2, `calc ${step.name} is not a ${step.type}`);
    scope.env[step.name] = step.type;
  }
}

// The types of the output keys (window bounds, group keys, aggregates, post_agg calcs); raises 1 or 2.
function checkPipeline(pipeline, env, params) {
  const scope = { env: { ...env }, params, stage: "pre", missing: 2 };
  const snapshots = [{ ...scope.env }];
  for (const step of pipeline.steps) {
    checkStep(step, scope);
    snapshots.push({ ...scope.env });
  }
  const keys = {};
  for (const column of pipeline.groupBy || []) {
    if (!has(snapshots[pipeline.groupAt], column)) fail(2, `group_by column ${column} is not defined there`);
    keys[column] = snapshots[pipeline.groupAt][column];
  }
  if (pipeline.window && snapshots[pipeline.windowAt].timestamp !== "timestamp") fail(2, "window needs the timestamp column");
  for (const { fn, column, alias } of pipeline.aggregates) {
    if (column !== null && !NUMERIC.includes(snapshots[pipeline.aggregateAt][column])) fail(2, `${alias}: ${fn} needs a number`);
    keys[alias] = column === null ? "int" : "float";
  }
  if (scope.env.timestamp !== "timestamp") fail(2, "timestamp must stay a timestamp");
  const post = { env: { ...(pipeline.window ? { window_start: "timestamp", window_end: "timestamp" } : {}), ...keys },
    params, stage: "post", missing: 2 };
  for (const calc of pipeline.post) {
    if (has(post.env, calc.name)) fail(1, `post_agg calc ${calc.name} repeats an output key`);
    if (!assignable(calc.type, infer(calc.expr, post))) fail(2, `calc ${calc.name} is not a ${calc.type}`);
    post.env[calc.name] = calc.type;
  }
  return post.env;
}

// ------------------------------------------------------------------ parameters

function isoParam(text) {
  const parsed = fromIso(text);
  if (!parsed || !validFields(parsed.fields)) return null;
  return parsed.offset === null ? localToUtc(parsed.fields, "UTC")
    : Date.UTC(parsed.fields.year, parsed.fields.month - 1, parsed.fields.day, parsed.fields.hour,
      parsed.fields.minute, parsed.fields.second) - parsed.offset;
}

function boolText(text) {
  const lower = text.trim().toLowerCase();
  return lower === "true" ? true : lower === "false" ? false : undefined;
}

function finite(text) {
  const value = typeof text === "string" && !text.trim() ? NaN : Number(text);
  return Number.isFinite(value) ? value : undefined;
}

const PARAM_PARSERS = {
  string: (text) => text.trim(),
  int: (text) => (/^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : undefined),
  float: finite,
  bool: boolText,
  timestamp: (text) => isoParam(text) ?? undefined,
};

function bindParams(declared, given) {
  const overrides = {};
  for (const entry of given) {
    const equals = entry.indexOf("=");
    if (equals < 0 || !entry.slice(0, equals).trim()) fail(1, `--param ${entry} is not key=value`);
    overrides[entry.slice(0, equals).trim()] = entry.slice(equals + 1);
  }
  const known = Object.fromEntries(declared.map((param) => [param.name, param]));
  for (const key of Object.keys(overrides)) if (!has(known, key)) fail(1, `unknown parameter ${key}`);
  for (const param of declared) {
    if (has(overrides, param.name)) {
      param.value = PARAM_PARSERS[param.type](overrides[param.name]);
      if (param.value === undefined) fail(2, `parameter ${param.name} is not a ${param.type}`);
    } else if (!param.hasDefault) {
      fail(1, `parameter ${param.name} has no value`);
    }
  }
  return known;
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

// ------------------------------------------------------------------------ data

function readCsv(path) {
  let text;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch (error) {
    fail(3, `cannot read ${path}: ${error.message}`);
  }
  const [header, ...records] = parseCsv(text);
  const rows = records.map((record) => Object.fromEntries((header || []).map((column, i) => [column, record[i]])));
  return { rows, header: header || null };
}

function extraType(values) {
  const cleaned = values.map((value) => (value ?? "").trim());
  if (cleaned.every((value) => ["true", "false"].includes(value.toLowerCase()))) return "bool";
  return cleaned.every((value) => finite(value) !== undefined) ? "float" : "string";
}

function legacyFields(rows, header) {
  const missing = Object.keys(LEGACY_TYPES).filter((column) => !(header || []).includes(column)).sort();
  if (!header || missing.length) fail(3, `the CSV lacks columns ${missing.join(", ")}`);
  return new Map(header.map((column) => [column,
    { type: LEGACY_TYPES[column] || extraType(rows.map((row) => row[column])), expr: null }]));
}

const ROW_PARSERS = { string: (text) => text, int: PARAM_PARSERS.int, float: finite, bool: boolText };

function convert(text, type, format, zone) {
  if (text === undefined) fail(4, "a row is missing a column");
  const value = type === "timestamp" ? parseTime(text, format, zone) : ROW_PARSERS[type](text);
  return value === undefined ? fail(4, `${text} is not a ${type}`) : value;
}

// ------------------------------------------------------------------- execution

const COMPARE = {
  "<": (a, b) => a < b, "<=": (a, b) => a <= b, ">": (a, b) => a > b, ">=": (a, b) => a >= b,
  "==": (a, b) => a === b, "!=": (a, b) => a !== b,
};
const ARITHMETIC = { "+": (a, b) => a + b, "-": (a, b) => a - b, "*": (a, b) => a * b, "/": (a, b) => a / b };

function runBin(expr, ctx) {
  const [left, right] = expr.args.map((arg) => evaluate(arg, ctx));
  if (left === null || right === null) return null;
  if (expr.op === "/" && right === 0) fail(4, "division by zero");
  return ARITHMETIC[expr.op](left, right);
}

function runCmp(expr, ctx) {
  const [left, right] = expr.args.map((arg) => evaluate(arg, ctx));
  if (left === null || right === null) fail(4, "comparison with null");
  return COMPARE[expr.op](left, right);
}

function runLogic(expr, ctx) {
  const values = expr.args.map((arg) => evaluate(arg, ctx));
  if (values.some((value) => typeof value !== "boolean")) fail(4, `${expr.kind} of a non-boolean`);
  return { and: () => values.every(Boolean), or: () => values.some(Boolean), not: () => !values[0] }[expr.kind]();
}

const textOf = (value) => (typeof value === "boolean" ? (value ? "True" : "False") : String(value));
const CAST_TO = {
  string: textOf,
  int: (value) => Math.trunc(value),
  float: (value) => value,
  bool: (value) => (typeof value === "boolean" ? value : boolText(value)),
  timestamp: (value) => (typeof value === "number" ? value : isoParam(value) ?? undefined),
};

function runCast(expr, ctx) {
  const value = evaluate(expr.args[0], ctx);
  if (value === null) return null;
  const cast = CAST_TO[expr.type](value);
  return cast === undefined ? fail(4, `cannot cast ${value} to ${expr.type}`) : cast;
}

function strings(expr, ctx) {
  const values = expr.args.map((arg) => evaluate(arg, ctx));
  if (values.some((value) => typeof value !== "string")) fail(4, `${expr.fn} of a non-string`);
  return values;
}

function runRound(expr, ctx) {
  const value = evaluate(expr.args[0], ctx);
  const digits = expr.args.length === 2 ? evaluate(expr.args[1], ctx) : 0;
  if (typeof value !== "number" || !Number.isInteger(digits)) fail(4, "round of a non-number");
  const scaled = value * 10 ** digits;
  return (Math.sign(scaled) * Math.floor(Math.abs(scaled) + 0.5)) / 10 ** digits;
}

function perRowValue(fn) {
  return (expr, ctx) => {
    const value = evaluate(expr.args[0], ctx);
    return value === null ? fail(4, `${expr.fn} of null`) : fn(value);
  };
}

function runShift(expr, ctx) {
  const offset = evaluate(expr.args[1], ctx);
  const target = expr.fn === "lag" ? ctx.index - offset : ctx.index + offset;
  if (target < 0 || target >= ctx.rows.length) return null;
  return evaluate(expr.args[0], { ...ctx, row: ctx.rows[target], index: target });
}

const RUN_CALLS = {
  coalesce: (expr, ctx) => evaluate(expr.args[0], ctx) ?? evaluate(expr.args[1], ctx),
  starts_with: (expr, ctx) => { const [s, p] = strings(expr, ctx); return s.startsWith(p); },
  ends_with: (expr, ctx) => { const [s, p] = strings(expr, ctx); return s.endsWith(p); },
  contains: (expr, ctx) => { const [s, p] = strings(expr, ctx); return s.includes(p); },
  round: runRound,
  len: perRowValue((value) => [...value].length),
  day: perRowValue((ms) => new Date(ms).getUTCDate()),
  month: perRowValue((ms) => new Date(ms).getUTCMonth() + 1),
  year: perRowValue((ms) => new Date(ms).getUTCFullYear()),
  param: (expr, ctx) => ctx.params[expr.args[0].value].value,
  lag: runShift,
  lead: runShift,
};

const RUN = {
  lit: (expr) => expr.value,
  col: (expr, ctx) => ctx.row[expr.name],
  bin: runBin,
  cmp: runCmp,
  and: runLogic,
  or: runLogic,
  not: runLogic,
  neg: (expr, ctx) => { const value = evaluate(expr.args[0], ctx); return value === null ? null : -value; },
  cast: runCast,
  in: (expr, ctx) => ctx.row[expr.args[1].name].includes(expr.args[0].value),
  call: (expr, ctx) => RUN_CALLS[expr.fn](expr, ctx),
};

const evaluate = (expr, ctx) => RUN[expr.kind](expr, ctx);

function materialize(raw, fields, params, format, zone) {
  const row = {};
  for (const [fieldName, { type, expr }] of fields) {
    row[fieldName] = expr ? evaluate(expr, { row, params }) : convert(raw[fieldName], type, format, zone);
  }
  return row;
}

function transformed(source, pipeline, params) {
  const row = { ...source };
  for (const step of pipeline.steps) {
    const value = evaluate(step.expr, { row, params });
    if (step.kind === "filter") {
      if (!value) return null;
    } else {
      row[step.kind === "apply" ? step.target : step.name] = value;
    }
  }
  return row;
}

const total = (values) => values.reduce((sum, value) => sum + value, 0);
const mean = (values) => total(values) / values.length;
const variance = (values) => mean(values.map((value) => (value - mean(values)) ** 2));
function median(values) {
  const ordered = [...values].sort((a, b) => a - b);
  const middle = Math.floor(ordered.length / 2);
  return ordered.length % 2 ? ordered[middle] : (ordered[middle - 1] + ordered[middle]) / 2;
}
const AGGREGATES = {
  sum: total, average: mean, median, min: (v) => Math.min(...v), max: (v) => Math.max(...v),
  var: variance, std: (v) => Math.sqrt(variance(v)),
};

function aggregate(rows, aggregates) {
  const result = {};
  for (const { fn, column, alias } of aggregates) {
    if (fn === "count") {
      result[alias] = rows.length;
      continue;
    }
    const values = rows.map((row) => row[column]);
    if (values.includes(null)) fail(4, `${alias} over a null`);
    const value = values.length ? AGGREGATES[fn](values) : null;
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

function grouped(pipeline, kept) {
  if (!pipeline.groupBy && !pipeline.window) return [aggregate(kept, pipeline.aggregates)];
  const groups = new Map();
  const width = pipeline.window * 1000;
  for (const row of kept) {
    const key = [pipeline.window ? Math.floor(row.timestamp / width) * width : null,
      ...(pipeline.groupBy || []).map((column) => row[column])];
    const id = JSON.stringify(key);
    if (!groups.has(id)) groups.set(id, { key, rows: [] });
    groups.get(id).rows.push(row);
  }
  return [...groups.values()].sort((a, b) => compareKeys(a.key, b.key)).map(({ key, rows }) => {
    const head = pipeline.window ? { window_start: key[0], window_end: key[0] + width } : {};
    (pipeline.groupBy || []).forEach((column, i) => { head[column] = key[i + 1]; });
    return { ...head, ...aggregate(rows, pipeline.aggregates) };
  });
}

const byCode = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function run(pipeline, rows, params, outputTypes) {
  const kept = rows.map((row) => transformed(row, pipeline, params)).filter((row) => row !== null);
  const results = grouped(pipeline, kept);
  for (const calc of pipeline.post) {
    results.forEach((row, index) => { row[calc.name] = evaluate(calc.expr, { row, params, rows: results, index }); });
  }
  const keys = [...(pipeline.window ? ["window_start", "window_end"] : []), ...(pipeline.groupBy || []),
    ...pipeline.aggregates.map((a) => a.alias).sort(byCode), ...pipeline.post.map((c) => c.name).sort(byCode)];
  const shaped = results.map((row) => Object.fromEntries(keys.map((key) => [key,
    outputTypes[key] === "timestamp" && row[key] !== null ? iso(row[key]) : row[key]])));
  return pipeline.groupBy || pipeline.window ? shaped : shaped[0];
}

// ------------------------------------------------------------------------- CLI

const FLAGS = { "--csv": "csv", "--dsl": "dsl", "--out": "out", "--tz": "tz", "--timestamp-format": "format" };

function parseArgs(argv) {
  const options = { tz: "UTC", params: [], strict: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--strict") options.strict = true;
    else if (argv[i] === "--param" && i + 1 < argv.length) options.params.push(argv[++i]);
    else if (FLAGS[argv[i]] && i + 1 < argv.length) options[FLAGS[argv[i]]] = argv[++i];
    else usage();
  }
  if (!options.csv || !options.dsl) usage();
  return options;
}

function usage() {
  process.stderr.write("usage: mtl --csv FILE --dsl FILE [--out FILE] [--tz ZONE] [--timestamp-format F] " +
    "[--strict] [--param NAME=VALUE ...]\n");
  process.exit(2);
}

function readDsl(path) {
  try {
    return fs.readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    return fail(3, `cannot read ${path}: ${error.message}`);
  }
}

function write(result, out) {
  const text = JSON.stringify(result) + "\n";
  if (!out || out === "-") {
    process.stdout.write(text);
    return;
  }
  try {
    fs.writeFileSync(out, text);
  } catch (error) {
    fail(3, `cannot write ${out}: ${error.message}`);
  }
}

function execute(options) {
  const zone = checkZone(options.tz);
  const { schemas, pipeline } = parseProgram(readDsl(options.dsl));
  const { rows, header } = readCsv(options.csv);
  let fields = pipeline.schema === null ? legacyFields(rows, header) : null;
  const params = bindParams(pipeline.params, options.params);
  fields = fields || resolveSchema(schemas, pipeline.schema, header ? new Set(header) : null);
  const env = Object.fromEntries([...fields].map(([key, value]) => [key, value.type]));
  const outputTypes = checkPipeline(pipeline, env, params);
  const materialized = rows.map((row) => materialize(row, fields, params, options.format, zone));
  write(run(pipeline, materialized, params, outputTypes), options.out);
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  try {
    execute(options);
  } catch (error) {
    if (!(error instanceof MtlError)) throw error;
    process.stderr.write(`ERROR:${KINDS[error.code]}:${error.message}\n`);
    process.exitCode = error.code;
  }
}

main();
