// circopt checkpoint 2: parse and validate scalar .circ circuits (check), evaluate them (eval).
"use strict";

const fs = require("fs");

const VERSION = "1.0.0";
const KEYWORDS = new Set(["input", "output", "wire"]);
const ARITY = { NOT: [1, 1], BUF: [1, 1], AND: [2, Infinity], OR: [2, Infinity], XOR: [2, Infinity],
  NAND: [2, Infinity], NOR: [2, Infinity], XNOR: [2, Infinity] };
const GATES = {
  NOT: (bits) => 1 - bits[0],
  BUF: (bits) => bits[0],
  AND: (bits) => Number(bits.every(Boolean)),
  OR: (bits) => Number(bits.some(Boolean)),
  NAND: (bits) => 1 - Number(bits.every(Boolean)),
  NOR: (bits) => 1 - Number(bits.some(Boolean)),
  XOR: (bits) => bits.reduce((a, b) => a ^ b, 0),
  XNOR: (bits) => 1 - bits.reduce((a, b) => a ^ b, 0),
};
const TOKEN = /([ \t\r]+)|(\n)|(#[^\n]*)|([A-Za-z_][A-Za-z0-9_]*)|([0-9]+)|([=(),])/y;
const USAGE = `usage: circopt [--help] [--version] [--json] <command> [arguments]

commands:
  check <file>    parse and validate a circuit file, report its inputs and outputs
  eval <file> [--set name=value ...] [--default 0|1] [--allow-extra]
                  evaluate the circuit's outputs from the given inputs
`;

const EXIT_CODES = {
  CliUsageError: 1, FileNotFoundError: 1, UnknownInputError: 1, MissingInputError: 1,
  CircParseError: 2, InputValueParseError: 2, InternalError: 4,
};

class CircuitError extends Error {
  constructor(type, message, file = null, line = null, col = null) {
    super(message);
    Object.assign(this, { type, file, line, col, exitCode: EXIT_CODES[type] ?? 3 });
  }
}

// ---------------------------------------------------------------- parsing

function tokenize(text, file) {
  const tokens = [];
  let line = 1;
  let lineStart = 0;
  let pos = 0;
  while (pos < text.length) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    const col = pos - lineStart + 1;
    if (!m) throw new CircuitError("CircParseError", `unexpected character '${text[pos]}'`, file, line, col);
    if (m[2]) {
      line += 1;
      lineStart = TOKEN.lastIndex;
    } else if (m[4]) tokens.push({ kind: "name", text: m[4], line, col });
    else if (m[5]) tokens.push({ kind: "number", text: m[5], line, col });
    else if (m[6]) tokens.push({ kind: "punct", text: m[6], line, col });
    pos = TOKEN.lastIndex;
  }
  tokens.push({ kind: "eof", text: "", line, col: pos - lineStart + 1 });
  return tokens;
}

class Parser {
  constructor(text, file) {
    this.file = file;
    this.tokens = tokenize(text, file);
    this.pos = 0;
    this.circuit = { inputs: [], outputs: [], wires: [], assignments: new Map() };
    this.seen = new Set();
  }

  peek(ahead = 0) { return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)]; }

  take() { return this.tokens[this.pos++]; }

  fail(message, token) { return new CircuitError("CircParseError", message, this.file, token.line, token.col); }

  parse() {
    let assigning = false;
    while (this.peek().kind !== "eof") {
      const token = this.peek();
      if (token.kind !== "name") throw this.fail(`expected a declaration or an assignment, found '${token.text}'`, token);
      if (KEYWORDS.has(token.text.toLowerCase())) {
        if (assigning) {
          throw new CircuitError("DeclarationAfterAssignmentError", `'${token.text}' declaration after an assignment`,
            this.file, token.line, token.col);
        }
        this.declaration();
      } else {
        assigning = true;
        this.assignment();
      }
    }
    return this.circuit;
  }

  declaration() {
    const keyword = this.take();
    const names = this.circuit[`${keyword.text.toLowerCase()}s`];
    while (this.startsNameOn(keyword.line)) {
      const token = this.take();
      this.rejectX(token);
      if (this.seen.has(token.text)) {
        throw new CircuitError("DuplicateNameError", `name '${token.text}' is declared twice`, this.file, token.line, token.col);
      }
      this.seen.add(token.text);
      names.push(token.text);
    }
  }

  startsNameOn(line) {
    const token = this.peek();
    return token.kind === "name" && token.line === line && !KEYWORDS.has(token.text.toLowerCase())
      && this.peek(1).text !== "=";
  }

  assignment() {
    const target = this.take();
    const eq = this.peek();
    if (eq.text !== "=") throw this.fail(`expected '=', found '${eq.text || "end of file"}'`, eq);
    this.take();
    if (this.circuit.assignments.has(target.text)) {
      throw new CircuitError("MultipleAssignmentError", `'${target.text}' is assigned more than once`,
        this.file, target.line, target.col);
    }
    this.circuit.assignments.set(target.text, this.expression());
  }

  rejectX(token) {
    if (token.text === "X") throw this.fail("the literal X is not allowed in .circ files", token);
  }

  expression() {
    const token = this.take();
    if (token.kind === "number") {
      if (token.text !== "0" && token.text !== "1") throw this.fail(`invalid literal ${token.text}`, token);
      return Number(token.text);
    }
    if (token.kind !== "name") throw this.fail(`expected an expression, found '${token.text || "end of file"}'`, token);
    this.rejectX(token);
    if (this.peek().text !== "(") return token.text;
    const op = token.text.toUpperCase();
    if (!(op in ARITY)) throw this.fail(`unknown operator ${token.text}`, token);
    return this.call(op);
  }

  call(op) {
    this.take(); // (
    const args = [];
    if (this.peek().text === ")") {
      this.take();
      return { op, args };
    }
    args.push(this.expression());
    while (this.peek().text === ",") {
      this.take();
      args.push(this.expression());
    }
    if (this.peek().text !== ")") {
      const last = this.tokens[this.pos - 1];
      throw new CircuitError("CircParseError", "expected ')' or ','", this.file, last.line, last.col);
    }
    this.take();
    return { op, args };
  }
}

// ---------------------------------------------------------------- validation

function checkExpression(expr, declared, file) {
  if (typeof expr === "string" && !declared.has(expr)) {
    throw new CircuitError("UndefinedNameError", `'${expr}' is not declared`, file);
  }
  if (typeof expr === "object") {
    const [low, high] = ARITY[expr.op];
    if (expr.args.length < low || expr.args.length > high) {
      throw new CircuitError("ArityError", `${expr.op} takes ${low === high ? "exactly" : "at least"} ${low} argument(s)`, file);
    }
    for (const arg of expr.args) checkExpression(arg, declared, file);
  }
}

function namesIn(expr) {
  if (typeof expr === "string") return [expr];
  if (typeof expr === "object") return expr.args.flatMap(namesIn);
  return [];
}

function findCycle(circuit) {
  const state = new Map();
  const path = [];
  const visit = (name) => {
    if (!circuit.assignments.has(name) || state.get(name) === 2) return null;
    if (state.get(name) === 1) return [...path.slice(path.indexOf(name)), name];
    state.set(name, 1);
    path.push(name);
    for (const dep of namesIn(circuit.assignments.get(name))) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(name, 2);
    return null;
  };
  for (const start of circuit.assignments.keys()) {
    const found = visit(start);
    if (found) return found;
  }
  return null;
}

function validate(circuit, file) {
  const declared = new Set([...circuit.inputs, ...circuit.outputs, ...circuit.wires]);
  const targets = [...circuit.assignments.keys()];
  const undeclared = targets.find((t) => !declared.has(t));
  if (undeclared !== undefined) throw new CircuitError("UndefinedNameError", `assignment to undeclared name '${undeclared}'`, file);
  const input = targets.find((t) => circuit.inputs.includes(t));
  if (input !== undefined) throw new CircuitError("InputAssignmentError", `input '${input}' cannot be assigned`, file);
  for (const expr of circuit.assignments.values()) checkExpression(expr, declared, file);
  const unassigned = [...circuit.outputs, ...circuit.wires].find((n) => !circuit.assignments.has(n));
  if (unassigned !== undefined) throw new CircuitError("UnassignedSignalError", `'${unassigned}' is never assigned`, file);
  const cycle = findCycle(circuit);
  if (cycle) throw new CircuitError("CycleError", `cycle: ${cycle.join(" -> ")}`, file);
}

function load(path) {
  let text;
  try {
    if (!fs.statSync(path).isFile()) throw new Error("not a file");
    text = fs.readFileSync(path, "utf8");
  } catch {
    throw new CircuitError("FileNotFoundError", `file not found: ${path}`);
  }
  const circuit = new Parser(text, path).parse();
  validate(circuit, path);
  return circuit;
}

// ---------------------------------------------------------------- commands

const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const signals = (names) => [...names].sort(byCodePoint).map((name) => ({ name, msb: 0, lsb: 0 }));

function cmdCheck(args, asJson) {
  if (args.length === 0) throw new CircuitError("CliUsageError", "check needs a circuit file");
  const circuit = load(args[0]);
  if (!asJson) {
    console.log(`${args[0]}: valid circuit`);
    console.log(`inputs: ${[...circuit.inputs].sort(byCodePoint).join(" ")}`);
    console.log(`outputs: ${[...circuit.outputs].sort(byCodePoint).join(" ")}`);
  }
  return { format: "circ", inputs: signals(circuit.inputs), outputs: signals(circuit.outputs) };
}

function parseEvalArgs(args) {
  const options = { file: null, values: new Map(), default: null, allowExtra: false };
  const pending = [...args];
  while (pending.length > 0) {
    const arg = pending.shift();
    const eq = arg.indexOf("=");
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    let value = eq < 0 ? null : arg.slice(eq + 1);
    if ((flag === "--set" || flag === "--default") && value === null) {
      if (pending.length === 0) throw new CircuitError("CliUsageError", `${flag} needs a value`);
      value = pending.shift();
    }
    if (flag === "--set") {
      const split = value.indexOf("=");
      if (split < 0) throw new CircuitError("CliUsageError", `--set takes name=value, got '${value}'`);
      options.values.set(value.slice(0, split), value.slice(split + 1));
    } else if (flag === "--default") options.default = value;
    else if (arg === "--allow-extra") options.allowExtra = true;
    else if (arg.startsWith("-")) throw new CircuitError("CliUsageError", `unknown option ${arg}`);
    else if (options.file === null) options.file = arg;
  }
  if (options.file === null) throw new CircuitError("CliUsageError", "eval needs a circuit file");
  return options;
}

function bitOf(text, what) {
  if (text !== "0" && text !== "1") {
    throw new CircuitError("InputValueParseError", `invalid value '${text}' for ${what}: expected 0 or 1`);
  }
  return Number(text);
}

function inputValues(circuit, options) {
  const values = new Map();
  for (const [name, text] of options.values) {
    if (!circuit.inputs.includes(name)) {
      if (options.allowExtra) continue;
      throw new CircuitError("UnknownInputError", `'${name}' is not an input of the circuit`);
    }
    values.set(name, bitOf(text, `input '${name}'`));
  }
  for (const name of circuit.inputs) {
    if (values.has(name)) continue;
    if (options.default === null) throw new CircuitError("MissingInputError", `no value for input '${name}'`);
    values.set(name, bitOf(options.default, "--default"));
  }
  return values;
}

function evaluate(circuit, inputs) {
  const known = new Map(inputs);
  const valueOf = (expr) => {
    if (typeof expr === "number") return expr;
    if (typeof expr === "object") return GATES[expr.op](expr.args.map(valueOf));
    if (!known.has(expr)) known.set(expr, valueOf(circuit.assignments.get(expr)));
    return known.get(expr);
  };
  return new Map(circuit.outputs.map((name) => [name, valueOf(name)]));
}

function cmdEval(args, asJson) {
  const options = parseEvalArgs(args);
  const circuit = load(options.file);
  const outputs = evaluate(circuit, inputValues(circuit, options));
  const names = [...outputs.keys()].sort(byCodePoint);
  if (!asJson) for (const name of names) console.log(`${name}=${outputs.get(name)}`);
  return { mode: "2val", radix: "bin",
    outputs: names.map((name) => ({ name, msb: 0, lsb: 0, value: String(outputs.get(name)) })) };
}

const COMMANDS = { check: cmdCheck, eval: cmdEval };

// ---------------------------------------------------------------- main

function reportError(error, command, asJson) {
  if (asJson) {
    const { type, message, file, line, col } = error;
    console.log(JSON.stringify({ ok: false, command, exit_code: error.exitCode, error: { type, message, file, line, col } }));
  } else {
    const where = [error.file, error.line, error.col].filter((part) => part !== null).join(":");
    process.stderr.write(`error: ${where ? `${where}: ` : ""}${error.message}\n`);
  }
  return error.exitCode;
}

function main(argv) {
  const asJson = argv.includes("--json");
  if (argv.includes("--help")) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (argv.includes("--version")) {
    console.log(asJson ? JSON.stringify({ ok: true, command: "__version__", version: VERSION }) : VERSION);
    return 0;
  }
  const rest = argv.filter((arg) => arg !== "--json");
  const position = rest.findIndex((arg) => !arg.startsWith("-"));
  if (position < 0) return reportError(new CircuitError("CliUsageError", "no command given"), "__cli__", asJson);
  const command = rest[position];
  if (!Object.hasOwn(COMMANDS, command)) {
    return reportError(new CircuitError("CliUsageError", `unknown command: ${command}`), "__cli__", asJson);
  }
  let result;
  try {
    result = COMMANDS[command](rest.slice(position + 1), asJson);
  } catch (error) {
    const known = error instanceof CircuitError ? error : new CircuitError("InternalError", `internal error: ${error}`);
    return reportError(known, command, asJson);
  }
  if (asJson) console.log(JSON.stringify({ ok: true, command, ...result }));
  return 0;
}

process.exitCode = main(process.argv.slice(2));
