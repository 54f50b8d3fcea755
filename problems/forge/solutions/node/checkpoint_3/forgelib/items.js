'use strict';
// The item catalogue: what materials consume, each counted in one unit.

const { lookup } = require('./documents');

const KIND = 'items';

/** The item named `name`, or undefined. */
const findItem = (store, name) => lookup(store.collection(KIND), name);

module.exports = { KIND, findItem };
