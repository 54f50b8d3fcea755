'use strict';
// The module resource: reusable sub-assemblies of materials and other modules.

const { assembly, documentName, labelsWhere } = require('./blueprints');
const { readChecked } = require('./contracts');
const { findNamed } = require('./documents');
const { conflict } = require('./errors');
const { KIND, findModule } = require('./module-refs');
const { inKeyOrder } = require('./order');

/** The module an argument names: validation_error unless a name, not_found unless a module. */
const existing = (store, name) => findNamed(store, 'module', name, findModule);

/** The members of the JSON input of a module (contract 2 refuses others). */
const MODULE = ['name', 'description', 'materials', 'modules'];

/**
 * The module of the JSON input of `--file` or standard input, as stored.
 * @param {string} [name] the module updated (undefined: one created)
 * @throws usage_error when the file cannot be read; validation_error listing the problems of the input
 */
function read(store, options, name = undefined) {
  return readChecked(options, 'the module', (check, document) => {
    check.members(document, '$', MODULE);
    const checked = documentName(check, document, name);
    return assembly(store, check, document, checked, checked);
  });
}

/** `written`, after keeping it under its name. */
function stored(store, written) {
  store.collection(KIND)[written.name] = written;
  return written;
}

function create(store, args, options) {
  const written = read(store, options);
  if (findModule(store, written.name) !== undefined) throw conflict(`a module named ${written.name} exists`);
  return stored(store, written);
}

function listAll(store) {
  return { modules: inKeyOrder(store.collection(KIND)) };
}

function update(store, args, options) {
  return stored(store, read(store, options, existing(store, args[0]).name));
}

/** The blueprints and modules referencing module `name`, as `{kind, name}` sorted by kind then name. */
function users(store, name) {
  return labelsWhere(store, (document) => document.modules.some((ref) => ref.module === name)).map((label) => {
    const [kind, user] = label.split(' ');
    return { kind, name: user };
  });
}

function remove(store, args) {
  const { name } = existing(store, args[0]);
  const usedBy = users(store, name);
  if (usedBy.length) throw conflict(`${name} is in use`, { used_by: usedBy });
  delete store.collection(KIND)[name];
  return { deleted: name };
}

/** The commands of the `module` resource by name. */
const COMMANDS = { create, get: (store, args) => existing(store, args[0]), list: listAll, update, delete: remove };

module.exports = { COMMANDS };
