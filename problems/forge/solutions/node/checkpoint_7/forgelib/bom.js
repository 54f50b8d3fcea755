'use strict';
// Bills of materials: a blueprint exploded through every level of modules into item totals.

const { record, view } = require('./blueprints');
const { wholeNumber } = require('./documents');
const { findItem } = require('./items');
const { findModule } = require('./module-refs');
const { by } = require('./order');
const { BASE, convert, findUnit } = require('./units');

/** The unit the totals of `item` are kept in: the catalogue item's, else the base unit of `unit`'s dimension. */
function totalUnit(store, item, unit) {
  return findUnit(store, findItem(store, item)?.unit ?? BASE[unit.dimension]);
}

/**
 * Add `factor` times the materials of `document` and of its modules, through every level, to `totals`
 * (a Map from `ITEM UNIT` to the quantity); returns `totals`.
 */
function accumulate(store, totals, document, factor) {
  for (const material of document.materials) {
    const unit = findUnit(store, material.unit);
    const target = totalUnit(store, material.item, unit);
    const key = `${material.item} ${target.name}`;
    totals.set(key, (totals.get(key) ?? 0) + convert(material.quantity * factor, unit, target));
  }
  for (const ref of document.modules) accumulate(store, totals, findModule(store, ref.module), factor * ref.quantity);
  return totals;
}

/**
 * The bill of materials of `blueprint` (a revision as printed) built `quantity` times:
 * `{blueprint, revision, quantity, materials: [{item, quantity, unit}]}`, materials sorted by item then unit.
 */
function explode(store, blueprint, quantity) {
  const totals = [...accumulate(store, new Map(), blueprint, quantity)].map(([key, total]) => {
    const [item, unit] = key.split(' ');
    return { item, quantity: total, unit };
  });
  return {
    blueprint: blueprint.name, revision: blueprint.revision, quantity,
    materials: totals.sort(by((row) => [row.item, row.unit])),
  };
}

function bill(store, args, options) {
  const quantity = wholeNumber(options.quantity ?? '1', '--quantity');
  return explode(store, view(record(store, args[0])), quantity);
}

module.exports = { bill, explode };
