'use strict';
// The allocation records of a data directory by their number (as a string), numbered 1, 2, ... and never renumbered.

const KIND = 'allocations';

/** The number the next allocation takes (one more than the last ever made). */
function nextId(store) {
  const sequences = store.collection('sequences');
  sequences[KIND] = (sequences[KIND] ?? 0) + 1;
  return sequences[KIND];
}

/** The `reserved` allocations of blueprint `blueprint`. */
function reservedOf(store, blueprint) {
  return Object.values(store.collection(KIND))
    .filter((allocation) => allocation.blueprint === blueprint && allocation.status === 'reserved');
}

module.exports = { KIND, nextId, reservedOf };
