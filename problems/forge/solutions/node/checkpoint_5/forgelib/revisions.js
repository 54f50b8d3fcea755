'use strict';
// The revision resource: a blueprint's history, any revision read back, restores.

const { commit, guard, record, view } = require('./blueprints');
const { optionalRevision, wholeNumber } = require('./documents');
const { ForgeError } = require('./errors');

/**
 * The history of blueprint `args[0]` and the revision number `args[1]`, which must exist.
 * @returns {[object, number]} the history and the number
 * @throws validation_error for a bad number or name; not_found for a missing blueprint or revision
 */
function numbered(store, args) {
  const number = wholeNumber(args[1], 'the revision number');
  const history = record(store, args[0]);
  if (number > history.revisions.length) throw new ForgeError('not_found', `${args[0]} has no revision ${number}`);
  return [history, number];
}

function listAll(store, args) {
  return {
    blueprint: args[0],
    revisions: record(store, args[0]).revisions
      .map(({ document, ...made }, index) => ({ revision: index + 1, ...made })),
  };
}

function get(store, args) {
  return view(...numbered(store, args));
}

function restore(store, args, options) {
  const expected = optionalRevision(options);
  const [history, number] = numbered(store, args);
  guard(history, expected);
  return commit(history, history.revisions[number - 1].document, 'restore', { restored_from: number });
}

/** The commands of the `revision` resource by name. */
const COMMANDS = { list: listAll, get, restore };

module.exports = { COMMANDS, numbered };
