'use strict';
// Checks shared by every document: names, numbers, JSON input.

const fs = require('fs');
const { ForgeError, invalid, notFound, usage } = require('./errors');

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const WHOLE = /^[1-9][0-9]*$/;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

const isName = (value) => typeof value === 'string' && NAME.test(value);
const isNumber = (value) => typeof value === 'number';
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `object[key]` when `object` has that member of its own (not inherited), else `fallback`. */
function lookup(object, key, fallback = undefined) {
  return Object.hasOwn(object, key) ? object[key] : fallback;
}

/** `value`, which must be a name; `what` says which value it is in the error. */
function checkName(value, what) {
  if (!isName(value)) {
    throw invalid(`${what} must be a name (lowercase letters, digits and hyphens), got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * What `finder(store, name)` finds (undefined: nothing) of `kind`.
 * @throws validation_error unless `name` is a name; not_found when nothing is found
 */
function findNamed(store, kind, name, finder) {
  checkName(name, `${kind} name`);
  const found = finder(store, name);
  if (found === undefined) throw notFound(kind, name);
  return found;
}

/** The whole number of at least 1 that `text` writes in decimal digits (a revision number, a count). */
function wholeNumber(text, what) {
  if (!WHOLE.test(text)) {
    throw invalid(`${what} must be a whole number of at least 1 (1, 2, ...), got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** The `--revision` the caller last saw, or undefined. */
function optionalRevision(options) {
  return options.revision === undefined ? undefined : wholeNumber(options.revision, '--revision');
}

/** The number `text` writes as a decimal (an optional `-`, digits, optionally `.` and digits). */
function decimalNumber(text, what) {
  if (!DECIMAL.test(text)) throw invalid(`${what} must be a decimal number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The UTF-8 text of the file `option` names; a usage_error when it cannot be read. */
function readFile(file, option) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(fs.readFileSync(file));
  } catch (error) {
    throw usage(`cannot read ${option} ${file}: ${error.message}`);
  }
}

/** A validation_error of a JSON input as a whole: `message`, and the single problem `$` in its details. */
const wholeProblem = (message, problem) => new ForgeError('validation_error', message,
  { problems: [{ path: '$', message: problem }] });

/** The JSON value `text` holds; a validation_error naming `what` when it is not valid JSON. */
function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw wholeProblem(`${what} is not valid JSON`, `not valid JSON: ${error.message}`);
  }
}

/** The JSON object `text` holds; a validation_error naming `what` otherwise. */
function parseObject(text, what) {
  const document = parseJson(text, what);
  if (!isObject(document)) throw wholeProblem(`${what} is not a JSON object`, 'must be a JSON object');
  return document;
}

module.exports = {
  isName, isNumber, isObject, lookup, checkName, findNamed, wholeNumber, optionalRevision, decimalNumber, readFile,
  parseObject,
};
