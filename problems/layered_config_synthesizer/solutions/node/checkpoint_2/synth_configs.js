// synth_configs, checkpoint 2: merges base, defaults, run override and flags into one canonical spec, with
// shared fragments expanded in every layer and ${VAR} interpolated from the env file.
// Usage: node synth_configs.js [build] --base B --overrides DIR --fragments DIR --flags F --env E --out OUT
// Integers are BigInt and other numbers Number throughout, so that `2` and `2.0` stay different values.
"use strict";

const fs = require("fs");
const path = require("path");
const YAML = require("yaml");

const FLAGS = ["--base", "--overrides", "--fragments", "--flags", "--env", "--out"];
const PLACEHOLDER = /^\{\{fragment:([\s\S]*)\}\}$/;
const FRAGMENT_NAME = /^[a-z0-9_]+$/;
const VARIABLE = /\$\{([A-Za-z0-9_]+)\}/g;
const YAML_OPTIONS = { version: "1.2", intAsBigInt: true, uniqueKeys: true, merge: true, logLevel: "silent" };

class SynthError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

// ---------------------------------------------------------------- command line

/** Flag -> value (the last occurrence wins); an optional leading `build` subcommand. */
function parseArgs(argv) {
  const tokens = [...argv];
  if (tokens.length && !tokens[0].startsWith("--")) {
    if (tokens[0] !== "build") throw new SynthError("INVALID_INPUT", `unknown subcommand: ${tokens[0]}`);
    tokens.shift();
  }
  const values = {};
  while (tokens.length) {
    const flag = tokens.shift();
    if (!FLAGS.includes(flag)) throw new SynthError("INVALID_INPUT", `unknown argument: ${flag}`);
    if (!tokens.length) throw new SynthError("INVALID_INPUT", `${flag} needs a value`);
    values[flag] = tokens.shift();
  }
  const missing = FLAGS.filter((flag) => !(flag in values));
  if (missing.length) throw new SynthError("INVALID_INPUT", `missing flag(s): ${missing.join(", ")}`);
  return values;
}

// ---------------------------------------------------------------- loading

const isFile = (file) => fs.existsSync(file) && fs.statSync(file).isFile();

function readText(file, label) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new SynthError("MISSING_FILE", `${label}: cannot read ${file}: ${error.message}`);
  }
}

/** The value with JSON types only; a non-string key (YAML allows them) is a parse error. */
function asJson(value, label) {
  if (value instanceof Map) throw new SynthError("PARSE_ERROR", `${label}: keys must be strings`);
  if (Array.isArray(value)) return value.map((item) => asJson(item, label));
  if (isObject(value)) {
    const result = {};
    for (const [key, item] of Object.entries(value)) result[key] = asJson(item, label);
    return result;
  }
  return value === undefined ? null : value;
}

/** Parse YAML text; duplicate keys and syntax errors are PARSE_ERROR. */
function parseYaml(text, label) {
  const document = YAML.parseDocument(text, YAML_OPTIONS);
  if (document.errors.length) throw new SynthError("PARSE_ERROR", `${label}: ${document.errors[0].message}`);
  checkKeys(document.contents, label);
  return asJson(document.toJS({ mapAsMap: false, maxAliasCount: -1 }), label);
}

/** Mapping keys must be strings (a YAML date key or number key is refused as Python's loader does). */
function checkKeys(node, label) {
  if (YAML.isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key;
      const isMergeKey = YAML.isScalar(key) && typeof key.value === "symbol";
      if (!isMergeKey && !(YAML.isScalar(key) && typeof key.value === "string")) {
        throw new SynthError("PARSE_ERROR", `${label}: keys must be strings`);
      }
      checkKeys(pair.value, label);
    }
  } else if (YAML.isSeq(node)) {
    node.items.forEach((item) => checkKeys(item, label));
  }
}

const loadYaml = (file, label) => parseYaml(readText(file, label), label);

/** The flags object: a missing file, an empty one and `null` are an empty object. */
function loadFlags(file) {
  if (!fs.existsSync(file)) return {};
  const text = readText(file, "flags.json");
  if (!text.trim()) return {};
  try {
    JSON.parse(text);
  } catch (error) {
    throw new SynthError("PARSE_ERROR", `flags.json: ${error.message}`);
  }
  const data = parseYaml(text, "flags.json");
  if (data === null) return {};
  if (!isObject(data)) throw new SynthError("PARSE_ERROR", "flags.json must hold a JSON object");
  return data;
}

/** KEY=VALUE lines; blank lines and `#` comments are skipped. */
function loadEnv(file) {
  if (!isFile(file)) throw new SynthError("MISSING_FILE", `env.list not found: ${file}`);
  const env = {};
  readText(file, "env.list").split(/\r?\n/).forEach((line, index) => {
    const stripped = line.trim();
    if (!stripped || stripped.startsWith("#")) return;
    const at = stripped.indexOf("=");
    if (at < 0 || !stripped.slice(0, at).trim()) {
      throw new SynthError("PARSE_ERROR", `env.list line ${index + 1} is not KEY=VALUE`);
    }
    env[stripped.slice(0, at).trim()] = stripped.slice(at + 1).trim();
  });
  return resolveEnv(env);
}

/** Every value with the ${NAME} it holds replaced by that entry's resolved value. */
function resolveEnv(raw) {
  const resolved = {};
  const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  const valueOf = (name, chain) => {
    if (has(resolved, name)) return resolved[name];
    if (!has(raw, name)) throw new SynthError("UNKNOWN_ENV_VAR", `${name} is not defined`);
    if (chain.includes(name)) {
      throw new SynthError("UNKNOWN_ENV_VAR", `env variables refer to each other: ${[...chain, name].join(" -> ")}`);
    }
    resolved[name] = raw[name].replace(VARIABLE, (_, inner) => valueOf(inner, [...chain, name]));
    return resolved[name];
  };
  Object.keys(raw).forEach((key) => valueOf(key, []));
  return resolved;
}

/** Every string value (keys aside) with its ${NAME} tokens replaced from the env file. */
function interpolate(value, env) {
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (isObject(value)) {
    const result = {};
    for (const [key, item] of Object.entries(value)) result[key] = interpolate(item, env);
    return result;
  }
  if (typeof value !== "string") return value;
  return value.replace(VARIABLE, (_, name) => {
    if (!Object.prototype.hasOwnProperty.call(env, name)) {
      throw new SynthError("UNKNOWN_ENV_VAR", `${name} is not defined`);
    }
    return env[name];
  });
}

// ---------------------------------------------------------------- fragments

/** The deprecated_reason of a metadata entry (null or an object), if any. */
function reasonOf(info, label) {
  if (info === null || info === undefined) return null;
  if (!isObject(info)) throw new SynthError("INVALID_TEMPLATE", `${label} must be an object`);
  const reason = info.deprecated_reason;
  if (reason !== undefined && reason !== null && typeof reason !== "string") {
    throw new SynthError("INVALID_TEMPLATE", `${label}: deprecated_reason must be a string`);
  }
  return reason ?? null;
}

/** Expands `{{fragment:NAME}}` values from a directory of fragment files, noting deprecations once each. */
class Fragments {
  constructor(directory) {
    this.directory = directory;
    this.loaded = new Map();
    this.reasons = this.metadata();
    this.warned = new Set();
    this.warnings = [];
  }

  metadata() {
    const file = path.join(this.directory, "meta.yaml");
    const reasons = new Map();
    if (!fs.existsSync(file)) return reasons;
    const meta = loadYaml(file, "fragments/meta.yaml");
    if (meta === null) return reasons;
    if (!isObject(meta)) throw new SynthError("INVALID_TEMPLATE", "fragments/meta.yaml must hold a mapping");
    for (const [name, info] of Object.entries(meta)) {
      if (!isObject(info)) throw new SynthError("INVALID_TEMPLATE", `fragments/meta.yaml: ${name} must be an object`);
      const reason = reasonOf(info, `fragments/meta.yaml: ${name}`);
      if (reason !== null) reasons.set(name, reason);
    }
    return reasons;
  }

  expand(value, chain = [], inArray = false) {
    if (Array.isArray(value)) return value.map((item) => this.expand(item, chain, true));
    if (isObject(value)) {
      const result = {};
      for (const [key, item] of Object.entries(value)) result[key] = this.expand(item, chain);
      return result;
    }
    const matched = typeof value === "string" && PLACEHOLDER.exec(value);
    return matched ? this.inline(matched[1], chain, inArray) : value;
  }

  inline(name, chain, inArray) {
    if (!FRAGMENT_NAME.test(name)) throw new SynthError("INVALID_TEMPLATE", `invalid fragment name ${JSON.stringify(name)}`);
    if (chain.includes(name)) {
      const cycle = [...chain.slice(chain.indexOf(name)), name];
      throw new SynthError("FRAGMENT_CYCLE", `fragment cycle: ${cycle.join(" -> ")}`);
    }
    const content = this.load(name);
    if (inArray && Array.isArray(content)) {
      throw new SynthError("INVALID_TEMPLATE", `fragment ${name} is an array inside an array`);
    }
    const expanded = this.expand(content, [...chain, name], inArray);
    if (this.reasons.has(name) && !this.warned.has(name)) {
      this.warned.add(name);
      this.warnings.push(`FRAGMENT_DEPRECATED ${name} ${this.reasons.get(name)}`);
    }
    return expanded;
  }

  load(name) {
    if (!this.loaded.has(name)) {
      const file = path.join(this.directory, `${name}.yaml`);
      if (!isFile(file)) throw new SynthError("UNKNOWN_FRAGMENT", `fragment ${name} not found`);
      const content = loadYaml(file, `fragments/${name}.yaml`);
      if (isObject(content) && Object.prototype.hasOwnProperty.call(content, "_meta")) {
        const reason = reasonOf(content._meta, `fragments/${name}.yaml: _meta`);
        delete content._meta;
        if (reason !== null && !this.reasons.has(name)) this.reasons.set(name, reason);
      }
      this.loaded.set(name, content);
    }
    return this.loaded.get(name);
  }
}

function requireFile(file, label) {
  if (!isFile(file)) throw new SynthError("MISSING_FILE", `${label} not found: ${file}`);
  return file;
}

// ---------------------------------------------------------------- merging

/** The JSON type name of a value (integers and floats are both numbers). */
function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "bigint") return "number";
  return typeof value;
}

const pointer = (parts) =>
  parts.length ? "/" + parts.map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1")).join("/") : "/";

/** Deep-merges layers in order, remembering which layer set each value, and records type conflicts. */
class Merger {
  constructor() {
    this.origin = new Map();
    this.warnings = [];
    this.document = null;
    this.started = false;
  }

  add(layer, source) {
    if (!this.started) {
      this.started = true;
      this.document = layer;
      this.claim([], layer, source);
      return;
    }
    this.document = this.merge(this.document, layer, [], source);
  }

  merge(older, newer, parts, source) {
    if (isObject(older) && isObject(newer)) {
      const merged = { ...older };
      for (const [key, value] of Object.entries(newer)) {
        const child = [...parts, key];
        if (Object.prototype.hasOwnProperty.call(merged, key)) {
          merged[key] = this.merge(merged[key], value, child, source);
        } else {
          merged[key] = value;
          this.claim(child, value, source);
        }
      }
      return merged;
    }
    const loser = this.origin.get(JSON.stringify(parts));
    if (typeOf(older) !== typeOf(newer) && loser && loser !== source) {
      this.warnings.push(`CONFLICT ${pointer(parts)} ${loser} -> ${source}`);
    }
    this.claim(parts, newer, source);
    return newer;
  }

  claim(parts, value, source) {
    for (const known of [...this.origin.keys()]) {
      const knownParts = JSON.parse(known);
      if (parts.every((part, index) => knownParts[index] === part) && knownParts.length >= parts.length) {
        this.origin.delete(known);
      }
    }
    this.mark(parts, value, source);
  }

  mark(parts, value, source) {
    this.origin.set(JSON.stringify(parts), source);
    if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) this.mark([...parts, key], item, source);
    }
  }
}

// ---------------------------------------------------------------- validation

const positiveInt = (value) => typeof value === "bigint" && value > 0n;

function requireSection(spec, name) {
  if (spec[name] === undefined || spec[name] === null) throw new SynthError("MISSING_KEY", `${name} is required`);
  if (!isObject(spec[name])) throw new SynthError("INVALID_VALUE", `${name} must be an object`);
  return spec[name];
}

function checkAccelerators(accelerators) {
  if (!Array.isArray(accelerators)) throw new SynthError("INVALID_VALUE", "resources.accelerators must be an array");
  accelerators.forEach((item, index) => {
    const where = `resources.accelerators[${index}]`;
    if (!isObject(item)) throw new SynthError("INVALID_VALUE", `${where} must be an object`);
    if (typeof item.type !== "string") throw new SynthError("INVALID_VALUE", `${where}.type must be a string`);
    if (!positiveInt(item.count)) throw new SynthError("INVALID_VALUE", `${where}.count must be a positive integer`);
  });
}

function validate(spec) {
  if (!isObject(spec)) throw new SynthError("INVALID_STRUCTURE", "the merged document must be an object");
  const name = spec.experiment_name;
  if (typeof name !== "string" || !name.trim()) throw new SynthError("MISSING_KEY", "experiment_name is required");
  requireSection(spec, "training");
  const resources = requireSection(spec, "resources");
  const present = (key) => resources[key] !== undefined && resources[key] !== null;
  if (!present("accelerators") && !present("profile")) {
    throw new SynthError("MISSING_KEY", "resources needs accelerators or profile");
  }
  if (present("profile") && typeof resources.profile !== "string") {
    throw new SynthError("INVALID_VALUE", "resources.profile must be a string");
  }
  if ("world_size" in resources && !positiveInt(resources.world_size)) {
    throw new SynthError("INVALID_VALUE", "resources.world_size must be a positive integer");
  }
  if (present("accelerators")) checkAccelerators(resources.accelerators);
}

// ---------------------------------------------------------------- outputs

const byCodePoint = (left, right) => {
  const a = Array.from(left, (char) => char.codePointAt(0));
  const b = Array.from(right, (char) => char.codePointAt(0));
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    if (a[index] !== b[index]) return a[index] - b[index];
  }
  return a.length - b.length;
};

/** Compact JSON with keys sorted by code point; BigInt as digits, floats with a fraction or exponent. */
function canonical(value) {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isInteger(value) ? value.toFixed(1) : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(byCodePoint);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function writeOutputs(out, spec, warnings) {
  fs.writeFileSync(path.join(out, "final_spec.json"), canonical(spec) + "\n");
  fs.writeFileSync(path.join(out, "warnings.txt"), warnings.map((line) => line + "\n").join("") || "\n");
}

function fillFromDefaults(document, defaults) {
  if (!isObject(document) || !isObject(defaults)) return;
  for (const [key, value] of Object.entries(defaults)) if (!(key in document)) document[key] = value;
}

function build(args) {
  const out = args["--out"];
  if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) {
    throw new SynthError("MISSING_FILE", `--out is not a directory: ${out}`);
  }
  fs.mkdirSync(out, { recursive: true });
  const basePath = requireFile(args["--base"], "base.yaml");
  const overrides = args["--overrides"];
  const defaultsPath = requireFile(path.join(overrides, "defaults.yaml"), "overrides/defaults.yaml");
  const env = loadEnv(args["--env"]);
  const fragments = new Fragments(args["--fragments"]);
  const base = fragments.expand(loadYaml(basePath, "base.yaml"));
  if (!isObject(base)) throw new SynthError("INVALID_STRUCTURE", "base.yaml must hold an object");
  const defaults = fragments.expand(loadYaml(defaultsPath, "defaults.yaml"));
  const layers = [[base, "base.yaml"], [defaults, "defaults.yaml"]];
  const runPath = path.join(overrides, "run.yaml");
  if (isFile(runPath)) layers.push([fragments.expand(loadYaml(runPath, "run.yaml")), "run.yaml"]);
  layers.push([fragments.expand(loadFlags(args["--flags"])), "flags.json"]);
  const merger = new Merger();
  for (const [layer, source] of layers) merger.add(layer, source);
  fillFromDefaults(merger.document, defaults);
  const spec = interpolate(merger.document, env);
  validate(spec);
  writeOutputs(out, spec, [...fragments.warnings, ...merger.warnings]);
}

function main(argv) {
  try {
    build(parseArgs(argv));
  } catch (error) {
    if (!(error instanceof SynthError)) throw error;
    process.stderr.write(JSON.stringify({ error: { code: error.code, message: error.message } }) + "\n");
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
