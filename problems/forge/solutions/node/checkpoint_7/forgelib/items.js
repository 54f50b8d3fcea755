'use strict';
// The item catalogue: what materials consume, each counted in one unit.

const { findNamed, lookup } = require('./documents');

const KIND = 'items';

/** The item named `name`, or undefined. */
const findItem = (store, name) => lookup(store.collection(KIND), name);

/** The catalogue item an argument names: validation_error unless a name, not_found unless catalogued. */
const existingItem = (store, name) => findNamed(store, 'item', name, findItem);

module.exports = { KIND, findItem, existingItem };
