'use strict';
// The unit resource: list, get, define, delete and convert units.

const { labelsWhere } = require('./blueprints');
const { checkName, checkQuantity, decimalNumber, isObject, lookup, readNamed } = require('./documents');
const { conflict, invalid } = require('./errors');
const { KIND: ITEMS } = require('./items');
const { by } = require('./order');
const { KIND, allUnits, convert, documentUnit, existingUnit, findUnit, ofDimension } = require('./units');

function listAll(store, args, options) {
  return {
    units: Object.values(allUnits(store)).filter(ofDimension(options))
      .sort(by((unit) => [unit.dimension, unit.factor, unit.name])),
  };
}

function create(store, args, options) {
  const [document, name] = readNamed(options);
  const equals = lookup(document, 'equals');
  if (!isObject(equals)) throw invalid('equals must be an object with quantity and unit');
  const quantity = checkQuantity(lookup(equals, 'quantity'), 'equals.quantity');
  const base = documentUnit(store, lookup(equals, 'unit'), 'equals.unit');
  if (findUnit(store, name) !== undefined) throw conflict(`a unit named ${name} exists`);
  store.collection(KIND)[name] = {
    name, dimension: base.dimension, factor: quantity * base.factor, builtin: false, defined_from: base.name,
  };
  return findUnit(store, name);
}

/** What still uses unit `name`, as labels: items, defined units, and materials of blueprints and modules. */
function users(store, name) {
  return [
    ...Object.values(store.collection(ITEMS)).filter((item) => item.unit === name).map((item) => `item ${item.name}`),
    ...Object.values(store.collection(KIND)).filter((unit) => unit.defined_from === name)
      .map((unit) => `unit ${unit.name}`),
    ...labelsWhere(store, (document) => document.materials.some((material) => material.unit === name)),
  ];
}

function remove(store, args) {
  const unit = existingUnit(store, args[0]);
  if (unit.builtin) throw conflict(`${unit.name} is a built-in unit`);
  const used = users(store, unit.name);
  if (used.length) throw conflict(`unit ${unit.name} is used by ${used.join(', ')}`);
  delete store.collection(KIND)[unit.name];
  return { deleted: unit.name };
}

function convertQuantity(store, args) {
  const quantity = decimalNumber(args[0], 'the quantity');
  args.slice(1).forEach((name) => checkName(name, 'unit name'));
  const target = existingUnit(store, args[2]);
  return { quantity: convert(quantity, existingUnit(store, args[1]), target), unit: target.name };
}

/** The commands of the `unit` resource by name. */
const COMMANDS = {
  list: listAll,
  get: (store, args) => existingUnit(store, args[0]),
  create,
  delete: remove,
  convert: convertQuantity,
};

module.exports = { COMMANDS };
