'use strict';
// The blueprint resource: validation, revision history and its five commands.
//
// A blueprint is kept as its list of revisions, each the normalised document and how it was made
// (`action`, `changed`, and `restored_from` for restores); the last one is current.

const { isDeepStrictEqual } = require('util');
const { checkName, checkQuantity, isObject, lookup, optionalRevision, readDocument } = require('./documents');
const { conflict, invalid, notFound } = require('./errors');

const KIND = 'blueprints';

function checkMaterial(material, where) {
  if (!isObject(material)) throw invalid(`${where} must be an object`);
  return {
    item: checkName(lookup(material, 'item'), `${where}.item`),
    quantity: checkQuantity(lookup(material, 'quantity'), `${where}.quantity`),
  };
}

function checkMaterials(materials) {
  if (!Array.isArray(materials)) throw invalid('materials must be an array');
  const checked = materials.map((material, index) => checkMaterial(material, `materials[${index}]`));
  const twice = checked.find(({ item }, index) => checked.findIndex((other) => other.item === item) < index);
  if (twice) throw invalid(`item ${twice.item} appears twice in materials`);
  return checked;
}

function checkTags(tags) {
  if (!Array.isArray(tags)) throw invalid('tags must be an array');
  tags.forEach((tag, index) => checkName(tag, `tags[${index}]`));
  return [...new Set(tags)].sort();
}

/**
 * The stored form of a blueprint `document` whose name must be `name`:
 * `{name, description, materials: [{item, quantity}], tags}`.
 * @throws validation_error for a document breaking a rule
 */
function normalise(document, name) {
  if (!Object.hasOwn(document, 'materials')) throw invalid('materials is required');
  const description = lookup(document, 'description', '');
  if (typeof description !== 'string') throw invalid('description must be a string');
  return {
    name, description, materials: checkMaterials(document.materials), tags: checkTags(lookup(document, 'tags', [])),
  };
}

/**
 * The stored history of blueprint `name`: `{revisions: [{document, action, changed, ...}]}`.
 * @throws validation_error unless `name` is a name; not_found when there is no such blueprint
 */
function record(store, name) {
  checkName(name, 'blueprint name');
  const history = lookup(store.collection(KIND), name);
  if (history === undefined) throw notFound('blueprint', name);
  return history;
}

/** Revision `number` (default: the current one) of `history` as printed. */
function view(history, number = history.revisions.length) {
  return { ...history.revisions[number - 1].document, revision: number };
}

/** Fail with a conflict unless `expected` (undefined: anything) is the current revision of `history`. */
function guard(history, expected) {
  const current = history.revisions.length;
  if (expected !== undefined && expected !== current) {
    throw conflict(`${history.revisions[current - 1].document.name} is at revision ${current}, not ${expected}`,
      { current_revision: current });
  }
}

/**
 * Append a revision holding `document` (made by `action`, with the `extra` fields) unless it equals the current
 * one; returns the current revision as printed.
 */
function commit(history, document, action, extra = {}) {
  const previous = history.revisions.at(-1)?.document;
  if (!isDeepStrictEqual(document, previous)) {
    const changed = previous === undefined ? [] : Object.keys(document)
      .filter((key) => key !== 'name' && !isDeepStrictEqual(document[key], previous[key])).sort();
    history.revisions.push({ document, action, changed, ...extra });
  }
  return view(history);
}

function create(store, args, options) {
  const document = readDocument(options);
  const blueprint = normalise(document, checkName(lookup(document, 'name'), 'name'));
  const blueprints = store.collection(KIND);
  if (Object.hasOwn(blueprints, blueprint.name)) throw conflict(`a blueprint named ${blueprint.name} exists`);
  blueprints[blueprint.name] = { revisions: [] };
  return commit(blueprints[blueprint.name], blueprint, 'create');
}

function get(store, args) {
  return view(record(store, args[0]));
}

function listAll(store, args, options) {
  if (options.tag !== undefined) checkName(options.tag, '--tag');
  const blueprints = store.collection(KIND);
  return {
    blueprints: Object.keys(blueprints).sort().map((name) => view(blueprints[name]))
      .filter((blueprint) => options.tag === undefined || blueprint.tags.includes(options.tag)),
  };
}

function update(store, args, options) {
  const [name] = args;
  const expected = optionalRevision(options);
  const history = record(store, name);
  const document = readDocument(options);
  if (lookup(document, 'name', name) !== name) {
    throw invalid(`the document's name must be ${name}: blueprints cannot be renamed`);
  }
  const blueprint = normalise(document, name);
  guard(history, expected);
  return commit(history, blueprint, 'update');
}

function remove(store, args, options) {
  const expected = optionalRevision(options);
  guard(record(store, args[0]), expected);
  delete store.collection(KIND)[args[0]];
  return { deleted: args[0] };
}

/** The commands of the `blueprint` resource by name. */
const COMMANDS = { create, get, list: listAll, update, delete: remove };

module.exports = { COMMANDS, record, view, guard, commit };
