#!/usr/bin/env node
// Search Python, JavaScript, C++, Rust, Java, Go and Haskell files with exact, regex, token pattern and syntax selector rules, and
// preview or apply the fixes of rules that have one; print JSON Lines.
'use strict';

const fs = require('fs');
const path = require('path');
const Parser = require('tree-sitter');

const GRAMMARS = {
  python: require('tree-sitter-python'),
  javascript: require('tree-sitter-javascript'),
  cpp: require('tree-sitter-cpp'),
  rust: require('tree-sitter-rust'),
  java: require('tree-sitter-java'),
  go: require('tree-sitter-go'),
  haskell: require('tree-sitter-haskell'),
};
// Selector -> language -> node entries: `kind`, `kind<parent`, `kind^ancestor`, `kind:first-word` (`*` in a
// kind matches any characters), or `-kind` for a kind never matched.
const SELECTORS = JSON.parse(fs.readFileSync(path.join(__dirname, 'selectors.json'), 'utf8'));

const LANGUAGE_EXTENSIONS = {
  python: ['.py'],
  javascript: ['.js', '.mjs', '.cjs'],
  cpp: ['.cc', '.cpp', '.cxx', '.hh', '.hpp', '.hxx'],
  rust: ['.rs'],
  java: ['.java'],
  go: ['.go'],
  haskell: ['.hs', '.lhs'],
};
const EXTENSIONS = Object.fromEntries(
  Object.entries(LANGUAGE_EXTENSIONS).flatMap(([language, exts]) => exts.map((ext) => [ext, language])),
);
const ALL_LANGUAGES = Object.keys(LANGUAGE_EXTENSIONS);
const DEFAULT_LANGUAGES = ALL_LANGUAGES;
const KINDS = ['exact', 'regex', 'pattern', 'selector'];
const REGEX_FLAGS = { i: 'i', m: 'm', s: 's' };

// A pattern is literal text, `$$` (a literal `$`) and metavariables `$NAME` / `$NAME?`.
const PATTERN_PIECE = /\$\$|\$([\p{L}\p{N}_]+)(\?)?|\$/gu;
// A fix template is literal text, `$$` (a literal `$`) and placeholders `$NAME`.
const TEMPLATE_PIECE = /\$\$|\$([\p{L}\p{N}_]+)|\$/gu;

class UsageError extends Error {}

function require_(condition, message) {
  if (!condition) throw new UsageError(message);
}

// ------------------------------------------------------------------ args

const FLAGS = { '--dry-run': 'dryRun', '--apply-fixes': 'applyFixes' };

function parseArgs(argv) {
  const args = { root: null, rules: null, encoding: 'utf-8', dryRun: false, applyFixes: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (Object.hasOwn(FLAGS, arg)) {
      args[FLAGS[arg]] = true;
    } else if (arg === '--rules' || arg === '--encoding') {
      require_(i + 1 < argv.length, `${arg} needs a value`);
      args[arg.slice(2)] = argv[i + 1];
      i += 1;
    } else {
      require_(args.root === null && !arg.startsWith('--'), `unexpected argument: ${arg}`);
      args.root = arg;
    }
  }
  require_(args.root !== null,
    'usage: code_search <root_dir> --rules <rules_file> [--encoding <name>] [--dry-run | --apply-fixes]');
  require_(args.rules !== null, '--rules is required');
  require_(!(args.dryRun && args.applyFixes), '--dry-run and --apply-fixes exclude each other');
  return args;
}

// ------------------------------------------------------------------ tokens

const OPERATORS = ['>>>=', '<<=', '>>=', '**=', '//=', '...', '->*', '::', '->', '==', '!=', '<=', '>=', '+=', '-=',
  '*=', '/=', '%=', '&=', '|=', '^=', '//', '**', '&&', '||', '??', '?.', '=>', '++', '--', '<<', '>>'];
const quoted = (q) => `${q}(?:\\\\[\\s\\S]?|[^${q}\\\\])*${q}?`;
const tripleQuoted = (q) => `${q}${q}${q}[\\s\\S]*?(?:${q}${q}${q}|$)`;
const lineComment = (start) => `${start}[^\\r\\n]*`;
const blockComment = (start, end) => `${start}[\\s\\S]*?(?:${end}|$)`;
const C_COMMENTS = [lineComment('//'), blockComment('/\\*', '\\*/')];
const C_STRINGS = [quoted("'"), quoted('"')];
// Language -> [comment forms, string literal forms].
const LEXICON = {
  python: [[lineComment('#')], [tripleQuoted("'"), tripleQuoted('"'), ...C_STRINGS]],
  javascript: [C_COMMENTS, [...C_STRINGS, quoted('`')]],
  cpp: [C_COMMENTS, C_STRINGS],
  rust: [C_COMMENTS, C_STRINGS],
  java: [C_COMMENTS, C_STRINGS],
  go: [C_COMMENTS, C_STRINGS],
  haskell: [[lineComment('--'), blockComment('\\{-', '-\\}')], C_STRINGS],
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
  const { id, kind } = entry;
  require_(isNonEmptyString(id), 'rule id must be a non-empty string');
  require_(KINDS.includes(kind), `rule ${id}: unknown kind ${JSON.stringify(kind)}`);
  const [field, other] = kind === 'selector' ? ['selector', 'pattern'] : ['pattern', 'selector'];
  require_(!Object.hasOwn(entry, other), `rule ${id}: a ${kind} rule has no ${other} field`);
  const pattern = entry[field];
  require_(isNonEmptyString(pattern), `rule ${id}: ${field} must be a non-empty string`);
  const rule = { id, kind, pattern, languages: parseLanguages(id, entry.languages) };
  Object.assign(rule, COMPILERS[kind](rule, entry));
  rule.fix = parseFix(rule, entry.fix);
  return rule;
}

// Rule kind -> the compiled fields it adds to its rule.
const COMPILERS = {
  exact: () => ({}),
  regex: (rule, entry) => ({ regex: compileRegex(rule.id, rule.pattern, entry.regex_flags) }),
  pattern: (rule) => ({ elements: compilePattern(rule.id, rule.pattern) }),
  selector: (rule) => {
    require_(Object.hasOwn(SELECTORS, rule.pattern), `rule ${rule.id}: unknown selector ${JSON.stringify(rule.pattern)}`);
    return {};
  },
};

// The fix template, checked: `$$`, `$MATCH` and (pattern rules) the pattern's metavariables.
function parseFix(rule, fix) {
  if (fix === undefined || fix === null) return null;
  require_(typeof fix === 'object' && fix.kind === 'replace', `rule ${rule.id}: fix.kind must be 'replace'`);
  require_(typeof fix.template === 'string', `rule ${rule.id}: fix.template must be a string`);
  const metavariables = rule.kind === 'pattern' ? [...rule.pattern.matchAll(PATTERN_PIECE)].map((found) => found[1]) : [];
  const names = new Set(['MATCH', ...metavariables]);
  for (const found of fix.template.matchAll(TEMPLATE_PIECE)) {
    require_(found[0] === '$$' || names.has(found[1]), `rule ${rule.id}: fix template placeholder ${found[0]} names no capture`);
  }
  return fix.template;
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

const NODE_ENCODINGS = { latin1: 'latin1', iso88591: 'latin1', l1: 'latin1', utf8: 'utf8', utf16le: 'utf16le' };

// Decoding (strict) and encoding for the --encoding name.
function makeCodec(encoding) {
  const name = encoding.toLowerCase().replace(/[-_]/g, '');
  const buffers = NODE_ENCODINGS[name];
  const encode = (text) => {
    require_(buffers !== undefined, `cannot write files in ${encoding}`);
    return Buffer.from(text, buffers);
  };
  if (buffers === 'latin1') return { decode: (bytes) => bytes.toString('latin1'), encode };
  let decoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch (err) {
    throw new UsageError(`unknown encoding: ${encoding}`);
  }
  return { decode: (bytes) => decoder.decode(bytes), encode };
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
const TERMINATOR = ';';

// End indices (exclusive), shortest first, of the runs from `start` a metavariable may bind:
// not starting with `,`, no `;` token, brackets balanced.
function* captureEnds(tokens, start) {
  const open = [];
  if (start < tokens.length && tokens[start].text === ',') return;
  for (let end = start; end < tokens.length; end += 1) {
    const { text } = tokens[end];
    if (text === TERMINATOR) return;
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

// A match line; its UTF-16 offsets are kept out of the JSON.
function record(rule, file, text, start, end) {
  const match = {
    rule_id: rule.id,
    file: file.rel,
    language: file.language,
    start: position(text, start),
    end: position(text, end),
    match: text.slice(start, end),
  };
  return Object.defineProperty(match, 'offsets', { value: [start, end] });
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

// One entry of a selector's list for a language (see SELECTORS).
function nodeEntry(entry) {
  const [, kind, relation, other] = entry.match(/^(-?[\w*]+)(?:([<^:])(\w+))?$/);
  const glob = new RegExp(`^${kind.replace(/^-/, '').replace(/\*/g, '.*')}$`);
  return { excluded: kind.startsWith('-'), holds: (node) => glob.test(node.type) && RELATIONS[relation || ''](node, other) };
}

const RELATIONS = {
  '': () => true,
  '<': (node, other) => node.parent !== null && node.parent.type === other,
  '^': (node, other) => {
    for (let up = node.parent; up !== null; up = up.parent) if (up.type === other) return true;
    return false;
  },
  ':': (node, other) => node.childCount > 0 && node.children[0].text === other,
};

// Named nodes that some entry holds for and no `-kind` entry excludes, in source order; the nodes inside a
// selected node are not visited.
function* selected(root, entries) {
  const wanted = entries.filter((entry) => !entry.excluded);
  const excluded = entries.filter((entry) => entry.excluded);
  const pending = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node.isNamed && wanted.some((e) => e.holds(node)) && !excluded.some((e) => e.holds(node))) yield node;
    else pending.push(...[...node.children].reverse());
  }
}

function selectorMatches(rule, file, text, tree) {
  const entries = (SELECTORS[rule.pattern][file.language] || []).map(nodeEntry);
  return [...selected(tree(), entries)].map((node) => record(rule, file, text, node.startIndex, node.endIndex));
}

function textMatches(rule, file, text) {
  return [...spans(rule, text)].map(([start, end]) => record(rule, file, text, start, end));
}

// Rule kind -> the matches of a rule in one file.
const SEARCHES = {
  exact: (rule, file, text) => textMatches(rule, file, text),
  regex: (rule, file, text) => textMatches(rule, file, text),
  pattern: (rule, file, text, tokens) => patternMatches(rule, file, text, tokens),
  selector: (rule, file, text, tokens, tree) => selectorMatches(rule, file, text, tree),
};

function searchFile(rules, file, text) {
  const tokens = tokenize(text, file.language);
  let parsed = null;
  const tree = () => {
    if (parsed === null) {
      const parser = new Parser();
      parser.setLanguage(GRAMMARS[file.language]);
      parsed = parser.parse((offset) => text.slice(offset, offset + 4096)).rootNode;
    }
    return parsed;
  };
  return rules.filter((r) => r.languages.includes(file.language))
    .flatMap((rule) => SEARCHES[rule.kind](rule, file, text, tokens, tree));
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

// ------------------------------------------------------------------- fixes

// The template with `$$` -> `$`, `$MATCH` -> the match, `$NAME` -> the capture's text.
function render(template, match) {
  return template.replace(TEMPLATE_PIECE, (piece, name) => {
    if (piece === '$$') return '$';
    if (name === 'MATCH') return match.match;
    const captured = (match.captures || {})[piece];
    return captured ? captured.text : '';
  });
}

function fixLine(match, replacement, applied, skippedReason) {
  const { rule_id, file, language, start, end } = match;
  return { event: 'fix', rule_id, file, language, start, end, replacement, applied, skipped_reason: skippedReason };
}

// Match index -> its fix line, for matches of rules with a fix; with `apply`, the fixes are written.
function fixLines(matches, rules, apply, root, codec) {
  const templates = new Map(rules.filter((rule) => rule.fix !== null).map((rule) => [rule.id, rule.fix]));
  const lines = new Map();
  const byFile = new Map();
  matches.forEach((match, index) => {
    if (!templates.has(match.rule_id)) return;
    lines.set(index, fixLine(match, render(templates.get(match.rule_id), match), false, null));
    byFile.set(match.file, [...(byFile.get(match.file) || []), index]);
  });
  if (apply) for (const [rel, indices] of byFile) applyFixes(path.join(root, rel), matches, indices, lines, codec);
  return lines;
}

// Applies one file's fixes in output order, skipping each that starts before the end of the last applied one.
function applyFixes(file, matches, indices, lines, codec) {
  const text = codec.decode(fs.readFileSync(file));
  const pieces = [];
  let cursor = 0;
  for (const index of indices) {
    const [start, end] = matches[index].offsets;
    const line = lines.get(index);
    if (start < cursor) {
      line.skipped_reason = 'overlap';
    } else {
      pieces.push(text.slice(cursor, start), line.replacement);
      cursor = end;
      line.applied = true;
    }
  }
  fs.writeFileSync(file, codec.encode(pieces.join('') + text.slice(cursor)));
}

// -------------------------------------------------------------------- cli

function main(argv) {
  try {
    const args = parseArgs(argv);
    require_(fs.existsSync(args.root) && fs.statSync(args.root).isDirectory(), `root directory not found: ${args.root}`);
    const codec = makeCodec(args.encoding);
    const rules = loadRules(args.rules);
    const matches = search(args.root, rules, codec.decode);
    const fixes = args.dryRun || args.applyFixes ? fixLines(matches, rules, args.applyFixes, args.root, codec) : new Map();
    const lines = matches.flatMap((match, index) => (fixes.has(index) ? [match, fixes.get(index)] : [match]));
    process.stdout.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    return 0;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
