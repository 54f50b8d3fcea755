'use strict';
// The blueprint resource: validation, revision history and its five commands.
//
// A blueprint is kept as its list of revisions, each the normalised document and how it was made
// (`action`, `changed`, and `restored_from` for restores); the last one is current.

const { isDeepStrictEqual } = require('util');
const {
  checkName, checkQuantity, checkString, findNamed, isObject, lookup, optionalRevision, readNamed, repeated,
} = require('./documents');
const { conflict, invalid } = require('./errors');
const { findItem } = require('./items');
const { reservedOf } = require('./ledger');
const { KIND: MODULES, checkRefs } = require('./module-refs');
const { documentUnit } = require('./units');

const KIND = 'blueprints';

/** The unit of `material` (default `each`), which must exist and have the dimension of its catalogue `item`. */
function checkUnit(store, material, item, where) {
  const unit = documentUnit(store, lookup(material, 'unit', 'each'), `${where}.unit`);
  const catalogued = findItem(store, item);
  if (catalogued !== undefined && catalogued.dimension !== unit.dimension) {
    throw invalid(`${where}.unit ${unit.name} is ${unit.dimension}, but item ${item} is ${catalogued.dimension}`);
  }
  return unit.name;
}

function checkMaterial(store, material, where) {
  if (!isObject(material)) throw invalid(`${where} must be an object`);
  const item = checkName(lookup(material, 'item'), `${where}.item`);
  return {
    item, quantity: checkQuantity(lookup(material, 'quantity'), `${where}.quantity`),
    unit: checkUnit(store, material, item, where),
  };
}

function checkMaterials(store, materials) {
  if (!Array.isArray(materials)) throw invalid('materials must be an array');
  const checked = materials.map((material, index) => checkMaterial(store, material, `materials[${index}]`));
  const twice = repeated(checked.map((material) => material.item));
  if (twice !== undefined) throw invalid(`item ${twice} appears twice in materials`);
  return checked;
}

function checkTags(tags) {
  if (!Array.isArray(tags)) throw invalid('tags must be an array');
  tags.forEach((tag, index) => checkName(tag, `tags[${index}]`));
  return [...new Set(tags)].sort();
}

/**
 * The stored form of what blueprints and modules share, of a `document` whose name is `name`:
 * `{name, description, materials: [{item, quantity, unit}], modules: [{module, quantity}]}`.
 * @param {string} [owner] the name of the module written (undefined for a blueprint), which must not contain itself
 * @throws validation_error for a document breaking a rule
 */
function assembly(store, document, name, owner = undefined) {
  if (!Object.hasOwn(document, 'materials')) throw invalid('materials is required');
  return {
    name,
    description: checkString(lookup(document, 'description', ''), 'description'),
    materials: checkMaterials(store, document.materials),
    modules: checkRefs(store, lookup(document, 'modules', []), owner),
  };
}

/** The stored form of a blueprint `document` whose name is `name`: an assembly with its `tags`. */
function normalise(store, document, name) {
  return { ...assembly(store, document, name), tags: checkTags(lookup(document, 'tags', [])) };
}

/**
 * The stored history of blueprint `name`: `{revisions: [{document, action, changed, ...}]}`.
 * @throws validation_error unless `name` is a name; not_found when there is no such blueprint
 */
function record(store, name) {
  return findNamed(store, 'blueprint', name, () => lookup(store.collection(KIND), name));
}

/**
 * Every document that has materials and module references, as `[its label, the document]`: each revision of each
 * blueprint (`blueprint NAME`) and each module (`module NAME`).
 */
function allDocuments(store) {
  return [
    ...Object.entries(store.collection(KIND))
      .flatMap(([name, history]) => history.revisions.map((revision) => [`blueprint ${name}`, revision.document])),
    ...Object.entries(store.collection(MODULES)).map(([name, module]) => [`module ${name}`, module]),
  ];
}

/** The labels, sorted and each once, of the documents of `allDocuments` for which `test(document)` holds. */
function labelsWhere(store, test) {
  return [...new Set(allDocuments(store).filter(([, document]) => test(document)).map(([label]) => label))].sort();
}

/** The number of the released revision of `history`, or null when none is released. */
function released(history) {
  const index = history.revisions.findIndex((revision) => revision.state === 'released');
  return index < 0 ? null : index + 1;
}

/** Revision `number` (default: the current one) of `history` as printed. */
function view(history, number = history.revisions.length) {
  const revision = history.revisions[number - 1];
  return { ...revision.document, revision: number, state: revision.state, released_revision: released(history) };
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
    history.revisions.push({ document, action, changed, ...extra, state: 'draft', approvals: [] });
  }
  return view(history);
}

function create(store, args, options) {
  const blueprint = normalise(store, ...readNamed(options));
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
  const expected = optionalRevision(options);
  const history = record(store, args[0]);
  const blueprint = normalise(store, ...readNamed(options, args[0]));
  guard(history, expected);
  return commit(history, blueprint, 'update');
}

function remove(store, args, options) {
  const expected = optionalRevision(options);
  guard(record(store, args[0]), expected);
  if (reservedOf(store, args[0]).length) throw conflict(`${args[0]} has reserved allocations`);
  delete store.collection(KIND)[args[0]];
  return { deleted: args[0] };
}

/** The commands of the `blueprint` resource by name. */
const COMMANDS = { create, get, list: listAll, update, delete: remove };

module.exports = { COMMANDS, assembly, record, labelsWhere, released, view, guard, commit };
