'use strict';
// Errors a user sees: a code, its exit status and a message.

const EXIT_STATUS = {
  usage_error: 2, validation_error: 3, not_found: 4, conflict: 5, shortage: 6, gate_error: 7,
};

/** A failed command: `code` (a key of EXIT_STATUS), a human `message` and optional `details` (an object). */
class ForgeError extends Error {
  constructor(code, message, details = undefined) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** The JSON document printed on standard error: `{error: {code, message[, details]}}`. */
  envelope() {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }

  get exitStatus() {
    return EXIT_STATUS[this.code];
  }
}

const usage = (message) => new ForgeError('usage_error', message);
const invalid = (message) => new ForgeError('validation_error', message);
const notFound = (kind, name) => new ForgeError('not_found', `no ${kind} named ${name}`);
const conflict = (message, details = undefined) => new ForgeError('conflict', message, details);

module.exports = { ForgeError, usage, invalid, notFound, conflict };
