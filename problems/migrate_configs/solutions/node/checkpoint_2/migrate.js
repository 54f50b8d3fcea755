// Config migration tool: applies named rules to every config file under a directory, in place.
// Usage: node migrate.js RULES_JSON TARGET_DIR. Prints one JSON line per changed file on stdout; exits 1
// with an `Error:` line on stderr when the rules file or the target directory is missing, when a rule
// lacks a field its type needs, or when a config file does not parse. Integers are BigInt and other
// numbers Number throughout, so that `1` and `1.0` stay different values as the spec requires.
"use strict";

const fs = require("fs");
const path = require("path");
const YAML = require("yaml");
const TOML = require("smol-toml");

class Fatal extends Error {}

// ---------------------------------------------------------------- values

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isNumber = (value) => typeof value === "number" || typeof value === "bigint";

/** A float as Python writes it: `300.0`, `0.5`, `1e-05`, `1e+16`. */
function floatText(value) {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  const size = Math.abs(value);
  if (size !== 0 && (size < 1e-4 || size >= 1e16)) {
    const [mantissa, exponent] = value.toExponential().split("e");
    const sign = exponent.startsWith("-") ? "-" : "+";
    return `${mantissa}e${sign}${exponent.replace(/^[+-]/, "").padStart(2, "0")}`;
  }
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** A number in its usual decimal form: integers as digits, floats as Python writes them. */
const numberText = (value) => (typeof value === "bigint" ? value.toString() : floatText(value));

/** Equal as documents: the same value and, at every leaf, the same type (`1` is not `1.0` nor `true`). */
function same(left, right) {
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && left.length === right.length &&
      left.every((item, index) => same(item, right[index]));
  }
  if (isObject(left) || isObject(right)) {
    const keys = isObject(left) && isObject(right) ? Object.keys(left) : null;
    return keys !== null && keys.length === Object.keys(right).length &&
      keys.every((key) => Object.hasOwn(right, key) && same(left[key], right[key]));
  }
  return typeof left === typeof right && left === right;
}

const clone = (value) => (Array.isArray(value) ? value.map(clone)
  : isObject(value) ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, clone(item)])) : value);

// ---------------------------------------------------------------- formats

const INT_MARK = "\u0000int:";
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** JSON text as a document, integers as BigInt (JSON.parse validates the original text first). */
function readJson(text) {
  JSON.parse(text);
  const marked = text.replace(JSON_TOKEN, (token) => (/^-?\d+$/.test(token) ? `"\\u0000int:${token}"` : token));
  return JSON.parse(marked, (_key, value) =>
    (typeof value === "string" && value.startsWith(INT_MARK) ? BigInt(value.slice(INT_MARK.length)) : value));
}

function jsonText(value) {
  if (isNumber(value)) return numberText(value);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(", ")}]`;
  if (isObject(value)) {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${jsonText(item)}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}

const YAML_OPTIONS = { version: "1.1", intAsBigInt: true, uniqueKeys: false, logLevel: "error" };

function readYaml(text) {
  return YAML.parse(text, YAML_OPTIONS) ?? {};
}

function writeYaml(document) {
  const doc = new YAML.Document(document, YAML_OPTIONS);
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "number" && Number.isInteger(node.value)) node.minFractionDigits = 1;
    },
  });
  return doc.toString();
}

function withoutNulls(value) {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(withoutNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null)
    .map(([key, item]) => [key, withoutNulls(item)]));
}

const readToml = (text) => clone(TOML.parse(text, { integersAsBigInt: true }));
const writeToml = (document) => TOML.stringify(withoutNulls(document), { numbersAsFloat: true });

// INI as Python's configparser reads it with interpolation off, keys as written and `[DEFAULT]` a
// section like any other: comments are lines starting with `#` or `;`, an indented line continues the
// value above it, a blank line inside a value is kept (trailing ones are dropped).
const SECTION = /^\[(.+)\]/;
const OPTION = /^(.*?)\s*([=:])\s*(.*)$/;

function readIni(text) {
  const sections = {};
  let section = null;
  let option = null;
  let indent = Infinity;
  for (const line of text.split(/\r\n|\r|\n/)) {
    const value = /^\s*[#;]/.test(line) ? "" : line.trim();
    if (!value) {
      if (value === line.trim() && section && option) section[option].push("");
      continue;
    }
    const lineIndent = line.length - line.trimStart().length;
    if (section && option && lineIndent > indent) {
      section[option].push(value);
      continue;
    }
    indent = lineIndent;
    const header = SECTION.exec(value);
    if (header) {
      if (Object.hasOwn(sections, header[1])) throw new Error(`duplicate section ${header[1]}`);
      section = sections[header[1]] = {};
      option = null;
    } else if (!section) {
      throw new Error("a key before any [section] header");
    } else {
      const parts = OPTION.exec(value);
      const name = parts && parts[1].trimEnd();
      if (!name) throw new Error(`not a key = value line: ${value}`);
      if (Object.hasOwn(section, name)) throw new Error(`duplicate key ${name}`);
      section[name] = [parts[3].trim()];
      option = name;
    }
  }
  return Object.fromEntries(Object.entries(sections).map(([name, values]) =>
    [name, Object.fromEntries(Object.entries(values).map(([key, lines]) => [key, lines.join("\n").trimEnd()]))]));
}

const LITERALS = new Map([[true, "True"], [false, "False"], [null, "None"]]);

/** An array, object or scalar in the bracketed notation of INI values: `['a', 1, True]`, `{'k': 'v'}`. */
function literal(value) {
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  if (isObject(value)) return `{${Object.entries(value).map(([key, item]) => `'${key}': ${literal(item)}`).join(", ")}}`;
  if (typeof value === "string") return `'${value}'`;
  return LITERALS.has(value) ? LITERALS.get(value) : numberText(value);
}

/** A document value as the text of an INI value: strings as they are, booleans `true` / `false`. */
function iniText(value) {
  if (typeof value === "boolean") return String(value);
  return typeof value === "string" ? value : literal(value);
}

/** Objects at the top are sections; any other top-level value goes to the `[DEFAULT]` section. */
function writeIni(document) {
  const sections = new Map();
  for (const [name, value] of Object.entries(document)) {
    const [section, items] = isObject(value) ? [name, value] : ["DEFAULT", { [name]: value }];
    if (!sections.has(section)) sections.set(section, new Map());
    for (const [key, item] of Object.entries(items)) sections.get(section).set(key, iniText(item));
  }
  return [...sections].map(([name, items]) => `[${name}]\n` +
    [...items].map(([key, text]) => `${key} = ${text.replaceAll("\n", "\n\t")}\n`).join("") + "\n").join("");
}

/** Config file extension -> [parse text, write document]. */
const FORMATS = {
  ".json": [readJson, (document) => `${jsonText(document)}\n`],
  ".yaml": [readYaml, writeYaml],
  ".yml": [readYaml, writeYaml],
  ".toml": [readToml, writeToml],
  ".ini": [readIni, writeIni],
};

const formatOf = (file) => FORMATS[path.extname(file).toLowerCase()];

// ---------------------------------------------------------------- rules

const MISSING = Symbol("missing");

/** The value under one path segment: an object's key, or an array's index written in digits. */
function child(node, part) {
  if (isObject(node)) return Object.hasOwn(node, part) ? node[part] : MISSING;
  if (Array.isArray(node) && /^\d+$/.test(part) && Number(part) < node.length) return node[Number(part)];
  return MISSING;
}

/** [container, key or index] of the existing value at a dotted path; [null, null] when it does not exist. */
function slot(document, keyPath) {
  const heads = keyPath.split(".");
  const last = heads.pop();
  const node = heads.reduce(child, document);
  if (child(node, last) === MISSING) return [null, null];
  return [node, Array.isArray(node) ? Number(last) : last];
}

/** The value at a dotted path, or MISSING. */
function getValue(document, keyPath) {
  const [container, key] = slot(document, keyPath);
  return container === null ? MISSING : container[key];
}

/** Store value unless the same value is there already; true when it changed something. */
function put(container, key, value) {
  if (same(container[key], value)) return false;
  container[key] = clone(value);
  return true;
}

/** The object (created along the way) that should hold the last segment of a path; [null, ""] when blocked. */
function parentOf(document, keyPath) {
  const heads = keyPath.split(".");
  const last = heads.pop();
  let node = document;
  for (const head of heads) {
    if (isObject(node) && !Object.hasOwn(node, head)) node[head] = {};
    node = isObject(node) ? node[head] : null;
  }
  return isObject(node) ? [node, last] : [null, ""];
}

function replaceValue(document, rule) {
  const [container, key] = slot(document, rule.key);
  return container !== null && put(container, key, rule.value);
}

function renameKey(document, rule) {
  const [source, old] = slot(document, rule.old_key);
  if (!isObject(source) || rule.old_key === rule.new_key) return false;
  const [target, key] = parentOf(document, rule.new_key);
  if (target === null) return false;
  const value = source[old];
  delete source[old];
  target[key] = value;
  return true;
}

function deepMerge(target, data) {
  let changed = false;
  for (const [key, value] of Object.entries(data)) {
    if (isObject(target[key]) && Object.hasOwn(target, key) && isObject(value)) {
      changed = deepMerge(target[key], value) || changed;
    } else if (!Object.hasOwn(target, key) || !same(target[key], value)) {
      target[key] = clone(value);
      changed = true;
    }
  }
  return changed;
}

/** Python's fnmatch: `*` any run, `?` one character, `[...]` a set (`[!...]` negated), the rest literal. */
function fnmatchRegex(pattern) {
  let source = "";
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    const close = char === "[" ? pattern.indexOf("]", index + (pattern[index + 1] === "!" ? 3 : 2)) : -1;
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else if (close > 0) {
      const body = pattern.slice(index + 1, close).replaceAll("\\", "\\\\");
      source += body.startsWith("!") ? `[^${body.slice(1)}]` : `[${body.replace(/^\^/, "\\^")}]`;
      index = close;
    } else source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^(?:${source})$`, "s");
}

/** Shell-style match of a relative path; `**\/` may also match nothing and `/**\/` a single `/`. */
function globMatches(relative, pattern) {
  const variants = [pattern, pattern.replace(/^\.\//, ""), pattern.replace(/^\*\*\//, ""),
    pattern.replaceAll("/**/", "/")];
  return variants.some((variant) => fnmatchRegex(variant).test(relative));
}

function mergeData(document, rule, relative) {
  if (!isObject(document) || !globMatches(relative, rule.glob ?? "**/*")) return false;
  return deepMerge(document, rule.data);
}

const PLACEHOLDER = /\$\{([^}]*)\}/g;

/** A value as text: a string as it is, a number in its decimal form, booleans `true` / `false`. */
function text(value) {
  if (typeof value === "string") return value;
  if (isNumber(value)) return numberText(value);
  return typeof value === "boolean" ? String(value) : literal(value);
}

/** The template with every `${name}` replaced by its value as text (an unknown name by nothing). */
const render = (template, values) =>
  template.replace(PLACEHOLDER, (_match, name) => text(Object.hasOwn(values, name) ? values[name] : ""));

/** Yield [container, key, captures] for every value whose path below node matches the pattern segments. */
function* matches(node, segments, captures) {
  const [head, ...rest] = segments;
  const children = isObject(node) ? Object.entries(node) : Array.isArray(node) ? node.map((item, index) => [index, item]) : [];
  for (const [key, item] of children) {
    const bound = bind(head, String(key), captures);
    if (bound === null) continue;
    if (rest.length) yield* matches(item, rest, bound);
    else yield [node, key, bound];
  }
}

/** The captures after matching one path segment against one pattern segment; null when it does not match. */
function bind(segment, actual, captures) {
  if (segment === "*") return captures;
  if (!segment.startsWith("$")) return segment === actual ? captures : null;
  const name = segment.slice(1);
  return (captures[name] ?? actual) === actual ? { ...captures, [name]: actual } : null;
}

function patternReplace(document, rule) {
  const { value } = rule;
  let changed = false;
  for (const [container, key, captures] of [...matches(document, rule.key_pattern.split("."), {})]) {
    changed = put(container, key, typeof value === "string" ? render(value, captures) : value ?? null) || changed;
  }
  return changed;
}

function templateString(document, rule) {
  const [container, key] = slot(document, rule.key);
  const values = Object.fromEntries(Object.entries(rule.variables ?? {}).map(([name, at]) => [name, getValue(document, at)]));
  if (container === null || typeof container[key] !== "string" || Object.values(values).includes(MISSING)) return false;
  return put(container, key, render(rule.template, values));
}

/** Equal as the condition compares: numbers by value (`3` equals `3.0`; `==` compares BigInt with Number),
 * everything else as `same`. */
const looselySame = (left, right) => (isNumber(left) && isNumber(right) ? left == right : same(left, right));

/** Condition name -> holds(current value, the condition's operand). */
const CONDITIONS = {
  current_value_equals: (current, expected) => looselySame(current, expected),
  current_value_not_equals: (current, expected) => !looselySame(current, expected),
  current_value_matches: (current, pattern) => new RegExp(pattern, "uy").test(text(current)),
};

function conditionalReplace(document, rule) {
  const [container, key] = slot(document, rule.key);
  if (container === null) return false;
  const holds = Object.entries(rule.condition).every(([name, operand]) =>
    !Object.hasOwn(CONDITIONS, name) || CONDITIONS[name](container[key], operand));
  return holds && put(container, key, rule.value ?? null);
}

/** Rule type -> apply(document, rule, relative path): true when it changed the document in place. */
const RULES = {
  replace_value: replaceValue,
  rename_key: renameKey,
  merge_data: mergeData,
  pattern_replace: patternReplace,
  template_string: templateString,
  conditional_replace: conditionalReplace,
};

function regexProblem(pattern) {
  if (typeof pattern !== "string") return "current_value_matches must be a string";
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    return `invalid regular expression '${pattern}': ${error.message}`;
  }
  return null;
}

/** Rule type -> what is wrong with a rule of that type, or null. */
const CHECKS = {
  pattern_replace: (rule) => (typeof rule.key_pattern === "string" ? null : "key_pattern (a string) is required"),
  template_string(rule) {
    if (typeof rule.template !== "string") return "template (a string) is required";
    const variables = rule.variables ?? {};
    return isObject(variables) && Object.values(variables).every((at) => typeof at === "string") ? null
      : "variables must be an object of key paths (strings)";
  },
  conditional_replace(rule) {
    const { condition } = rule;
    if (!isObject(condition) || !Object.keys(CONDITIONS).some((name) => Object.hasOwn(condition, name))) {
      return `condition must be an object with at least one of ${Object.keys(CONDITIONS).join(", ")}`;
    }
    return Object.hasOwn(condition, "current_value_matches") ? regexProblem(condition.current_value_matches) : null;
  },
};

/** Throw Fatal naming the first rule (in name order) that lacks a field its type needs. */
function validate(rules) {
  for (const name of Object.keys(rules).sort()) {
    const problem = (CHECKS[rules[name].type] ?? (() => null))(rules[name]);
    if (problem) throw new Fatal(`rule '${name}': ${problem}`);
  }
}

// ---------------------------------------------------------------- run

function loadRules(file) {
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new Fatal(`rules file not found: ${file}`);
  let rules;
  try {
    rules = readJson(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Fatal(`failed to parse rules file ${file}: ${error.message}`);
  }
  if (!isObject(rules)) throw new Fatal(`failed to parse rules file ${file}: not a JSON object`);
  return rules;
}

/** [relative path, path] of every config file under root, in code-point order of the relative path. */
function configFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (fs.statSync(full).isFile() && formatOf(entry.name)) found.push([path.relative(root, full).split(path.sep).join("/"), full]);
    }
  };
  walk(root);
  return found.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
}

function parse(relative, file) {
  try {
    return formatOf(file)[0](fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Fatal(`failed to parse ${relative}: ${error.message}`);
  }
}

/** Apply the rules to every config file under root; write the changed ones; return their events. */
function migrate(rules, root) {
  const loaded = configFiles(root).map(([relative, file]) => [relative, file, parse(relative, file)]);
  const events = [];
  for (const [relative, file, document] of loaded) {
    const original = clone(document);
    const applied = Object.keys(rules).sort().filter((name) =>
      (RULES[rules[name].type] ?? (() => false))(document, rules[name], relative));
    if (applied.length && !same(document, original)) {
      fs.writeFileSync(file, formatOf(file)[1](document), "utf8");
      events.push({ event: "file_updated", file: relative, rules_applied: applied });
    }
  }
  return events;
}

function main(argv) {
  if (argv.length !== 2) throw new Fatal("usage: migrate RULES_JSON TARGET_DIR");
  const rules = loadRules(argv[0]);
  if (!fs.existsSync(argv[1]) || !fs.statSync(argv[1]).isDirectory()) {
    throw new Fatal(`target directory not found: ${argv[1]}`);
  }
  validate(rules);
  process.stdout.write(migrate(rules, argv[1]).map((event) => `${JSON.stringify(event)}\n`).join(""));
}

try {
  main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof Fatal)) throw error;
  process.stderr.write(`Error: ${error.message}\n`);
  process.exitCode = 1;
}
