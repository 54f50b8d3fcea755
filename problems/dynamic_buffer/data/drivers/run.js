// scbench's JavaScript driver: uses the generated module dynamic_js_buffer on a data file and prints each row
// as one JSON line, numbers written as text rounded to 6 decimal places (a whole number without decimals).
"use strict";

const { DynamicPreprocessor } = require("./dynamic_js_buffer");

function shown(value) {
  if (typeof value !== "number") return value;
  const rounded = Math.round(value * 1e6) / 1e6;
  return Number.isInteger(rounded) ? rounded.toFixed(0) : String(rounded);
}

const options = { buffer: 1024, cache_dir: null, stop_after: null };
const positional = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, "");
  if (argv[i].startsWith("--") && name in options) options[name] = argv[++i];
  else positional.push(argv[i]);
}

const cacheDir = options.cache_dir;
const preprocessor = new DynamicPreprocessor({ buffer: Number(options.buffer), cacheDir, cache_dir: cacheDir });
let count = 0;
for (const row of preprocessor.process(positional[0])) {
  const out = {};
  for (const [key, value] of Object.entries(row)) out[key] = shown(value);
  console.log(JSON.stringify(out));
  count += 1;
  if (options.stop_after !== null && count >= Number(options.stop_after)) break;
}
