#!/usr/bin/env node
// Search Python, JavaScript and C++ files with exact and regex rules; print JSON Lines.
'use strict';

const fs = require('fs');
const path = require('path');

const LANGUAGE_EXTENSIONS = {
  python: ['.py'],
  javascript: ['.js', '.mjs', '.cjs'],
  cpp: ['.cc', '.cpp', '.cxx', '.hh', '.hpp', '.hxx'],
};
const EXTENSIONS = Object.fromEntries(
  Object.entries(LANGUAGE_EXTENSIONS).flatMap(([language, exts]) => exts.map((ext) => [ext, language])),
);
const ALL_LANGUAGES = Object.keys(LANGUAGE_EXTENSIONS);
const DEFAULT_LANGUAGES = ALL_LANGUAGES;
const KINDS = ['exact', 'regex'];
const REGEX_FLAGS = { i: 'i', m: 'm', s: 's' };

class UsageError extends Error {}

function require_(condition, message) {
  if (!condition) throw new UsageError(message);
}

// ------------------------------------------------------------------ args

function parseArgs(argv) {
  const args = { root: null, rules: null, encoding: 'utf-8' };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--rules' || arg === '--encoding') {
      require_(i + 1 < argv.length, `${arg} needs a value`);
      args[arg.slice(2)] = argv[i + 1];
      i += 1;
    } else {
      require_(args.root === null && !arg.startsWith('--'), `unexpected argument: ${arg}`);
      args.root = arg;
    }
  }
  require_(args.root !== null, 'usage: code_search <root_dir> --rules <rules_file> [--encoding <name>]');
  require_(args.rules !== null, '--rules is required');
  return args;
}

// ------------------------------------------------------------------ rules

function loadRules(file) {
  let data;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read rules file ${file}: ${err.message}`);
  }
  require_(Array.isArray(data), 'rules file must hold a JSON array');
  const rules = data.map(parseRule);
  const ids = new Set(rules.map((rule) => rule.id));
  require_(ids.size === rules.length, 'rule ids must be unique');
  return rules;
}

function isNonEmptyString(value) {
  return typeof value === 'string' && value !== '';
}

function parseRule(entry) {
  require_(entry !== null && typeof entry === 'object' && !Array.isArray(entry), 'each rule must be an object');
  const { id, kind, pattern } = entry;
  require_(isNonEmptyString(id), 'rule id must be a non-empty string');
  require_(KINDS.includes(kind), `rule ${id}: unknown kind ${JSON.stringify(kind)}`);
  require_(isNonEmptyString(pattern), `rule ${id}: pattern must be a non-empty string`);
  const languages = parseLanguages(id, entry.languages);
  const regex = kind === 'regex' ? compileRegex(id, pattern, entry.regex_flags) : null;
  return { id, kind, pattern, languages, regex };
}

function parseLanguages(id, value) {
  if (value === undefined || value === null) return DEFAULT_LANGUAGES;
  require_(Array.isArray(value), `rule ${id}: languages must be an array`);
  for (const language of value) {
    require_(ALL_LANGUAGES.includes(language), `rule ${id}: unsupported language ${JSON.stringify(language)}`);
  }
  return value;
}

function compileRegex(id, pattern, flags) {
  const list = flags === undefined || flags === null ? [] : flags;
  require_(Array.isArray(list), `rule ${id}: regex_flags must be an array`);
  let bits = 'gu';
  for (const flag of list) {
    require_(Object.prototype.hasOwnProperty.call(REGEX_FLAGS, flag), `rule ${id}: unsupported regex flag ${JSON.stringify(flag)}`);
    if (!bits.includes(flag)) bits += REGEX_FLAGS[flag];
  }
  try {
    return new RegExp(pattern, bits);
  } catch (err) {
    throw new UsageError(`rule ${id}: invalid regex: ${err.message}`);
  }
}

// ------------------------------------------------------------------ files

function sourceFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      const language = EXTENSIONS[path.extname(entry.name)];
      if (entry.isFile() && language) {
        found.push({ rel: path.relative(root, full).split(path.sep).join('/'), full, language });
      }
    }
  };
  walk(root);
  return found.sort((a, b) => compare(a.rel, b.rel));
}

function makeDecoder(encoding) {
  const name = encoding.toLowerCase().replace(/[-_]/g, '');
  if (['latin1', 'iso88591', 'l1'].includes(name)) return (bytes) => bytes.toString('latin1');
  let decoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch (err) {
    throw new UsageError(`unknown encoding: ${encoding}`);
  }
  return (bytes) => decoder.decode(bytes);
}

function readText(file, decode) {
  try {
    return decode(fs.readFileSync(file));
  } catch (err) {
    return null;
  }
}

// --------------------------------------------------------------- matching

// Converts UTF-16 offsets into 1-based (line, column) positions counted in code points.
function position(text, offset) {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return { line, col: [...text.slice(lineStart, offset)].length + 1 };
}

function* spans(rule, text) {
  if (rule.regex) {
    for (const found of text.matchAll(rule.regex)) yield [found.index, found.index + found[0].length];
    return;
  }
  for (let start = text.indexOf(rule.pattern); start !== -1; start = text.indexOf(rule.pattern, start + rule.pattern.length)) {
    yield [start, start + rule.pattern.length];
  }
}

function searchFile(rules, file, text) {
  const matches = [];
  for (const rule of rules.filter((r) => r.languages.includes(file.language))) {
    for (const [start, end] of spans(rule, text)) {
      matches.push({
        rule_id: rule.id,
        file: file.rel,
        language: file.language,
        start: position(text, start),
        end: position(text, end),
        match: text.slice(start, end),
      });
    }
  }
  return matches;
}

function compare(a, b) {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

function compareMatches(a, b) {
  return compare(a.file, b.file)
    || a.start.line - b.start.line
    || a.start.col - b.start.col
    || compare(a.rule_id, b.rule_id);
}

function search(root, rules, decode) {
  const matches = [];
  for (const file of sourceFiles(root)) {
    const text = readText(file.full, decode);
    if (text !== null) matches.push(...searchFile(rules, file, text));
  }
  return matches.sort(compareMatches);
}

// -------------------------------------------------------------------- cli

function main(argv) {
  try {
    const args = parseArgs(argv);
    require_(fs.existsSync(args.root) && fs.statSync(args.root).isDirectory(), `root directory not found: ${args.root}`);
    const decode = makeDecoder(args.encoding);
    const matches = search(args.root, loadRules(args.rules), decode);
    process.stdout.write(matches.map((m) => `${JSON.stringify(m)}\n`).join(''));
    return 0;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
