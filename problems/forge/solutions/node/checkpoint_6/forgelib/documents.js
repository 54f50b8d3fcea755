'use strict';
// Checks shared by every document: names, numbers, JSON input.

const fs = require('fs');
const { invalid, notFound, usage } = require('./errors');

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

/** `value`, which must be a JSON number greater than zero. */
function checkQuantity(value, what) {
  if (!isNumber(value) || value <= 0) throw invalid(`${what} must be a number greater than zero`);
  return value;
}

/** `value`, which must be a JSON number without a fractional part, at least 1. */
function checkWhole(value, what) {
  if (!Number.isInteger(value) || value < 1) throw invalid(`${what} must be a whole number of at least 1`);
  return value;
}

/** The first of `values` that an earlier one equals, or undefined. */
const repeated = (values) => values.find((value, index) => values.indexOf(value) < index);

/** `value`, which must be a string. */
function checkString(value, what) {
  if (typeof value !== 'string') throw invalid(`${what} must be a string`);
  return value;
}

/** The UTF-8 text of the file `option` names; a usage_error when it cannot be read. */
function readFile(file, option) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(fs.readFileSync(file));
  } catch (error) {
    throw usage(`cannot read ${option} ${file}: ${error.message}`);
  }
}

/** The JSON value `text` holds; a validation_error naming `what` when it is not valid JSON. */
function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalid(`${what} is not valid JSON: ${error.message}`);
  }
}

/** The JSON object `text` holds; a validation_error naming `what` otherwise. */
function parseObject(text, what) {
  const document = parseJson(text, what);
  if (!isObject(document)) throw invalid(`${what} must be a JSON object`);
  return document;
}

/**
 * The JSON document of `--file` or standard input.
 * @returns {object} the parsed document
 * @throws usage_error when the file cannot be read; validation_error unless it is a JSON object
 */
function readDocument(options) {
  const text = options.file === undefined ? fs.readFileSync(0, 'utf8') : readFile(options.file, '--file');
  return parseObject(text, 'the document');
}

/**
 * The document of a create (`name` undefined: the document's `name` must be a name) or of an update of `name` (the
 * document's `name` may be left out, and must otherwise be `name`).
 * @returns {[object, string]} the document and its name
 */
function readNamed(options, name = undefined) {
  const document = readDocument(options);
  if (name === undefined) return [document, checkName(lookup(document, 'name'), 'name')];
  if (lookup(document, 'name', name) !== name) {
    throw invalid(`the document's name must be ${name}: it cannot be renamed`);
  }
  return [document, name];
}

module.exports = {
  isName, isObject, lookup, checkName, findNamed, wholeNumber, optionalRevision, decimalNumber, checkQuantity,
  checkWhole, repeated, checkString, readFile, parseObject, readNamed,
};
