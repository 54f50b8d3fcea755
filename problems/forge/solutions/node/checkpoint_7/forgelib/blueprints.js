'use strict';
// The blueprint resource: validation, revision history and its five commands.
//
// A blueprint is kept as its list of revisions, each the normalised document and how it was made
// (`action`, `changed`, and `restored_from` for restores); the last one is current.

const { isDeepStrictEqual } = require('util');
const { INVALID, readChecked } = require('./contracts');
const { checkName, findNamed, lookup, optionalRevision } = require('./documents');
const { conflict } = require('./errors');
const { findItem } = require('./items');
const { reservedOf } = require('./ledger');
const { KIND: MODULES, checkRefs } = require('./module-refs');
const { checkedUnit } = require('./units');

const KIND = 'blueprints';
/** The members of the JSON inputs of materials and blueprints (contract 2 refuses others). */
const MATERIAL = ['item', 'quantity', 'unit'];
const BLUEPRINT = ['name', 'description', 'materials', 'modules', 'tags'];

/** The unit of `material` (default `each`), which must exist and have the dimension of its catalogue `item`. */
function checkUnit(store, check, material, item, path) {
  const unit = checkedUnit(store, check, lookup(material, 'unit', 'each'), path);
  const catalogued = [unit, item].includes(INVALID) ? undefined : findItem(store, item);
  if (catalogued !== undefined && catalogued.dimension !== unit.dimension) {
    return check.fail(path, `must be a unit of ${catalogued.dimension}, the dimension of item ${item}`);
  }
  return unit === INVALID ? INVALID : unit.name;
}

function checkMaterial(store, check, material, path) {
  if (check.members(material, path, MATERIAL) === INVALID) return INVALID;
  const item = check.name(check.required(material, 'item', path), `${path}.item`);
  return {
    item, quantity: check.quantity(check.required(material, 'quantity', path), `${path}.quantity`),
    unit: checkUnit(store, check, material, item, `${path}.unit`),
  };
}

function checkMaterials(store, check, materials, path = '$.materials') {
  if (check.array(materials, path) === INVALID) return INVALID;
  const rows = materials.map((material, index) => checkMaterial(store, check, material, `${path}[${index}]`));
  check.unique(rows, 'item', path);
  return rows;
}

function checkTags(check, tags) {
  if (check.array(tags, '$.tags') === INVALID) return INVALID;
  const names = tags.map((tag, index) => check.name(tag, `$.tags[${index}]`));
  return names.includes(INVALID) ? INVALID : [...new Set(names)].sort();
}

/**
 * The blueprint or module name of `document`: required when it is created (`name` undefined), else optional and
 * equal to `name`, the name of the blueprint or module updated.
 */
function documentName(check, document, name) {
  if (name === undefined) return check.name(check.required(document, 'name', '$'), '$.name');
  return check.ensure(lookup(document, 'name', name), '$.name', (given) => given === name,
    `must be ${name}: a document cannot be renamed`);
}

/**
 * The stored form of what blueprints and modules share, of a `document` named `name`, problems in `check`:
 * `{name, description, materials: [{item, quantity, unit}], modules: [{module, quantity}]}`.
 * @param {string} [owner] the name of the module written (undefined for a blueprint), which must not contain itself
 */
function assembly(store, check, document, name, owner = undefined) {
  return {
    name,
    description: check.string(lookup(document, 'description', ''), '$.description'),
    materials: checkMaterials(store, check, check.required(document, 'materials', '$')),
    modules: checkRefs(store, check, lookup(document, 'modules', []), owner),
  };
}

/**
 * The blueprint of the JSON input of `--file` or standard input, as stored: an assembly with its `tags`.
 * @param {string} [name] the blueprint updated (undefined: one created)
 * @throws usage_error when the file cannot be read; validation_error listing the problems of the input
 */
function read(store, options, name = undefined) {
  return readChecked(options, 'the blueprint', (check, document) => {
    check.members(document, '$', BLUEPRINT);
    return {
      ...assembly(store, check, document, documentName(check, document, name)),
      tags: checkTags(check, lookup(document, 'tags', [])),
    };
  });
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
  const blueprint = read(store, options);
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
  const blueprint = read(store, options, args[0]);
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

module.exports = { COMMANDS, documentName, assembly, record, labelsWhere, released, view, guard, commit };
