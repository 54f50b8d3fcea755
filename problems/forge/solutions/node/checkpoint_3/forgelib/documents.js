'use strict';
// Checks shared by every document: names, numbers, JSON input.

const fs = require('fs');
const { invalid, notFound, usage } = require('./errors');

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const REVISION = /^[1-9][0-9]*$/;
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

/** The revision number `text` writes (a positive whole number in decimal digits, no leading zero). */
function revisionNumber(text, what) {
  if (!REVISION.test(text)) throw invalid(`${what} must be a revision number (1, 2, ...), got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The `--revision` the caller last saw, or undefined. */
function optionalRevision(options) {
  return options.revision === undefined ? undefined : revisionNumber(options.revision, '--revision');
}

/** The number `text` writes as a decimal (an optional `-`, digits, optionally `.` and digits). */
function decimalNumber(text, what) {
  if (!DECIMAL.test(text)) throw invalid(`${what} must be a decimal number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `value`, which must be a JSON number greater than zero. */
function checkQuantity(value, what) {
  if (!isNumber(value) || value <= 0) throw invalid(`${what} must be a number greater than zero`);
  return value;
}

/** `value`, which must be a string. */
function checkString(value, what) {
  if (typeof value !== 'string') throw invalid(`${what} must be a string`);
  return value;
}

/** The UTF-8 text of the file `--file` names; a usage_error when it cannot be read. */
function readFile(file) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(fs.readFileSync(file));
  } catch (error) {
    throw usage(`cannot read --file ${file}: ${error.message}`);
  }
}

/** The JSON value `text` holds; a validation_error when it is not valid JSON. */
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalid(`the document is not valid JSON: ${error.message}`);
  }
}

/**
 * The JSON document of `--file` or standard input.
 * @returns {object} the parsed document
 * @throws usage_error when the file cannot be read; validation_error unless it is a JSON object
 */
function readDocument(options) {
  const document = parseJson(options.file === undefined ? fs.readFileSync(0, 'utf8') : readFile(options.file));
  if (!isObject(document)) throw invalid('the document must be a JSON object');
  return document;
}

module.exports = {
  isObject, lookup, checkName, findNamed, revisionNumber, optionalRevision, decimalNumber, checkQuantity,
  checkString, readDocument,
};
