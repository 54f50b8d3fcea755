'use strict';
// JSON inputs as contracts: every problem of an input collected with its JSON path, and the contract version of
// `--config` (2: members an input may not have are problems too).

const fs = require('fs');
const { isName, isNumber, isObject, lookup, parseObject, readFile } = require('./documents');
const { ForgeError } = require('./errors');

/** What a check returns for a value with a problem (already reported): later checks skip it. */
const INVALID = Symbol('invalid');

/**
 * The problems of one JSON input, by path (`$`, `$.member`, `$.list[0]`); `strict` (contract 2) also reports the
 * members that the input's tables do not list. `details` are extra members of the error's details.
 */
class Check {
  constructor(strict = false) {
    this.strict = strict;
    this.problems = new Map();
    this.details = {};
  }

  /** Report a problem at `path` (the first one reported there is kept); returns INVALID. */
  fail(path, message) {
    if (!this.problems.has(path)) this.problems.set(path, message);
    return INVALID;
  }

  /** `value` when `valid(value)`; otherwise a problem at `path` (nothing new for INVALID). */
  ensure(value, path, valid, message) {
    if (value === INVALID) return INVALID;
    return valid(value) ? value : this.fail(path, message);
  }

  /** `value`, which must be an object; under contract 2 only with the `known` members. */
  members(value, path, known) {
    if (this.ensure(value, path, isObject, 'must be an object') === INVALID) return INVALID;
    const unknown = this.strict ? Object.keys(value).filter((member) => !known.includes(member)) : [];
    for (const member of unknown) this.fail(`${path}.${member}`, 'is not a member this input may have');
    return value;
  }

  /** `value[member]` of the object `value` at `path`; a problem when it is missing. */
  required(value, member, path) {
    if (value === INVALID) return INVALID;
    return Object.hasOwn(value, member) ? value[member] : this.fail(`${path}.${member}`, 'is required');
  }

  array(value, path) {
    return this.ensure(value, path, Array.isArray, 'must be an array');
  }

  string(value, path) {
    return this.ensure(value, path, (text) => typeof text === 'string', 'must be a string');
  }

  name(value, path) {
    return this.ensure(value, path, isName, 'must be a name (lowercase letters, digits and hyphens)');
  }

  quantity(value, path) {
    return this.ensure(value, path, (number) => isNumber(number) && number > 0, 'must be a number greater than zero');
  }

  whole(value, path) {
    return this.ensure(value, path, (number) => Number.isInteger(number) && number >= 1,
      'must be a whole number of at least 1');
  }

  /** Report the `key` of every row of `rows` (an array at `path`) that an earlier row has. */
  unique(rows, key, path) {
    const seen = new Set();
    rows.forEach((row, index) => {
      const value = row === INVALID ? INVALID : row[key];
      if (value !== INVALID && seen.has(value)) this.fail(`${path}[${index}].${key}`, `${value} appears twice`);
      seen.add(value);
    });
  }

  /** Raise the validation_error listing every problem found (in `details.problems`), if any; `what` names the input. */
  done(what) {
    if (this.problems.size) {
      const problems = [...this.problems].map(([path, message]) => ({ path, message }));
      throw new ForgeError('validation_error', `${what} has ${problems.length} problem(s)`,
        { problems, ...this.details });
    }
  }
}

/**
 * What `normalise(check, object)` makes of the JSON object `text` holds (`what` names it), after raising the
 * validation_error of every problem found; `strict`: under contract 2.
 */
function checked(text, what, strict, normalise) {
  const check = new Check(strict);
  const value = normalise(check, parseObject(text, what));
  check.done(what);
  return value;
}

/** What `normalise(check, document)` makes of the JSON document of `--file` or standard input (`what` names it). */
function readChecked(options, what, normalise) {
  const text = options.file === undefined ? fs.readFileSync(0, 'utf8') : readFile(options.file, '--file');
  return checked(text, what, options.strict, normalise);
}

/** The contract version of the configuration file `config`; its problems are reported in `check`. */
function contractOf(check, config) {
  check.members(config, '$', ['contract']);
  return check.ensure(lookup(config, 'contract', 1), '$.contract', (value) => [1, 2].includes(value), 'must be 1 or 2');
}

/**
 * The contract version `--config` selects (1 without it).
 * @throws usage_error when the file cannot be read; validation_error (with its problems) when it is not a valid one
 */
function loadContract(options) {
  if (options.config === undefined) return 1;
  return checked(readFile(options.config, '--config'), 'the configuration file', true, contractOf);
}

module.exports = { INVALID, Check, checked, readChecked, loadContract };
