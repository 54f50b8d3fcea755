'use strict';
// The command line's words and options: options anywhere, written `--name value` or `--name=value`.
// util.parseArgs cannot take a negative number (`-0.5`) as an argument or as an option's value, hence this.

const { usage } = require('./errors');

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** Whether `word` is written as an option: it starts with `-` and is neither `-` nor a negative number. */
const isOption = (word) => word.startsWith('-') && word !== '-' && !NEGATIVE_NUMBER.test(word);

/** The name and value of the option `word`, its value inline or the next word of `rest`. */
function option(word, rest, known) {
  const [flag, ...inline] = word.split('=');
  const name = flag.slice(2);
  if (!flag.startsWith('--') || !known.has(name)) throw usage(`unknown option ${flag}`);
  const value = inline.length ? inline.join('=') : rest.next().value;
  if (!value || (!inline.length && isOption(value))) throw usage(`${flag} needs a value, which may not be empty`);
  return [name, value];
}

/**
 * The words and options of `argv`.
 * @param {string[]} argv the command line after the entry command
 * @param {Set<string>} known the option names (without `--`) that exist
 * @returns {{words: string[], options: Object<string, string>}} options by name; a repeated one keeps its last value
 * @throws usage_error for an unknown option or one without its value (an empty one has none)
 */
function parse(argv, known) {
  const words = [];
  const options = {};
  const rest = argv[Symbol.iterator]();
  for (const word of rest) {
    if (isOption(word)) {
      const [name, value] = option(word, rest, known);
      options[name] = value;
    } else {
      words.push(word);
    }
  }
  return { words, options };
}

module.exports = { parse };
