'use strict';
// Units of measure: the built-in table, units users define, and conversions.

const { findNamed, lookup } = require('./documents');
const { invalid } = require('./errors');

/** Dimension -> unit name -> factor (how many of the dimension's base unit one unit is). */
const BUILTIN = {
  count: { each: 1, pair: 2, dozen: 12 },
  length: { mm: 0.001, cm: 0.01, in: 0.0254, ft: 0.3048, m: 1, km: 1000 },
  mass: { g: 0.001, oz: 0.028349523125, lb: 0.45359237, kg: 1, t: 1000 },
  volume: { ml: 0.001, l: 1, m3: 1000 },
};
const DIMENSIONS = Object.keys(BUILTIN);
/** Dimension -> its base unit (factor 1). */
const BASE = { count: 'each', length: 'm', mass: 'kg', volume: 'l' };
/** The built-in units by name, as printed. */
const BUILTIN_UNITS = Object.fromEntries(Object.entries(BUILTIN).flatMap(([dimension, units]) => Object.entries(units)
  .map(([name, factor]) => [name, { name, dimension, factor, builtin: true }])));
const KIND = 'units';

/** Every unit, built-in or defined, by name, as printed: `{name, dimension, factor, builtin}`. */
function allUnits(store) {
  const defined = Object.entries(store.collection(KIND)).map(([name, { defined_from: _, ...unit }]) => [name, unit]);
  return { ...BUILTIN_UNITS, ...Object.fromEntries(defined) };
}

/** The unit named `name`, or undefined. */
const findUnit = (store, name) => lookup(allUnits(store), name);

/** The unit a document names with `value`; a validation_error (about `what`) unless a string naming a unit. */
function documentUnit(store, value, what) {
  const unit = typeof value === 'string' ? findUnit(store, value) : undefined;
  if (unit === undefined) throw invalid(`${what} must name a unit, got ${JSON.stringify(value)}`);
  return unit;
}

/** The unit an argument names: validation_error unless a name, not_found unless a unit. */
const existingUnit = (store, name) => findNamed(store, 'unit', name, findUnit);

/**
 * A filter keeping the units or items of the `--dimension` asked for (every one without it).
 * @throws validation_error for a `--dimension` that is not one of the dimensions
 */
function ofDimension({ dimension }) {
  if (dimension === undefined) return () => true;
  if (!DIMENSIONS.includes(dimension)) {
    throw invalid(`--dimension must be one of ${DIMENSIONS.join(', ')}, got ${JSON.stringify(dimension)}`);
  }
  return (record) => record.dimension === dimension;
}

/**
 * `quantity` of unit `source` expressed in unit `target` (both unit records).
 * @throws validation_error when the units have different dimensions
 */
function convert(quantity, source, target) {
  if (source.dimension !== target.dimension) {
    throw invalid(`cannot convert ${source.dimension} (${source.name}) to ${target.dimension} (${target.name})`);
  }
  return (quantity * source.factor) / target.factor;
}

module.exports = { KIND, BASE, allUnits, findUnit, documentUnit, existingUnit, ofDimension, convert };
