'use strict';
// Access boundaries: what each role may run. A command needs the permissions its usage line names; every role may
// run the reading commands, which need none.

const { usage } = require('./errors');

/** Role -> the permissions it has. */
const ROLES = {
  viewer: [],
  editor: ['write'],
  approver: ['review'],
  auditor: ['audit'],
  admin: ['write', 'review', 'audit', 'catalogue'],
};
/** The permissions of the commands that change the data directory (and are audited when they succeed). */
const CHANGES = ['write', 'review', 'catalogue'];

/** The `--role` in effect (default `admin`); a usage_error for one that does not exist. */
function roleOf(options) {
  const role = options.role ?? 'admin';
  if (!Object.hasOwn(ROLES, role)) {
    throw usage(`--role must be one of ${Object.keys(ROLES).join(', ')}, got ${JSON.stringify(role)}`);
  }
  return role;
}

/** Whether `role` has every one of `permissions`. */
const permitted = (role, permissions) => permissions.every((permission) => ROLES[role].includes(permission));

/** Whether a command needing `permissions` changes the data directory. */
const changes = (permissions) => permissions.some((permission) => CHANGES.includes(permission));

module.exports = { roleOf, permitted, changes };
