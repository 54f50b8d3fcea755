// Code generator: infers a row filter and per-column transforms from a sample input/output pair, then
// writes a streaming DynamicPreprocessor module in Python or JavaScript that applies them.
"use strict";

const fs = require("fs");
const path = require("path");

const EXTENSIONS = ["csv", "tsv", "jsonl", "json"];
const TEMPLATES = { python: ["runtime_py.py", "__init__.py"], javascript: ["runtime_js.js", "index.js"] };
const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const SEPARATORS = " ,;|-_/@.:".split("");

// ------------------------------------------------------------------------------------------- reading

function splitCells(line, delimiter) {
  const cells = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === "") quoted = true;
    else if (c === delimiter) { cells.push(cell); cell = ""; }
    else cell += c;
  }
  cells.push(cell);
  return cells;
}

function readTable(file, ext) {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (ext === "json") return text.trim() ? JSON.parse(text) : [];
  if (ext === "jsonl") return lines.map((line) => JSON.parse(line));
  const [header, ...rest] = lines.map((line) => splitCells(line, ext === "csv" ? "," : "\t"));
  return rest.map((cells) => Object.fromEntries(header.map((name, i) => [name, i < cells.length ? cells[i] : ""])));
}

// ------------------------------------------------------------------------------------------ values

function asNumber(value) {
  if (typeof value === "number") return value;
  if (typeof value === "string" && NUMBER.test(value)) return parseFloat(value);
  return null;
}

const close = (actual, expected) => Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected));

function same(actual, expected) {
  if (actual === expected) return true;
  const left = asNumber(actual);
  const right = asNumber(expected);
  return left !== null && right !== null && close(left, right);
}

function distinct(values) {
  const seen = [];
  for (const value of values) if (!seen.some((other) => other === value)) seen.push(value);
  return seen;
}

const cell = (row, column) => (row[column] === undefined ? null : row[column]);

// --------------------------------------------------------------------------------------- alignment

function align(inputs, outputs) {
  if (outputs.length > inputs.length) throw new Error("the sample output has more rows than its input");
  const shared = outputs.length ? Object.keys(outputs[0]).filter((name) => inputs.length && name in inputs[0]) : [];
  const score = outputs.map((out) => inputs.map((row) => shared.filter((name) => same(cell(out, name), cell(row, name))).length));
  const n = outputs.length;
  const m = inputs.length;
  const best = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let j = n - 1; j >= 0; j--) {
    best[j][m] = -1e9;
    for (let i = m - 1; i >= 0; i--) best[j][i] = Math.max(best[j][i + 1], score[j][i] + best[j + 1][i + 1]);
  }
  const matched = [];
  let i = 0;
  for (let j = 0; j < n; j++) {
    while (best[j][i] !== score[j][i] + best[j + 1][i + 1]) i++;
    matched.push(i);
    i++;
  }
  return matched;
}

// ------------------------------------------------------------------------------------------ filter

const atom = (column, op, value) => ({ column, op, value });

function holds(a, row) {
  const value = cell(row, a.column);
  if (a.op === "==" || a.op === "!=") return (value === a.value) === (a.op === "==");
  const number = asNumber(value);
  return number !== null && (a.op === ">" ? number > a.value : number < a.value);
}

function numbers(rows, column) {
  const values = rows.map((row) => asNumber(cell(row, column)));
  return values.some((value) => value === null) ? null : values;
}

function equalAtoms(columns, inside, outside, op) {
  const atoms = [];
  for (const column of columns) {
    for (const value of distinct(inside.map((row) => cell(row, column)))) {
      if (!outside.some((row) => holds(atom(column, "==", value), row))) atoms.push(atom(column, op, value));
    }
  }
  return atoms;
}

function thresholdAtoms(columns, kept, dropped, nearest) {
  const atoms = [];
  for (const column of columns) {
    const low = numbers(kept, column);
    const high = numbers(dropped, column);
    if (low === null || high === null || high.length === 0) continue;
    const below = nearest ? high.filter((d) => d < Math.min(...low)) : high;
    const above = nearest ? high.filter((d) => d > Math.max(...low)) : high;
    if (below.length) atoms.push(atom(column, ">", Math.max(...below)));
    if (above.length) atoms.push(atom(column, "<", Math.min(...above)));
  }
  return atoms;
}

const single = (rows, column) => distinct(rows.map((row) => cell(row, column))).length === 1;

function firstPair(atoms, accepts) {
  for (let i = 0; i < atoms.length; i++) {
    for (let j = i + 1; j < atoms.length; j++) if (accepts([atoms[i], atoms[j]])) return [atoms[i], atoms[j]];
  }
  return null;
}

function compares(op, left, right) {
  if (op === "==" || op === "!=") return same(left, right) === (op === "==");
  const a = asNumber(left);
  const b = asNumber(right);
  return a !== null && b !== null && (op === ">" ? a > b : a < b);
}

function neighborKeeps(rule, previous, row, following) {
  const other = rule.neighbor === "next" ? following : previous;
  return other !== null && compares(rule.op, cell(other, rule.column), cell(row, rule.column));
}

function neighborFilter(columns, inputs, kept) {
  for (const column of columns) {
    for (const neighbor of ["next", "previous"]) {
      for (const op of [">", "<", "==", "!="]) {
        const rule = { column, neighbor, op };
        const fits = inputs.every((row, i) => neighborKeeps(rule, i ? inputs[i - 1] : null, row,
          i + 1 < inputs.length ? inputs[i + 1] : null) === kept.has(i));
        if (fits) return rule;
      }
    }
  }
  return null;
}

function inferFilter(inputs, keptIndexes) {
  const keptSet = new Set(keptIndexes);
  const kept = keptIndexes.map((i) => inputs[i]);
  const dropped = inputs.filter((_, i) => !keptSet.has(i));
  if (dropped.length === 0) return null;
  const columns = Object.keys(inputs[0]);
  const equal = equalAtoms(columns, kept, [], "==").filter((a) => single(kept, a.column));
  const notEqual = equalAtoms(columns, dropped, kept, "!=");
  const nearest = thresholdAtoms(columns, kept, dropped, true);
  const candidates = [...equalAtoms(columns, kept, dropped, "==").filter((a) => single(kept, a.column)), ...nearest,
    ...notEqual.filter((a) => single(dropped, a.column))];
  const exact = candidates.find((a) => kept.every((row) => holds(a, row)) && !dropped.some((row) => holds(a, row)));
  if (exact) return { all: [exact] };
  const neighbor = neighborFilter(columns, inputs, keptSet);
  if (neighbor) return { neighbor };
  const both = firstPair([...equal, ...nearest, ...notEqual], (pair) => !dropped.some((row) => pair.every((a) => holds(a, row))));
  if (both) return { all: both };
  const orAtoms = [...equalAtoms(columns, kept, dropped, "=="), ...thresholdAtoms(columns, kept, dropped, false)];
  const either = firstPair(orAtoms, (pair) => kept.every((row) => pair.some((a) => holds(a, row))));
  if (either) return { any: either };
  throw new Error("no filter of one or two comparisons keeps exactly the sample's output rows");
}

// ----------------------------------------------------------------------------------------- columns

const sources = (name, columns) => [...(columns.includes(name) ? [name] : []), ...columns.filter((c) => c !== name)];

function strings(rows, column) {
  const values = rows.map((row) => cell(row, column));
  return values.every((value) => typeof value === "string") ? values : null;
}

function copyRule(name, pairs, columns) {
  const source = sources(name, columns).find((s) => pairs.every(([row, out]) => out === cell(row, s)));
  return source === undefined ? null : { kind: "copy", source };
}

function constantRule(name, pairs) {
  const values = distinct(pairs.map(([, out]) => out));
  return values.length === 1 ? { kind: "constant", value: values[0] } : null;
}

const STRING_OPS = { lower: (s) => s.toLowerCase(), upper: (s) => s.toUpperCase(), trim: (s) => s.trim() };

function affix(outs, ins) {
  if (outs.every((o, i) => o.endsWith(ins[i]) && o.length > ins[i].length)) {
    const prefixes = distinct(outs.map((o, i) => o.slice(0, o.length - ins[i].length)));
    if (prefixes.length === 1) return { kind: "prefix", text: prefixes[0] };
  }
  if (outs.every((o, i) => o.startsWith(ins[i]) && o.length > ins[i].length)) {
    const suffixes = distinct(outs.map((o, i) => o.slice(ins[i].length)));
    if (suffixes.length === 1) return { kind: "suffix", text: suffixes[0] };
  }
  return null;
}

function stringRule(name, pairs, columns) {
  const outs = pairs.map(([, out]) => out);
  if (!outs.every((out) => typeof out === "string")) return null;
  for (const source of sources(name, columns)) {
    const ins = strings(pairs.map(([row]) => row), source);
    if (ins === null) continue;
    for (const [kind, op] of Object.entries(STRING_OPS)) {
      if (ins.every((s, i) => op(s) === outs[i])) return { kind, source };
    }
    const found = affix(outs, ins);
    if (found) return { ...found, source };
  }
  return null;
}

const round9 = (x) => Math.round(x * 1e9) / 1e9;

function linearRule(name, pairs, columns) {
  const outs = pairs.map(([, out]) => (typeof out === "boolean" ? null : asNumber(out)));
  if (outs.some((out) => out === null)) return null;
  for (const source of sources(name, columns)) {
    const ins = numbers(pairs.map(([row]) => row), source);
    if (ins === null || new Set(ins).size < 2) continue;
    const first = ins.indexOf(Math.min(...ins));
    const second = ins.indexOf(Math.max(...ins));
    const a = (outs[second] - outs[first]) / (ins[second] - ins[first]);
    const b = outs[first] - a * ins[first];
    if (ins.every((x, i) => close(a * x + b, outs[i]))) return { kind: "linear", source, a, b };
  }
  return null;
}

function concatRule(name, pairs, columns) {
  const outs = pairs.map(([, out]) => out);
  if (!outs.every((out) => typeof out === "string")) return null;
  const rows = pairs.map(([row]) => row);
  for (const left of columns) {
    for (const right of columns) {
      const lefts = strings(rows, left);
      const rights = strings(rows, right);
      if (left === right || lefts === null || rights === null) continue;
      const fits = outs.every((o, i) => o.startsWith(lefts[i]) && o.endsWith(rights[i])
        && o.length >= lefts[i].length + rights[i].length);
      if (!fits) continue;
      const separators = distinct(outs.map((o, i) => o.slice(lefts[i].length, o.length - rights[i].length)));
      if (separators.length === 1) return { kind: "concat", sources: [left, right], separator: separators[0] };
    }
  }
  return null;
}

function splitRule(name, pairs, columns) {
  const outs = pairs.map(([, out]) => out);
  if (!outs.every((out) => typeof out === "string")) return null;
  for (const source of sources(name, columns)) {
    const ins = strings(pairs.map(([row]) => row), source);
    if (ins === null) continue;
    for (const separator of SEPARATORS) {
      const parts = ins.map((s) => s.split(separator));
      if (parts.some((p) => p.length < 2)) continue;
      const fewest = Math.min(...parts.map((p) => p.length));
      for (const index of [...Array(fewest).keys(), -1]) {
        if (parts.every((p, i) => p[index < 0 ? p.length + index : index] === outs[i])) {
          return { kind: "split", source, separator, index };
        }
      }
    }
  }
  return null;
}

function ownCopyRule(name, pairs, columns) {
  return columns.includes(name) ? copyRule(name, pairs, [name]) : null;
}

const fits = (outs, values) => outs.every((out, i) => values[i] !== null && asNumber(out) !== null
  && close(values[i], asNumber(out)));

function rowNumberRule(name, pairs) {
  const outs = pairs.map(([, out]) => (typeof out === "boolean" ? null : asNumber(out)));
  if (outs.length < 2 || outs.some((out) => out === null)) return null;
  const a = round9(outs[1] - outs[0]);
  const b = round9(outs[0] - a);
  return a !== 0 && outs.every((out, i) => close(a * (i + 1) + b, out)) ? { kind: "row_number", a, b } : null;
}

const AGGREGATES = {
  sum: (values) => values.reduce((x, y) => x + y, 0),
  mean: (values) => values.reduce((x, y) => x + y, 0) / values.length,
  max: (values) => Math.max(...values),
  min: (values) => Math.min(...values),
};

const runningValues = (kind, values, size) => values.map((_, i) => AGGREGATES[kind](values.slice(size ? Math.max(0, i + 1 - size) : 0, i + 1)));

function aggregateRule(name, pairs, columns, size) {
  const outs = pairs.map(([, out]) => out);
  for (const source of sources(name, columns)) {
    const values = numbers(pairs.map(([row]) => row), source);
    if (values === null) continue;
    for (const kind of Object.keys(AGGREGATES)) {
      if (fits(outs, runningValues(kind, values, size))) {
        return size ? { kind: "window", aggregate: kind, source, size } : { kind: "running", aggregate: kind, source };
      }
    }
  }
  return null;
}

const runningRule = (name, pairs, columns) => aggregateRule(name, pairs, columns, null);

function windowRule(name, pairs, columns) {
  for (let size = 2; size <= Math.min(64, pairs.length - 1); size++) {
    const found = aggregateRule(name, pairs, columns, size);
    if (found) return found;
  }
  return null;
}

function counted(rule, rows) {
  let count = rule.kind === "count_if" ? 0 : 1;
  return rows.map((row, i) => {
    if (rule.kind === "count_if") count += cell(row, rule.column) === rule.value ? 1 : 0;
    else if (i && !same(cell(row, rule.column), cell(rows[i - 1], rule.column))) count += 1;
    return count;
  });
}

function counterRule(name, pairs, columns) {
  const outs = pairs.map(([, out]) => out);
  const rows = pairs.map(([row]) => row);
  for (const column of columns) {
    for (const value of distinct(rows.map((row) => cell(row, column)))) {
      const rule = { kind: "count_if", column, value };
      if (fits(outs, counted(rule, rows))) return rule;
    }
  }
  for (const column of columns) {
    const rule = { kind: "count_changes", column };
    if (fits(outs, counted(rule, rows))) return rule;
  }
  return null;
}

function toggleRule(name, pairs, columns) {
  const outs = pairs.map(([, out]) => out);
  const rows = pairs.map(([row]) => row);
  const labels = distinct(outs);
  if (labels.length !== 2) return null;
  for (const column of columns) {
    for (const value of distinct(rows.map((row) => cell(row, column)))) {
      for (const start of labels) {
        let label = start;
        const made = rows.map((row) => {
          if (cell(row, column) === value) label = label === labels[0] ? labels[1] : labels[0];
          return label;
        });
        if (made.every((one, i) => one === outs[i])) return { kind: "toggle", column, value, labels, start };
      }
    }
  }
  return null;
}

function bandsRule(name, pairs, columns) {
  const outs = pairs.map(([, out]) => out);
  const labels = distinct(outs);
  if (labels.length < 2) return null;
  for (const source of sources(name, columns)) {
    const values = numbers(pairs.map(([row]) => row), source);
    if (values === null) continue;
    const spans = labels.map((label, i) => {
      const own = values.filter((_, k) => outs[k] === label);
      return [Math.min(...own), Math.max(...own), i];
    }).sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    if (spans.every((span, k) => k === 0 || spans[k - 1][1] < span[0])) {
      return { kind: "bands", source, labels: spans.map(([, , i]) => labels[i]),
        bounds: spans.slice(0, -1).map(([, high]) => high) };
    }
  }
  return null;
}

const RULES = [ownCopyRule, rowNumberRule, copyRule, constantRule, stringRule, linearRule, concatRule, splitRule,
  runningRule, windowRule, counterRule, toggleRule, bandsRule];

function inferColumn(name, pairs, columns) {
  for (const rule of RULES) {
    const found = rule(name, pairs, columns);
    if (found) return { name, ...found };
  }
  throw new Error(`cannot infer how output column ${JSON.stringify(name)} is made`);
}

function inferPlan(inputs, outputs) {
  if (inputs.length === 0) throw new Error("the sample input has no rows");
  const kept = align(inputs, outputs);
  const columns = Object.keys(inputs[0]);
  const names = outputs.length ? Object.keys(outputs[0]) : [];
  const planColumns = names.map((name) => inferColumn(name, kept.map((i, j) => [inputs[i], cell(outputs[j], name)]), columns));
  return { filter: inferFilter(inputs, kept), columns: planColumns };
}

// ------------------------------------------------------------------------------------ command line

function parseArgs(argv) {
  const args = { positional: [], languages: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--output" || arg === "--sample") args[arg.slice(2)] = argv[++i];
    else if (arg === "--python" || arg === "--javascript") args.languages.push(arg.slice(2));
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`);
    else args.positional.push(arg);
  }
  if (args.positional.length !== 1 || !args.output || !args.sample) {
    throw new Error("usage: dynamic_buffer MODULE --output DIR --sample DIR (--python | --javascript)");
  }
  if (args.languages.length !== 1) throw new Error("give exactly one of --python and --javascript");
  return args;
}

function main() {
  try {
    const args = parseArgs(process.argv.slice(2));
    const ext = EXTENSIONS.find((e) => fs.existsSync(path.join(args.sample, `input.${e}`))
      && fs.existsSync(path.join(args.sample, `output.${e}`)));
    if (!ext) throw new Error(`${args.sample} holds no input.EXT and output.EXT pair`);
    const plan = inferPlan(readTable(path.join(args.sample, `input.${ext}`), ext),
      readTable(path.join(args.sample, `output.${ext}`), ext));
    plan.format = ext;
    const [template, target] = TEMPLATES[args.languages[0]];
    const source = fs.readFileSync(path.join(__dirname, template), "utf8").replace("__PLAN__", () => JSON.stringify(plan));
    const directory = path.join(args.output, args.positional[0]);
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(path.join(directory, target), source);
  } catch (error) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
  }
}

main();
