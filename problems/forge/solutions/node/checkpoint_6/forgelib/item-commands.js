'use strict';
// The item resource: create, get, list and delete catalogue items.

const { labelsWhere } = require('./blueprints');
const { checkString, lookup, readNamed } = require('./documents');
const { conflict } = require('./errors');
const { KIND, existingItem, findItem } = require('./items');
const { inKeyOrder } = require('./order');
const { levels } = require('./stock');
const { documentUnit, findUnit, ofDimension } = require('./units');

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
  const { name } = existingItem(store, args[0]);
  if (Object.values(levels(store, name)).some((level) => level !== 0)) {
    throw conflict(`item ${name} has stock on hand or reserved`);
  }
  delete store.collection(KIND)[name];
  return { deleted: name };
}

/** The commands of the `item` resource by name. */
const COMMANDS = { create, get: (store, args) => existingItem(store, args[0]), list: listAll, delete: remove };

module.exports = { COMMANDS };
