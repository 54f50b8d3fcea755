'use strict';
// The allocation resource: reserving a build's bill of materials, then consuming or releasing it.

const { record, view } = require('./blueprints');
const { explode } = require('./bom');
const { checkName, lookup, wholeNumber } = require('./documents');
const { ForgeError, conflict, invalid } = require('./errors');
const { loadRules, requireReleased } = require('./gates');
const { KIND, nextId } = require('./ledger');
const { numbered } = require('./revisions');
const { adjust, ensureAvailable } = require('./stock');

const STATUSES = ['reserved', 'consumed', 'released'];
/** Status an allocation is settled into -> the stock levels its materials leave. */
const SETTLED = { consumed: ['on_hand', 'reserved'], released: ['reserved'] };

/**
 * The revision `allocation create` builds, as printed: `--revision`, or the current one; the released one when the
 * `rules` require it.
 */
function chosenRevision(store, args, options, rules) {
  const [history, number] = options.revision === undefined
    ? [record(store, args[0]), undefined] : numbered(store, [args[0], options.revision]);
  return view(history, rules.allocate.require_released ? requireReleased(history, number) : number);
}

function create(store, args, options) {
  const rules = loadRules(options);
  const quantity = wholeNumber(options.quantity ?? '1', '--quantity');
  const { blueprint, revision, materials } = explode(store, chosenRevision(store, args, options, rules), quantity);
  ensureAvailable(store, materials);
  for (const material of materials) adjust(store, material.item, { reserved: material.quantity });
  const id = nextId(store);
  store.collection(KIND)[id] = { id, blueprint, revision, quantity, status: 'reserved', materials };
  return store.collection(KIND)[id];
}

/** The allocation whose number `text` writes: validation_error unless a whole number, not_found unless one. */
function existing(store, text) {
  wholeNumber(text, 'the allocation id');
  const allocation = lookup(store.collection(KIND), text);
  if (allocation === undefined) throw new ForgeError('not_found', `no allocation ${text}`);
  return allocation;
}

function listAll(store, args, options) {
  if (options.status !== undefined && !STATUSES.includes(options.status)) {
    throw invalid(`--status must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(options.status)}`);
  }
  if (options.blueprint !== undefined) checkName(options.blueprint, '--blueprint');
  const wanted = (allocation) => [undefined, allocation.status].includes(options.status)
    && [undefined, allocation.blueprint].includes(options.blueprint);
  return { allocations: Object.values(store.collection(KIND)).filter(wanted).sort((a, b) => a.id - b.id) };
}

/** Move the reserved allocation `text` names to `status`, its materials leaving the stock levels SETTLED says. */
function settle(store, text, status) {
  const allocation = existing(store, text);
  if (allocation.status !== 'reserved') {
    throw conflict(`allocation ${allocation.id} is ${allocation.status}`, { status: allocation.status });
  }
  for (const material of allocation.materials) {
    adjust(store, material.item, Object.fromEntries(SETTLED[status].map((level) => [level, -material.quantity])));
  }
  allocation.status = status;
  return allocation;
}

/** The commands of the `allocation` resource by name. */
const COMMANDS = {
  create,
  get: (store, args) => existing(store, args[0]),
  list: listAll,
  consume: (store, args) => settle(store, args[0], 'consumed'),
  release: (store, args) => settle(store, args[0], 'released'),
};

module.exports = { COMMANDS };
