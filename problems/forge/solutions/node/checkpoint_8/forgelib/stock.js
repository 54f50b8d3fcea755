'use strict';
// Stock of catalogue items, in each item's unit: on hand, reserved by allocations, available.

const { decimalNumber, lookup } = require('./documents');
const { ForgeError, invalid } = require('./errors');
const { KIND: ITEMS, existingItem, findItem } = require('./items');
const { inKeyOrder } = require('./order');
const { convert, existingUnit, findUnit } = require('./units');

const KIND = 'stock';
/** Relative rounding error allowed when comparing quantities. */
const TOLERANCE = 1e-9;

/** `value`, or exactly 0 when it is within `scale` * TOLERANCE of 0: no rounding residue. */
const settled = (value, scale) => (Math.abs(value) <= TOLERANCE * Math.abs(scale) ? 0 : value);

/** The stock of item `name`: `{on_hand, reserved}`. */
const levels = (store, name) => lookup(store.collection(KIND), name, { on_hand: 0, reserved: 0 });

/** The stock of catalogue `item` (a record) as printed: `{item, unit, on_hand, reserved, available}`. */
function view(store, item) {
  const stock = levels(store, item.name);
  return {
    item: item.name, unit: item.unit, ...stock, available: settled(stock.on_hand - stock.reserved, stock.on_hand),
  };
}

/**
 * Add `changes` (`{on_hand?, reserved?}`, negative: take away) to the stock of item `name`; a level left within the
 * rounding error of its change of 0 becomes 0.
 */
function adjust(store, name, changes) {
  const stock = { ...levels(store, name) };
  for (const [level, change] of Object.entries(changes)) stock[level] = settled(stock[level] + change, change);
  store.collection(KIND)[name] = stock;
}

/** What is available of item `name`: 0 for an item outside the catalogue. */
function available(store, name) {
  const item = findItem(store, name);
  return item === undefined ? 0 : view(store, item).available;
}

/** The rows `{item, unit, required, available}` of the `needs` (`[{item, quantity, unit}]`) that are short. */
function shortages(store, needs) {
  return needs
    .map(({ item, quantity, unit }) => ({ item, unit, required: quantity, available: available(store, item) }))
    .filter((row) => row.required - row.available > TOLERANCE * row.required);
}

/** Fail with a `shortage` error unless the available stock covers every row of `needs` (`[{item, quantity, unit}]`). */
function ensureAvailable(store, needs) {
  const short = shortages(store, needs);
  if (short.length) {
    throw new ForgeError('shortage', `${short.length} item${short.length > 1 ? 's are' : ' is'} short`,
      { shortages: short });
  }
}

/**
 * The catalogue item `args[0]` and the quantity `args[1]` (in `--unit`, default the item's) in the item's unit.
 * @returns {[object, number]} the item and the quantity
 * @throws validation_error for a bad quantity, name or unit dimension; not_found for a missing item or unit
 */
function requested(store, args, options) {
  const quantity = decimalNumber(args[1], 'the quantity');
  if (quantity <= 0) throw invalid(`the quantity must be greater than zero, got ${args[1]}`);
  const item = existingItem(store, args[0]);
  const unit = findUnit(store, item.unit);
  return [item, convert(quantity, options.unit === undefined ? unit : existingUnit(store, options.unit), unit)];
}

function add(store, args, options) {
  const [item, quantity] = requested(store, args, options);
  adjust(store, item.name, { on_hand: quantity });
  return view(store, item);
}

function remove(store, args, options) {
  const [item, quantity] = requested(store, args, options);
  ensureAvailable(store, [{ item: item.name, quantity, unit: item.unit }]);
  adjust(store, item.name, { on_hand: -quantity });
  return view(store, item);
}

function get(store, args) {
  return view(store, existingItem(store, args[0]));
}

function listAll(store) {
  return { stock: inKeyOrder(store.collection(ITEMS)).map((item) => view(store, item)) };
}

/** The commands of the `stock` resource by name. */
const COMMANDS = { add, remove, get, list: listAll };

module.exports = { COMMANDS, levels, adjust, ensureAvailable };
