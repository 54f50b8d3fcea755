'use strict';
// Module references (`{"module": name, "quantity": n}`) in blueprints and modules: their checks, cycles included.

const { INVALID } = require('./contracts');
const { lookup } = require('./documents');

const KIND = 'modules';
/** The members of the JSON input of a module reference (contract 2 refuses others). */
const REFERENCE = ['module', 'quantity'];

/** The module named `name`, or undefined. */
const findModule = (store, name) => lookup(store.collection(KIND), name);

/** The checked reference `ref` (at `path`) of the module named `owner` (undefined: of a blueprint). */
function checkRef(store, check, ref, path, owner) {
  if (check.members(ref, path, REFERENCE) === INVALID) return INVALID;
  const name = check.ensure(check.name(check.required(ref, 'module', path), `${path}.module`), `${path}.module`,
    (module) => module === owner || findModule(store, module) !== undefined, 'must name a module');
  return { module: name, quantity: check.whole(check.required(ref, 'quantity', path), `${path}.quantity`) };
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
 * The checked `modules` array `refs` of a blueprint, or of the module named `owner`, problems in `check`; for a module
 * without cycles, looked for when the array has no other problem (the one found goes in `details.cycle`).
 */
function checkRefs(store, check, refs, owner = undefined, path = '$.modules') {
  if (check.array(refs, path) === INVALID) return INVALID;
  const before = check.problems.size;
  const checked = refs.map((ref, index) => checkRef(store, check, ref, `${path}[${index}]`, owner));
  check.unique(checked, 'module', path);
  if ([undefined, INVALID].includes(owner) || check.problems.size > before) return checked;
  const names = checked.map((ref) => ref.module);
  const cycle = cycles(store, owner, names, [owner]).next().value;
  if (cycle) {
    check.fail(`${path}[${names.indexOf(cycle[1])}].module`, `${owner} contains itself`);
    check.details.cycle = cycle;
  }
  return checked;
}

module.exports = { KIND, findModule, checkRefs };
