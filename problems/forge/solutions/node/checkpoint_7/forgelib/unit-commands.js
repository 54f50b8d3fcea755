'use strict';
// The unit resource: list, get, define, delete and convert units.

const { labelsWhere } = require('./blueprints');
const { INVALID, readChecked } = require('./contracts');
const { checkName, decimalNumber } = require('./documents');
const { conflict } = require('./errors');
const { KIND: ITEMS } = require('./items');
const { by } = require('./order');
const { KIND, allUnits, checkedUnit, convert, existingUnit, findUnit, ofDimension } = require('./units');

/** The members of the JSON inputs of a unit and of its `equals` (contract 2 refuses others). */
const UNIT = ['name', 'equals'];
const EQUALS = ['quantity', 'unit'];

function listAll(store, args, options) {
  return {
    units: Object.values(allUnits(store)).filter(ofDimension(options))
      .sort(by((unit) => [unit.dimension, unit.factor, unit.name])),
  };
}

/** The stored form of a unit definition `document`, problems in `check`: a unit and the unit it is defined from. */
function normalise(store, check, document) {
  check.members(document, '$', UNIT);
  const name = check.name(check.required(document, 'name', '$'), '$.name');
  const equals = check.members(check.required(document, 'equals', '$'), '$.equals', EQUALS);
  const quantity = check.quantity(check.required(equals, 'quantity', '$.equals'), '$.equals.quantity');
  const base = checkedUnit(store, check, check.required(equals, 'unit', '$.equals'), '$.equals.unit');
  if ([name, quantity, base].includes(INVALID)) return INVALID;
  return { name, dimension: base.dimension, factor: quantity * base.factor, builtin: false, defined_from: base.name };
}

function create(store, args, options) {
  const unit = readChecked(options, 'the unit', (check, document) => normalise(store, check, document));
  if (findUnit(store, unit.name) !== undefined) throw conflict(`a unit named ${unit.name} exists`);
  store.collection(KIND)[unit.name] = unit;
  return findUnit(store, unit.name);
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
