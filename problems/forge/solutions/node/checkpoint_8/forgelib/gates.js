'use strict';
// Revision gates: submit, approve, reject and release, under the rules of a `--rules-file`.

const { guard, released, view } = require('./blueprints');
const { explode } = require('./bom');
const { INVALID, Check, checked } = require('./contracts');
const { checkName, isName, lookup, readFile } = require('./documents');
const { ForgeError, conflict } = require('./errors');
const { findItem } = require('./items');
const { numbered } = require('./revisions');

const isFlag = (value) => typeof value === 'boolean';
const isCount = (value) => Number.isInteger(value) && value >= 0;
const isNames = (value) => Array.isArray(value) && value.every(isName);

/** Gate -> rule -> [which values are allowed, the default]. */
const RULES = {
  submit: { require_description: [isFlag, false], min_materials: [isCount, 0], required_tags: [isNames, []] },
  approve: { approvals: [(value) => isCount(value) && value >= 1, 1] },
  release: { require_catalogued: [isFlag, false] },
  allocate: { require_released: [isFlag, false] },
};

/** Gate -> rule -> whether a revision (as printed) passes it. */
const CHECKS = {
  submit: {
    require_description: (store, blueprint, rule) => !rule || blueprint.description !== '',
    min_materials: (store, blueprint, rule) => blueprint.materials.length >= rule,
    required_tags: (store, blueprint, rule) => rule.every((tag) => blueprint.tags.includes(tag)),
  },
  release: {
    require_catalogued: (store, blueprint, rule) => !rule
      || explode(store, blueprint, 1).materials.every((row) => findItem(store, row.item) !== undefined),
  },
};

/** The rules of `gate` in the rules file `document` over their defaults (all of them when it is not an object). */
function gateRules(check, document, gate) {
  const member = check.members(lookup(document, gate, {}), `$.${gate}`, Object.keys(RULES[gate]));
  const given = member === INVALID ? {} : member;
  return Object.fromEntries(Object.entries(RULES[gate]).map(([rule, [allowed, fallback]]) => [rule,
    check.ensure(lookup(given, rule, fallback), `$.${gate}.${rule}`, allowed, 'is not a value this rule takes')]));
}

/** The rules of every gate in the rules file `document` over their defaults, problems in `check`. */
function rulesOf(check, document) {
  check.members(document, '$', Object.keys(RULES));
  return Object.fromEntries(Object.keys(RULES).map((gate) => [gate, gateRules(check, document, gate)]));
}

/**
 * The rules of every gate, `{gate: {rule: value}}`: those of `--rules-file` over the defaults.
 * @throws usage_error when the file cannot be read; validation_error listing its problems
 */
function loadRules(options) {
  const file = options['rules-file'];
  if (file === undefined) return rulesOf(new Check(), {});
  return checked(readFile(file, '--rules-file'), 'the rules file', options.strict, rulesOf);
}

/** Fail with a gate_error listing every rule of `gate` that `blueprint` (a revision as printed) fails. */
function enforce(store, gate, blueprint, rules) {
  const violations = Object.entries(CHECKS[gate])
    .filter(([rule, passes]) => !passes(store, blueprint, rules[gate][rule])).map(([rule]) => rule).sort();
  if (violations.length) {
    throw new ForgeError('gate_error', `${blueprint.name} revision ${blueprint.revision} fails the ${gate} gate`,
      { gate, violations });
  }
}

/** The released revision of `history`, which `number` (undefined: any) must be; a gate_error otherwise. */
function requireReleased(history, number) {
  const chosen = released(history);
  if (chosen === null || ![undefined, chosen].includes(number)) {
    throw new ForgeError('gate_error', 'only the released revision can be allocated',
      { gate: 'allocate', violations: ['require_released'] });
  }
  return chosen;
}

/** Revision `number` of `history`, which must be in `state`; a conflict (details: its state) otherwise. */
function inState(history, number, state) {
  const revision = history.revisions[number - 1];
  if (revision.state !== state) {
    throw conflict(`revision ${number} is ${revision.state}, not ${state}`, { state: revision.state });
  }
  return revision;
}

/** What a gate command prints: `{blueprint, revision, state, approvals}`. */
function status(args, revision) {
  return { blueprint: args[0], revision: Number(args[1]), state: revision.state, approvals: revision.approvals };
}

function submit(store, args, options) {
  const rules = loadRules(options);
  const [history, number] = numbered(store, args);
  guard(history, number);
  const revision = inState(history, number, 'draft');
  enforce(store, 'submit', view(history, number), rules);
  revision.state = 'review';
  return status(args, revision);
}

function approve(store, args, options) {
  const rules = loadRules(options);
  const reviewer = checkName(options.by, '--by');
  const revision = inState(...numbered(store, args), 'review');
  if (revision.approvals.includes(reviewer)) {
    throw conflict(`${reviewer} has approved already`, { approvals: revision.approvals });
  }
  revision.approvals = [...revision.approvals, reviewer].sort();
  if (revision.approvals.length >= rules.approve.approvals) revision.state = 'approved';
  return status(args, revision);
}

function reject(store, args, options) {
  checkName(options.by, '--by');
  const revision = inState(...numbered(store, args), 'review');
  Object.assign(revision, { state: 'draft', approvals: [] });
  return status(args, revision);
}

function release(store, args, options) {
  const rules = loadRules(options);
  const [history, number] = numbered(store, args);
  const revision = inState(history, number, 'approved');
  enforce(store, 'release', view(history, number), rules);
  for (const other of history.revisions.filter((candidate) => candidate.state === 'released')) {
    other.state = 'superseded';
  }
  revision.state = 'released';
  return status(args, revision);
}

/** The gate commands of the `revision` resource by name. */
const COMMANDS = { submit, approve, reject, release };

module.exports = { COMMANDS, loadRules, requireReleased };
