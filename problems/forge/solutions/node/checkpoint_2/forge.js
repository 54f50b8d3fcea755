#!/usr/bin/env node
// forge: a command-line catalogue of manufacturing blueprints kept in a data directory.
'use strict';

const { main } = require('./forgelib/cli');

process.exitCode = main(process.argv.slice(2));
