'use strict';
// The item resource: create, get, list and delete catalogue items.

const { labelsWhere } = require('./blueprints');
const { INVALID, readChecked } = require('./contracts');
const { lookup } = require('./documents');
const { conflict } = require('./errors');
const { KIND, existingItem, findItem } = require('./items');
const { inKeyOrder } = require('./order');
const { levels } = require('./stock');
const { checkedUnit, findUnit, ofDimension } = require('./units');

/** The members of the JSON input of an item (contract 2 refuses others). */
const ITEM = ['name', 'description', 'unit'];

/** The labels of the documents with a material naming item `name` in a unit of another dimension than `dimension`. */
function clashing(store, name, dimension) {
  return labelsWhere(store, (document) => document.materials
    .some((material) => material.item === name && findUnit(store, material.unit).dimension !== dimension));
}

/** The stored form of an item `document`: `{name, description, unit, dimension}`, problems in `check`. */
function normalise(store, check, document) {
  check.members(document, '$', ITEM);
  const name = check.name(check.required(document, 'name', '$'), '$.name');
  const description = check.string(lookup(document, 'description', ''), '$.description');
  const unit = checkedUnit(store, check, check.required(document, 'unit', '$'), '$.unit');
  return unit === INVALID ? INVALID : { name, description, unit: unit.name, dimension: unit.dimension };
}

function create(store, args, options) {
  const item = readChecked(options, 'the item', (check, document) => normalise(store, check, document));
  if (findItem(store, item.name) !== undefined) throw conflict(`an item named ${item.name} exists`);
  const labels = clashing(store, item.name, item.dimension);
  if (labels.length) throw conflict(`${labels.join(', ')} use ${item.name} in units that are not ${item.dimension}`);
  store.collection(KIND)[item.name] = item;
  return item;
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
