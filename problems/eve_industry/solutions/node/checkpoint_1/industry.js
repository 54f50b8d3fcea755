'use strict';
// Recipe reports from an EVE Online static data export (bzip2-compressed CSV tables).

const fs = require('fs');
const path = require('path');
const Bunzip = require('seek-bzip');
const { parse } = require('csv-parse/sync');

const MANUFACTURING = 1;
const REACTIONS = 11;

class Failure extends Error {}

function optional(text) {
  const value = (text || '').trim();
  return value === '' || value === 'None' ? null : Number(value);
}

function readTable(root, table) {
  const file = path.join(root, `${table}.csv.bz2`);
  let text;
  try {
    text = Bunzip.decode(fs.readFileSync(file)).toString('utf8');
  } catch (err) {
    throw new Failure(`cannot read ${file}: ${err.message}`);
  }
  return parse(text, { columns: true, skip_empty_lines: true, relax_column_count: true });
}

function push(map, key, value) {
  if (!map.has(key)) map.set(key, []);
  map.get(key).push(value);
}

class Sde {
  constructor(root) {
    this.root = root;
    this.types = new Map();
    this.byName = new Map();
    for (const r of readTable(root, 'invTypes')) {
      const id = Number(r.typeID);
      const row = { name: r.typeName, group: Number(r.groupID), volume: Number(r.volume),
        published: r.published.trim() === '1', marketGroup: optional(r.marketGroupID) };
      this.types.set(id, row);
      if (row.published) this.byName.set(row.name, id);
    }
    const categories = new Map(readTable(root, 'invCategories').map((r) => [Number(r.categoryID), r.categoryName]));
    this.groups = new Map(readTable(root, 'invGroups').map((r) =>
      [Number(r.groupID), [categories.get(Number(r.categoryID)) || '', r.groupName]]));
    this.market = new Map(readTable(root, 'invMarketGroups').map((r) =>
      [Number(r.marketGroupID), { name: r.marketGroupName, parent: optional(r.parentGroupID) }]));
    this.metaTypes = new Map(readTable(root, 'invMetaTypes').map((r) => [Number(r.typeID), optional(r.metaGroupID)]));
    this.metaGroups = new Map(readTable(root, 'invMetaGroups').map((r) => [Number(r.metaGroupID), r.metaGroupName]));
    this.times = new Map(readTable(root, 'industryActivity').map((r) => [`${r.typeID}/${r.activityID}`, Number(r.time)]));
    this.products = readTable(root, 'industryActivityProducts').map((r) => ({
      blueprint: Number(r.typeID), activity: Number(r.activityID),
      product: Number(r.productTypeID), quantity: Number(r.quantity) }));
    this.materials = new Map();
    for (const r of readTable(root, 'industryActivityMaterials')) {
      push(this.materials, `${r.typeID}/${r.activityID}`, [Number(r.materialTypeID), Number(r.quantity)]);
    }
  }

  shipVolumes() {
    const volumes = new Map();
    const text = fs.readFileSync(path.join(this.root, 'ship_volumes.yaml'), 'utf8');
    for (const line of text.split('\n')) {
      const cut = line.lastIndexOf(':');
      if (line.trim().startsWith('#') || cut < 0) continue;
      volumes.set(line.slice(0, cut).trim(), Number(line.slice(cut + 1)));
    }
    return volumes;
  }

  name(id) {
    return this.types.get(id).name;
  }

  // the first product row of a blueprint for one of the activities, tried in order
  productOf(blueprint, activities) {
    for (const activity of activities) {
      const row = this.products.find((p) => p.blueprint === blueprint && p.activity === activity);
      if (row) return row;
    }
    return null;
  }

  makersOf(product, activities) {
    return this.products.filter((p) => p.product === product && activities.includes(p.activity));
  }

  buildable(id) {
    return this.makersOf(id, [MANUFACTURING, REACTIONS]).length > 0;
  }
}

function techLevel(sde, id) {
  const name = sde.metaGroups.get(sde.metaTypes.get(id)) || '';
  if (name.includes('Tech III')) return 'Tech III';
  if (name.includes('Tech II')) return 'Tech II';
  return 'Tech I';
}

function marketPath(sde, groupId) {
  const names = [];
  let id = groupId;
  while (id !== null && sde.market.has(id)) {
    const group = sde.market.get(id);
    names.unshift(group.name);
    id = group.parent;
  }
  return names.length ? names.join(' > ') : 'None';
}

function header(sde, id) {
  const type = sde.types.get(id);
  const [category, group] = sde.groups.get(type.group);
  return [`ITEM: ${type.name} (${id})`, `Group: ${category} > ${group}`,
    `Market Group: ${marketPath(sde, type.marketGroup)}`, `Tech Level: ${techLevel(sde, id)}`];
}

function lookup(sde, name) {
  if (!sde.byName.has(name)) throw new Failure(`item not found: ${name}`);
  return sde.byName.get(name);
}

const minutes = (seconds) => Math.ceil(seconds / 60);
const byFold = (a, b) => {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
};

function recipe(sde, name) {
  const id = lookup(sde, name);
  let row = sde.productOf(id, [MANUFACTURING, REACTIONS]);
  if (!row) {
    const makers = sde.makersOf(id, [MANUFACTURING]);
    row = makers.length ? makers[0] : sde.makersOf(id, [REACTIONS])[0];
    if (!row) throw new Failure(`no recipe produces ${name}`);
  }
  const product = sde.types.get(row.product);
  if (!product.published) throw new Failure(`${name} makes an unpublished type`);
  const groupName = sde.groups.get(product.group)[1];
  const volumes = sde.shipVolumes();
  const volume = volumes.has(groupName) ? volumes.get(groupName) : product.volume;
  const key = `${row.blueprint}/${row.activity}`;
  const lines = [...header(sde, row.product), `Volume: ${volume}`, '', 'Recipe:',
    `Activity: ${row.activity === REACTIONS ? 'Reactions' : 'Manufacturing'}`,
    `Output Quantity: ${row.quantity}`, `Run Time: ${minutes(sde.times.get(key))}`,
    '| Item | Quantity | Buildable |', '|---|---|---|'];
  const materials = (sde.materials.get(key) || []).filter(([m]) => sde.types.get(m)?.published)
    .map(([m, q]) => [sde.name(m), q, sde.buildable(m)]);
  materials.sort((a, b) => byFold(a[0], b[0]));
  for (const [mat, q, buildable] of materials) lines.push(`| ${mat} | ${q} | ${buildable ? 'Yes' : 'No'} |`);
  return lines;
}

function parseArgs(argv) {
  const options = { sde: null };
  const positional = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--sde') {
      if (i + 1 >= argv.length) throw new Failure('--sde needs a value');
      options.sde = argv[i + 1];
      i += 1;
    } else {
      positional.push(argv[i]);
    }
  }
  if (positional.length !== 2 || options.sde === null || positional[0] !== 'recipe') {
    throw new Failure('usage: industry recipe <name> --sde <directory>');
  }
  [options.command, options.name] = positional;
  return options;
}

function main(argv) {
  try {
    const options = parseArgs(argv);
    const sde = new Sde(options.sde);
    const lines = recipe(sde, options.name);
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    process.stderr.write(`ERROR: ${err.message}\n`);
    process.exitCode = 1;
  }
}

main(process.argv.slice(2));
