'use strict';
// Sorting records: by several keys as tuples compare (the first key that differs decides), or by their keys.

/** -1, 0 or 1 as the array `left` sorts before, with or after `right` (strings by code unit, numbers by value). */
function compareTuples(left, right) {
  const index = left.findIndex((value, at) => value !== right[at]);
  if (index < 0) return 0;
  return left[index] < right[index] ? -1 : 1;
}

/** A comparator for `Array.prototype.sort` ordering values by the array `key(value)`. */
const by = (key) => (a, b) => compareTuples(key(a), key(b));

/** The values of the object `records` in ascending order of their keys. */
const inKeyOrder = (records) => Object.keys(records).sort().map((key) => records[key]);

module.exports = { by, inKeyOrder };
