#!/usr/bin/env node
// Search Python, JavaScript and C++ files with exact, regex and token pattern rules; print JSON Lines.
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
const KINDS = ['exact', 'regex', 'pattern'];
const REGEX_FLAGS = { i: 'i', m: 'm', s: 's' };

// A pattern is literal text, `$$` (a literal `$`) and metavariables `$NAME` / `$NAME?`.
const PATTERN_PIECE = /\$\$|\$([\p{L}\p{N}_]+)(\?)?|\$/gu;

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

// ------------------------------------------------------------------ tokens

const OPERATORS = ['>>>=', '<<=', '>>=', '**=', '//=', '...', '->*', '::', '->', '==', '!=', '<=', '>=', '+=', '-=',
  '*=', '/=', '%=', '&=', '|=', '^=', '//', '**', '&&', '||', '??', '?.', '=>', '++', '--', '<<', '>>'];
const quoted = (q) => `${q}(?:\\\\[\\s\\S]?|[^${q}\\\\])*${q}?`;
const tripleQuoted = (q) => `${q}${q}${q}[\\s\\S]*?(?:${q}${q}${q}|$)`;
const lineComment = (start) => `${start}[^\\r\\n]*`;
const C_COMMENTS = [lineComment('//'), '/\\*[\\s\\S]*?(?:\\*/|$)'];
// Language -> [comment forms, string literal forms].
const LEXICON = {
  python: [[lineComment('#')], [tripleQuoted("'"), tripleQuoted('"'), quoted("'"), quoted('"')]],
  javascript: [C_COMMENTS, [quoted("'"), quoted('"'), quoted('`')]],
  cpp: [C_COMMENTS, [quoted("'"), quoted('"')]],
};
const WORD_CHAR = '[\\p{L}\\p{N}_]';
const NUMBER = `0[xX]${WORD_CHAR}*|(?=\\.?\\p{Nd})(?:${WORD_CHAR}|[.'])+`;
const WORD = `[\\p{L}\\p{Nl}\\p{No}_$](?:${WORD_CHAR}|\\$)*`;
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function lexer(language) {
  const [comments, strings] = LEXICON[language];
  return {
    skip: new RegExp(`(?:[ \\t\\v\\f\\r\\n]+|${comments.join('|')})*`, 'uy'),
    token: new RegExp([...strings, NUMBER, WORD, ...OPERATORS.map(escapeRegex), '[\\s\\S]'].join('|'), 'uy'),
  };
}

const LEXERS = Object.fromEntries(ALL_LANGUAGES.map((language) => [language, lexer(language)]));

// Tokens of `text` as {text, start, end} (UTF-16 offsets); whitespace and comments only separate them.
function tokenize(text, language) {
  const { skip, token } = LEXERS[language];
  const tokens = [];
  for (let position = 0; ;) {
    skip.lastIndex = position;
    token.lastIndex = position + skip.exec(text)[0].length;
    const found = token.exec(text);
    if (!found) return tokens;
    tokens.push({ text: found[0], start: found.index, end: token.lastIndex });
    position = token.lastIndex;
  }
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
  const elements = kind === 'pattern' ? compilePattern(id, pattern) : null;
  return { id, kind, pattern, languages, regex, elements };
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

// The pattern's elements in each language (literal text is split into that language's tokens).
function compilePattern(id, pattern) {
  require_([...pattern.matchAll(PATTERN_PIECE)].every((found) => found[0] !== '$'),
    `rule ${id}: a '$' must start $NAME or be written $$`);
  return Object.fromEntries(ALL_LANGUAGES.map((language) => [language, patternElements(pattern, language)]));
}

function patternElements(pattern, language) {
  const elements = [];
  let literal = '';
  let position = 0;
  const flush = () => {
    elements.push(...tokenize(literal, language).map((token) => ({ literal: token.text })));
    literal = '';
  };
  for (const found of pattern.matchAll(PATTERN_PIECE)) {
    literal += pattern.slice(position, found.index);
    position = found.index + found[0].length;
    if (found[1] === undefined) {
      literal += '$';
    } else {
      flush();
      elements.push({ name: `$${found[1]}`, optional: found[2] !== undefined });
    }
  }
  literal += pattern.slice(position);
  flush();
  return elements;
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

const CLOSING = { ')': '(', ']': '[', '}': '{' };
const OPENING = new Set(Object.values(CLOSING));
const SEPARATORS = new Set([';', ',']);

// End indices (exclusive), shortest first, of the runs from `start` a metavariable may bind:
// no `;` or `,` token, brackets balanced.
function* captureEnds(tokens, start) {
  const open = [];
  for (let end = start; end < tokens.length; end += 1) {
    const { text } = tokens[end];
    if (SEPARATORS.has(text)) return;
    if (OPENING.has(text)) open.push(text);
    else if (Object.hasOwn(CLOSING, text) && (open.length === 0 || open.pop() !== CLOSING[text])) return;
    if (open.length === 0) yield end + 1;
  }
}

const sameTexts = (tokens, at, from, to) => tokens.slice(from, to).every((token, i) => tokens[at + i] && tokens[at + i].text === token.text);

// Matches elements `step`... from token `at`: [end token, {metavariable: [[start, end], ...]}] or null.
function extend(elements, tokens, at, step, bound) {
  if (step === elements.length) return [at, bound];
  const element = elements[step];
  if (element.name === undefined) {
    const same = at < tokens.length && tokens[at].text === element.literal;
    return same ? extend(elements, tokens, at + 1, step + 1, bound) : null;
  }
  if (Object.hasOwn(bound, element.name)) {
    const [from, to] = bound[element.name][0];
    if (!sameTexts(tokens, at, from, to)) return null;
    const end = at + to - from;
    return extend(elements, tokens, end, step + 1, { ...bound, [element.name]: [...bound[element.name], [at, end]] });
  }
  const absent = element.optional ? extend(elements, tokens, at, step + 1, bound) : null;
  if (absent) return absent;
  for (const end of captureEnds(tokens, at)) {
    const found = extend(elements, tokens, end, step + 1, { ...bound, [element.name]: [[at, end]] });
    if (found) return found;
  }
  return null;
}

// [start token, end token, bindings] of each match, left to right, never overlapping.
function* tokenMatches(elements, tokens) {
  for (let at = 0; at < tokens.length;) {
    const found = extend(elements, tokens, at, 0, {});
    if (found && found[0] > at) {
      yield [at, ...found];
      [at] = found;
    } else {
      at += 1;
    }
  }
}

function record(rule, file, text, start, end) {
  return {
    rule_id: rule.id,
    file: file.rel,
    language: file.language,
    start: position(text, start),
    end: position(text, end),
    match: text.slice(start, end),
  };
}

function patternMatches(rule, file, text, tokens) {
  const matches = [];
  for (const [start, end, bound] of tokenMatches(rule.elements[file.language], tokens)) {
    const match = record(rule, file, text, tokens[start].start, tokens[end - 1].end);
    const names = Object.keys(bound).sort();
    if (names.length > 0) match.captures = Object.fromEntries(names.map((name) => [name, capture(text, tokens, bound[name])]));
    matches.push(match);
  }
  return matches;
}

function capture(text, tokens, runs) {
  const ranges = runs.map(([from, to]) => ({
    start: position(text, tokens[from].start),
    end: position(text, tokens[to - 1].end),
  }));
  const [from, to] = runs[0];
  return { text: text.slice(tokens[from].start, tokens[to - 1].end), ranges };
}

function searchFile(rules, file, text) {
  const matches = [];
  const tokens = tokenize(text, file.language);
  for (const rule of rules.filter((r) => r.languages.includes(file.language))) {
    if (rule.kind === 'pattern') {
      matches.push(...patternMatches(rule, file, text, tokens));
    } else {
      for (const [start, end] of spans(rule, text)) matches.push(record(rule, file, text, start, end));
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
    || a.end.line - b.end.line
    || a.end.col - b.end.col
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
