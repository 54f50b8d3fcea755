// ETL pipeline normalizer: reads a JSON request on stdin, prints the canonical steps or an error as JSON.
"use strict";

const fs = require("fs");

class EtlError extends Error {
  constructor(code, message, path) {
    super(message);
    this.code = code;
    this.path = path;
  }

  toJSON() {
    return { status: "error", error_code: this.code, message: `ETL_ERROR: ${this.message}`, path: this.path };
  }
}

const schemaError = (message, path) => new EtlError("SCHEMA_VALIDATION_FAILED", message, path);

// ---------------------------------------------------------------- expressions

const TOKEN = new RegExp(
  String.raw`\s*(?:(?<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)` +
    String.raw`|(?<string>"(?:[^"\\]|\\.)*")` +
    String.raw`|(?<name>[A-Za-z_][A-Za-z0-9_]*)` +
    String.raw`|(?<op>&&|\|\||==|!=|<=|>=|[-+*/<>!()]))`,
  "y",
);
const WORD_OPERATORS = { and: "&&", or: "||", not: "!" };
const CONSTANTS = { true: true, false: false, null: null };
const BINARY_LEVELS = { "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6 };
const UNARY = new Set(["!", "-"]);

class SyntaxProblem extends Error {}

function readToken(kind, text) {
  if (kind === "number") return ["literal", Number(text)];
  if (kind === "string") {
    try {
      return ["literal", JSON.parse(text)];
    } catch (error) {
      throw new SyntaxProblem(`bad string literal ${text}`);
    }
  }
  if (kind === "name" && Object.hasOwn(CONSTANTS, text)) return ["literal", CONSTANTS[text]];
  if (kind === "name" && Object.hasOwn(WORD_OPERATORS, text)) return ["op", WORD_OPERATORS[text]];
  return [kind, text];
}

function tokenize(text) {
  const tokens = [];
  let position = 0;
  while (text.slice(position).trim()) {
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(text);
    if (!match) throw new SyntaxProblem(`unexpected character '${text.slice(position).trim()[0]}'`);
    position = TOKEN.lastIndex;
    const [kind, value] = Object.entries(match.groups).find(([, group]) => group !== undefined);
    tokens.push(readToken(kind, value));
  }
  tokens.push(["end", null]);
  return tokens;
}

// Precedence climbing; nodes are ["literal", v], ["field", name], ["unary", op, node], ["binary", op, left, right].
class Parser {
  constructor(text) {
    this.tokens = tokenize(text);
    this.position = 0;
  }

  peek() {
    return this.tokens[this.position];
  }

  take() {
    this.position += 1;
    return this.tokens[this.position - 1];
  }

  parse() {
    const node = this.binary(1);
    if (this.peek()[0] !== "end") throw new SyntaxProblem(`unexpected '${this.peek()[1]}'`);
    return node;
  }

  binary(level) {
    let node = this.unary();
    while (this.peek()[0] === "op" && (BINARY_LEVELS[this.peek()[1]] || 0) >= level) {
      const operator = this.take()[1];
      node = ["binary", operator, node, this.binary(BINARY_LEVELS[operator] + 1)];
    }
    return node;
  }

  unary() {
    const [kind, value] = this.take();
    if (kind === "op" && UNARY.has(value)) return ["unary", value, this.unary()];
    if (kind === "op" && value === "(") {
      const node = this.binary(1);
      const [closeKind, close] = this.take();
      if (closeKind !== "op" || close !== ")") throw new SyntaxProblem("missing ')'");
      return node;
    }
    if (kind === "literal") return ["literal", value];
    if (kind === "name") return ["field", value];
    throw new SyntaxProblem(kind === "end" ? "unexpected end of expression" : `unexpected '${value}'`);
  }
}

function parseExpression(text, path) {
  try {
    return new Parser(text).parse();
  } catch (error) {
    if (error instanceof SyntaxProblem) throw new EtlError("BAD_EXPR", `bad expression '${text}': ${error.message}`, path);
    throw error;
  }
}

// ---------------------------------------------------------------- normalization

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isText = (value) => typeof value === "string" && value.trim() !== "";

function requiredText(step, field, path) {
  if (!isText(step[field])) throw schemaError(`'${field}' must be a non-empty string`, `${path}.${field}`);
  return step[field].trim();
}

function normalizeSelect(step, path) {
  const columns = step.columns;
  if (!Array.isArray(columns) || columns.length === 0) {
    throw schemaError("'columns' must be a non-empty array of strings", `${path}.columns`);
  }
  columns.forEach((column, index) => {
    if (!isText(column)) throw schemaError("a column must be a non-empty string", `${path}.columns[${index}]`);
  });
  if (new Set(columns).size !== columns.length) throw schemaError("'columns' names a column twice", `${path}.columns`);
  return { columns: [...columns] };
}

function normalizeFilter(step, path) {
  const where = requiredText(step, "where", path);
  parseExpression(where, `${path}.where`);
  return { where };
}

function normalizeMap(step, path) {
  const alias = requiredText(step, "as", path);
  const expr = requiredText(step, "expr", path);
  parseExpression(expr, `${path}.expr`);
  return { as: alias, expr };
}

function renamePair(step, path) {
  return { [requiredText(step, "from", path)]: requiredText(step, "to", path) };
}

function renameMapping(step, path) {
  const mapping = step.mapping;
  if (!isObject(mapping) || Object.keys(mapping).length === 0) {
    throw schemaError("'mapping' must be a non-empty object", `${path}.mapping`);
  }
  for (const [source, target] of Object.entries(mapping)) {
    if (!isText(target)) throw schemaError("a mapping target must be a non-empty string", `${path}.mapping.${source}`);
  }
  return { ...mapping };
}

const RENAME_FORMS = [
  [["from", "to"], renamePair],
  [["mapping"], renameMapping],
];

function normalizeRename(step, path) {
  const forms = RENAME_FORMS.filter(([keys]) => keys.some((key) => Object.hasOwn(step, key)));
  if (forms.length !== 1) throw schemaError("'rename' takes either 'from'/'to' or 'mapping'", path);
  return { mapping: forms[0][1](step, path) };
}

function normalizeLimit(step, path) {
  if (!Number.isInteger(step.n) || step.n < 0) throw schemaError("'n' must be an integer >= 0", `${path}.n`);
  return { n: step.n };
}

const NORMALIZERS = {
  select: normalizeSelect,
  filter: normalizeFilter,
  map: normalizeMap,
  rename: normalizeRename,
  limit: normalizeLimit,
};

// The canonical form of one step: op first, then its fields in alphabetical order.
function normalizeStep(step, path) {
  if (!isObject(step)) throw schemaError("a step must be an object", path);
  if (!isText(step.op)) throw schemaError("'op' must be a non-empty string", `${path}.op`);
  const op = step.op.trim().toLowerCase();
  if (!Object.hasOwn(NORMALIZERS, op)) throw new EtlError("UNKNOWN_OP", `unsupported op '${op}'`, `${path}.op`);
  const fields = NORMALIZERS[op](step, path);
  return Object.fromEntries([["op", op], ...Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1))]);
}

const normalizeSteps = (steps, path) => steps.map((step, index) => normalizeStep(step, `${path}[${index}]`));

// ---------------------------------------------------------------- request shape and columns

function checkShape(request) {
  if (!isObject(request)) throw schemaError("the request must be a JSON object", "");
  if (!isObject(request.pipeline)) throw schemaError("'pipeline' must be an object", "pipeline");
  if (!Array.isArray(request.pipeline.steps)) throw schemaError("'pipeline.steps' must be an array", "pipeline.steps");
  request.pipeline.steps.forEach((step, index) => {
    if (!isObject(step)) throw schemaError("a step must be an object", `pipeline.steps[${index}]`);
    if (typeof step.op !== "string") throw schemaError("a step needs a string 'op'", `pipeline.steps[${index}].op`);
  });
  if (!Array.isArray(request.dataset)) throw schemaError("'dataset' must be an array", "dataset");
  request.dataset.forEach((row, index) => {
    if (!isObject(row)) throw schemaError("a row must be an object", `dataset[${index}]`);
  });
}

function followSelect(step, columns, path) {
  step.columns.forEach((column, index) => {
    if (!columns.includes(column)) {
      throw new EtlError("MISSING_COLUMN", `column '${column}' not found`, `${path}.columns[${index}]`);
    }
  });
  return [...step.columns];
}

function followRename(step, columns, path) {
  for (const source of Object.keys(step.mapping)) {
    if (!columns.includes(source)) {
      throw new EtlError("MISSING_COLUMN", `column '${source}' not found`, `${path}.mapping.${source}`);
    }
  }
  return [...columns.filter((column) => !Object.hasOwn(step.mapping, column)), ...Object.values(step.mapping)];
}

const COLUMN_EFFECTS = {
  select: followSelect,
  rename: followRename,
  map: (step, columns) => [...columns, step.as],
};

// Follow the column names through the steps; MISSING_COLUMN for a select column or rename source absent.
function checkColumns(steps, columns, path) {
  steps.forEach((step, index) => {
    const effect = COLUMN_EFFECTS[step.op];
    if (effect) columns = effect(step, columns, `${path}[${index}]`);
  });
}

function handle(request) {
  checkShape(request);
  const steps = normalizeSteps(request.pipeline.steps, "pipeline.steps");
  if (request.dataset.length > 0) checkColumns(steps, Object.keys(request.dataset[0]), "pipeline.steps");
  return { status: "ok", normalized: { steps } };
}

function main() {
  let response;
  try {
    let request;
    try {
      request = JSON.parse(fs.readFileSync(0, "utf8"));
    } catch (error) {
      throw schemaError(`standard input is not JSON: ${error.message}`, "");
    }
    response = handle(request);
  } catch (error) {
    if (!(error instanceof EtlError)) throw error;
    response = error;
  }
  process.stdout.write(`${JSON.stringify(response)}\n`);
  process.exitCode = response instanceof EtlError ? 1 : 0;
}

main();
