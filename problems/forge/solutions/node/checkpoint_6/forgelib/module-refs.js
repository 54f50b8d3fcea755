'use strict';
// Module references (`{"module": name, "quantity": n}`) in blueprints and modules: their checks, cycles included.

const { checkName, checkWhole, isObject, lookup, repeated } = require('./documents');
const { ForgeError, invalid } = require('./errors');

const KIND = 'modules';

/** The module named `name`, or undefined. */
const findModule = (store, name) => lookup(store.collection(KIND), name);

/** The checked reference `ref` (at `where`) of the module named `owner` (undefined: of a blueprint). */
function checkRef(store, ref, where, owner) {
  if (!isObject(ref)) throw invalid(`${where} must be an object`);
  const name = checkName(lookup(ref, 'module'), `${where}.module`);
  const quantity = checkWhole(lookup(ref, 'quantity'), `${where}.quantity`);
  if (name !== owner && findModule(store, name) === undefined) {
    throw invalid(`${where}.module: no module named ${name}`);
  }
  return { module: name, quantity };
}

/** The paths from `owner` back to itself through the modules `names`, depth first, in reference order. */
function* cycles(store, owner, names, path) {
  for (const name of names) {
    if (name === owner) {
      yield [...path, owner];
    } else {
      yield* cycles(store, owner, findModule(store, name).modules.map((ref) => ref.module), [...path, name]);
    }
  }
}

/**
 * The checked `modules` array `refs` of a blueprint, or of the module named `owner` (then without cycles).
 * @throws validation_error for a bad reference, a module named twice, or a cycle (its path in `details.cycle`)
 */
function checkRefs(store, refs, owner = undefined) {
  if (!Array.isArray(refs)) throw invalid('modules must be an array');
  const checked = refs.map((ref, index) => checkRef(store, ref, `modules[${index}]`, owner));
  const names = checked.map((ref) => ref.module);
  const twice = repeated(names);
  if (twice !== undefined) throw invalid(`module ${twice} appears twice in modules`);
  const cycle = owner === undefined ? undefined : cycles(store, owner, names, [owner]).next().value;
  if (cycle) throw new ForgeError('validation_error', `${owner} contains itself`, { cycle });
  return checked;
}

module.exports = { KIND, findModule, checkRefs };
