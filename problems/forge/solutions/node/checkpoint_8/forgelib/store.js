'use strict';
// The state of one data directory: one JSON file, read at start and replaced atomically.

const fs = require('fs');
const path = require('path');
const { usage } = require('./errors');

const STATE_FILE = 'forge-state.json';

/** Collections of records, persisted under a data directory; `scope` is the scope the invocation acts in. */
class Store {
  /** @throws usage_error when `dataDir` exists and is not a directory */
  constructor(dataDir, scope = 'default') {
    this.root = path.resolve(dataDir);
    this.scope = scope;
    if (fs.existsSync(this.root) && !fs.statSync(this.root).isDirectory()) {
      throw usage(`--data-dir ${dataDir} is not a directory`);
    }
    const file = path.join(this.root, STATE_FILE);
    this.state = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  }

  /** The records of `kind`, by name (or in a list when `empty` is `[]`), created `empty` on first use. */
  collection(kind, empty = {}) {
    this.state[kind] ??= empty;
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
