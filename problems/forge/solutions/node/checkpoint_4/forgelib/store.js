'use strict';
// The state of one data directory: one JSON file, read at start and replaced atomically.

const fs = require('fs');
const path = require('path');
const { usage } = require('./errors');

const STATE_FILE = 'forge-state.json';

/** Collections of records by name, persisted under a data directory. */
class Store {
  /** @throws usage_error when `dataDir` exists and is not a directory */
  constructor(dataDir) {
    this.root = path.resolve(dataDir);
    if (fs.existsSync(this.root) && !fs.statSync(this.root).isDirectory()) {
      throw usage(`--data-dir ${dataDir} is not a directory`);
    }
    const file = path.join(this.root, STATE_FILE);
    this.state = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  }

  /** The records of `kind` by name (created empty on first use). */
  collection(kind) {
    this.state[kind] ??= {};
    return this.state[kind];
  }

  /** Write the state back, creating the data directory (with its parents) when needed. */
  save() {
    fs.mkdirSync(this.root, { recursive: true });
    const temporary = path.join(this.root, `${STATE_FILE}.tmp`);
    fs.writeFileSync(temporary, JSON.stringify(this.state));
    fs.renameSync(temporary, path.join(this.root, STATE_FILE));
  }
}

module.exports = { Store };
