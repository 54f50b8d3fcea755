'use strict';
// The blueprint resource: validation and its five commands.

const { checkName, checkQuantity, isObject, lookup, readDocument } = require('./documents');
const { conflict, invalid, notFound } = require('./errors');

const KIND = 'blueprints';

function checkMaterial(material, where) {
  if (!isObject(material)) throw invalid(`${where} must be an object`);
  return {
    item: checkName(lookup(material, 'item'), `${where}.item`),
    quantity: checkQuantity(lookup(material, 'quantity'), `${where}.quantity`),
  };
}

function checkMaterials(materials) {
  if (!Array.isArray(materials)) throw invalid('materials must be an array');
  const checked = materials.map((material, index) => checkMaterial(material, `materials[${index}]`));
  const twice = checked.find(({ item }, index) => checked.findIndex((other) => other.item === item) < index);
  if (twice) throw invalid(`item ${twice.item} appears twice in materials`);
  return checked;
}

function checkTags(tags) {
  if (!Array.isArray(tags)) throw invalid('tags must be an array');
  tags.forEach((tag, index) => checkName(tag, `tags[${index}]`));
  return [...new Set(tags)].sort();
}

/**
 * The stored form of a blueprint `document` whose name must be `name`:
 * `{name, description, materials: [{item, quantity}], tags}`.
 * @throws validation_error for a document breaking a rule
 */
function normalise(document, name) {
  if (!Object.hasOwn(document, 'materials')) throw invalid('materials is required');
  const description = lookup(document, 'description', '');
  if (typeof description !== 'string') throw invalid('description must be a string');
  return {
    name, description, materials: checkMaterials(document.materials), tags: checkTags(lookup(document, 'tags', [])),
  };
}

/** The blueprints by name, after checking that `name` is a name and one of them. */
function existing(store, name) {
  checkName(name, 'blueprint name');
  const blueprints = store.collection(KIND);
  if (!Object.hasOwn(blueprints, name)) throw notFound('blueprint', name);
  return blueprints;
}

/** `blueprint`, after keeping it under its name. */
function stored(store, blueprint) {
  store.collection(KIND)[blueprint.name] = blueprint;
  return blueprint;
}

function create(store, args, options) {
  const document = readDocument(options);
  const blueprint = normalise(document, checkName(lookup(document, 'name'), 'name'));
  if (Object.hasOwn(store.collection(KIND), blueprint.name)) {
    throw conflict(`a blueprint named ${blueprint.name} exists`);
  }
  return stored(store, blueprint);
}

function get(store, args) {
  return existing(store, args[0])[args[0]];
}

function listAll(store, args, options) {
  if (options.tag !== undefined) checkName(options.tag, '--tag');
  const blueprints = store.collection(KIND);
  return {
    blueprints: Object.keys(blueprints).sort().map((name) => blueprints[name])
      .filter((blueprint) => options.tag === undefined || blueprint.tags.includes(options.tag)),
  };
}

function update(store, args, options) {
  const [name] = args;
  existing(store, name);
  const document = readDocument(options);
  if (lookup(document, 'name', name) !== name) {
    throw invalid(`the document's name must be ${name}: blueprints cannot be renamed`);
  }
  return stored(store, normalise(document, name));
}

function remove(store, args) {
  delete existing(store, args[0])[args[0]];
  return { deleted: args[0] };
}

/** The commands of the `blueprint` resource by name. */
const COMMANDS = { create, get, list: listAll, update, delete: remove };

module.exports = { COMMANDS };
