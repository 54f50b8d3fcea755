'use strict';
// The audit trail: one entry per change and per denied attempt, numbered 1, 2, ...

const { roleOf } = require('./access');
const { wholeNumber } = require('./documents');

const KIND = 'audit';

/** Add an entry for `command` (`resource command`) run by `role` in the scope in effect, on `target` (or null). */
function append(store, role, command, target, outcome) {
  const entries = store.collection(KIND, []);
  entries.push({ seq: entries.length + 1, role, scope: store.scope, command, target, outcome });
}

/** `audit list`: the entries of every scope for an admin, of the scope in effect for an auditor; the last `--limit`. */
function listAll(store, args, options) {
  const limit = options.limit === undefined ? undefined : wholeNumber(options.limit, '--limit');
  const everyScope = roleOf(options) === 'admin';
  const entries = store.collection(KIND, []).filter((entry) => everyScope || entry.scope === store.scope);
  return { entries: limit === undefined ? entries : entries.slice(-limit) };
}

/** The commands of the `audit` resource by name. */
const COMMANDS = { list: listAll };

module.exports = { COMMANDS, append };
