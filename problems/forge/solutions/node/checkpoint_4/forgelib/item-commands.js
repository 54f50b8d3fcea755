'use strict';
// The item resource: create, get, list and delete catalogue items.

const { labelsWhere } = require('./blueprints');
const { checkString, findNamed, lookup, readNamed } = require('./documents');
const { conflict } = require('./errors');
const { KIND, findItem } = require('./items');
const { inKeyOrder } = require('./order');
const { documentUnit, findUnit, ofDimension } = require('./units');

/** The catalogue item an argument names: validation_error unless a name, not_found unless catalogued. */
const existing = (store, name) => findNamed(store, 'item', name, findItem);

/** The labels of the documents with a material naming item `name` in a unit of another dimension than `dimension`. */
function clashing(store, name, dimension) {
  return labelsWhere(store, (document) => document.materials
    .some((material) => material.item === name && findUnit(store, material.unit).dimension !== dimension));
}

function create(store, args, options) {
  const [document, name] = readNamed(options);
  const description = checkString(lookup(document, 'description', ''), 'description');
  const unit = documentUnit(store, lookup(document, 'unit'), 'unit');
  if (findItem(store, name) !== undefined) throw conflict(`an item named ${name} exists`);
  const labels = clashing(store, name, unit.dimension);
  if (labels.length) {
    throw conflict(`${labels.join(', ')} use ${name} in units that are not ${unit.dimension}`);
  }
  store.collection(KIND)[name] = { name, description, unit: unit.name, dimension: unit.dimension };
  return store.collection(KIND)[name];
}

function listAll(store, args, options) {
  return { items: inKeyOrder(store.collection(KIND)).filter(ofDimension(options)) };
}

function remove(store, args) {
  delete store.collection(KIND)[existing(store, args[0]).name];
  return { deleted: args[0] };
}

/** The commands of the `item` resource by name. */
const COMMANDS = { create, get: (store, args) => existing(store, args[0]), list: listAll, delete: remove };

module.exports = { COMMANDS };
