'use strict';
// Dispatch: `--data-dir DIR RESOURCE COMMAND [ARGS] [OPTIONS]`.

const allocations = require('./allocations');
const { parse } = require('./argv');
const blueprints = require('./blueprints');
const bom = require('./bom');
const { loadContract } = require('./contracts');
const { ForgeError, usage } = require('./errors');
const gates = require('./gates');
const items = require('./item-commands');
const modules = require('./module-commands');
const revisions = require('./revisions');
const stock = require('./stock');
const { Store } = require('./store');
const units = require('./unit-commands');

/** Resource -> command -> its handler, `run(store, args, options)`, which returns what the command prints. */
const HANDLERS = {
  blueprint: { ...blueprints.COMMANDS, bom: bom.bill },
  revision: { ...revisions.COMMANDS, ...gates.COMMANDS },
  unit: units.COMMANDS,
  item: items.COMMANDS,
  module: modules.COMMANDS,
  stock: stock.COMMANDS,
  allocation: allocations.COMMANDS,
};
/**
 * Every command, one a line: its resource and name, its `<argument>`s, the `[--option]`s it takes and the `--option`s
 * it needs.
 */
const USAGE = `
blueprint create [--file]
blueprint get <name>
blueprint list [--tag]
blueprint update <name> [--file] [--revision]
blueprint delete <name> [--revision]
blueprint bom <name> [--quantity]
revision list <blueprint>
revision get <blueprint> <number>
revision restore <blueprint> <number> [--revision]
revision submit <blueprint> <number> [--rules-file]
revision approve <blueprint> <number> --by [--rules-file]
revision reject <blueprint> <number> --by
revision release <blueprint> <number> [--rules-file]
unit list [--dimension]
unit get <name>
unit create [--file]
unit delete <name>
unit convert <quantity> <from> <to>
item create [--file]
item get <name>
item list [--dimension]
item delete <name>
module create [--file]
module get <name>
module list
module update <name> [--file]
module delete <name>
stock add <item> <quantity> [--unit]
stock remove <item> <quantity> [--unit]
stock get <item>
stock list
allocation create <blueprint> [--quantity] [--revision] [--rules-file]
allocation get <id>
allocation list [--status] [--blueprint]
allocation consume <id>
allocation release <id>`;
/** The first character of a part of a usage line -> the list of the command's it names an entry of. */
const PARTS = { '<': 'arguments', '[': 'options', '-': 'required' };
/** Options every command takes. */
const EVERYWHERE = ['data-dir', 'config'];

/** The command a line of USAGE describes, as `[key, {line, run, arguments, options, required}]`. */
function described(line) {
  const [resource, name, ...parts] = line.split(' ');
  const command = { line, run: HANDLERS[resource][name], arguments: [], options: [], required: [] };
  for (const part of parts) command[PARTS[part[0]]].push(part.match(/[a-z][a-z-]*/)[0]);
  return [`${resource} ${name}`, command];
}

const COMMANDS = new Map(USAGE.trim().split('\n').map(described));
const OPTIONS = new Set([...EVERYWHERE, ...[...COMMANDS.values()].flatMap((command) => [...command.options,
  ...command.required])]);

/**
 * The command the words name, checked against its arguments and options.
 * @throws usage_error for a missing `--data-dir`, an unknown command, an option it does not take or needs, or a
 *   wrong number of arguments
 */
function resolve({ words, options }) {
  if (options['data-dir'] === undefined) throw usage('--data-dir is required');
  if (words.length < 2) throw usage('expected a resource and a command');
  const key = words.slice(0, 2).join(' ');
  const command = COMMANDS.get(key);
  if (!command) throw usage(`unknown command: ${key}`);
  const taken = [...EVERYWHERE, ...command.options, ...command.required];
  const extra = Object.keys(options).filter((name) => !taken.includes(name));
  if (extra.length) throw usage(`--${extra.sort()[0]} is not an option of: ${command.line}`);
  const missing = command.required.filter((name) => !Object.hasOwn(options, name));
  if (missing.length) throw usage(`--${missing[0]} is required: ${command.line}`);
  if (words.length - 2 !== command.arguments.length) throw usage(`wrong number of arguments: ${command.line}`);
  return command;
}

/** Run `command` on the data directory under the contract `--config` selects; returns what it prints. */
function execute({ words, options }, command) {
  const store = new Store(options['data-dir']);
  options.strict = loadContract(options) === 2;
  const result = command.run(store, words.slice(2), options);
  store.save();
  return result;
}

/**
 * Run one invocation: one JSON document on standard output, or an error envelope on standard error.
 * @param {string[]} argv the command line after the entry command
 * @returns {number} the exit status
 */
function main(argv) {
  try {
    const parsed = parse(argv, OPTIONS);
    process.stdout.write(`${JSON.stringify(execute(parsed, resolve(parsed)), null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ForgeError)) throw error;
    process.stderr.write(`${JSON.stringify(error.envelope())}\n`);
    return error.exitStatus;
  }
}

module.exports = { main };
