'use strict';
// Recipe and invention reports from an EVE Online static data export (bzip2-compressed CSV tables).

const fs = require('fs');
const path = require('path');
const Bunzip = require('seek-bzip');
const { parse } = require('csv-parse/sync');

const MANUFACTURING = 1;
const REVERSE_ENGINEERING = 7;
const INVENTION = 8;
const REACTIONS = 11;

// name, probability multiplier (percent), runs, ME, TE; None first, then by name
const DECRYPTORS = [
  ['None', 0, 0, 0, 0],
  ['Accelerant Decryptor', 20, 1, 2, 10],
  ['Attainment Decryptor', 80, 4, -1, 4],
  ['Augmentation Decryptor', -40, 9, -2, 2],
  ['Optimized Attainment Decryptor', 90, 2, 1, -2],
  ['Optimized Augmentation Decryptor', -10, 7, 2, 0],
  ['Parity Decryptor', 50, 3, 1, -2],
  ['Process Decryptor', 10, 0, 3, 6],
  ['Symmetry Decryptor', 0, 2, 1, 8],
];
// relic quality -> [base chance in percent, base runs], in output order
const RELICS = { Intact: [26, 20], Malfunctioning: [21, 10], Wrecked: [14, 3] };

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
    this.skills = new Map();
    for (const r of readTable(root, 'industryActivitySkills')) {
      push(this.skills, `${r.typeID}/${r.activityID}`, Number(r.skillID));
    }
    this.probabilities = new Map(readTable(root, 'industryActivityProbabilities').map((r) =>
      [`${r.typeID}/${r.activityID}/${r.productTypeID}`, r.probability.trim()]));
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

// a decimal probability text as a fraction [numerator, denominator] of BigInts
function fraction(text) {
  const [whole, decimals = ''] = text.split('.');
  return [BigInt(whole + decimals), 10n ** BigInt(decimals.length)];
}

// the success chance in percent, clamped to 100, rounded half up to two decimals
function chance([num, den], science, level, multiplier) {
  // base * (1 + S*L/30 + L/40) * (1 + m/100) = base * (120 + 4*S*L + 3*L)/120 * (100 + m)/100
  let n = num * BigInt(120 + 4 * science * level + 3 * level) * BigInt(100 + multiplier);
  let d = den * 120n * 100n;
  if (n > d) n = d;
  const cents = (n * 10000n * 2n + d) / (2n * d);
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}

function inventionTarget(sde, name) {
  const id = lookup(sde, name);
  const made = sde.productOf(id, [MANUFACTURING]);
  const product = made ? made.product : id;
  if (techLevel(sde, product) === 'Tech I') throw new Failure(`${name} is not a Tech II or Tech III item`);
  const makers = sde.makersOf(product, [MANUFACTURING]);
  if (!makers.length) throw new Failure(`no blueprint manufactures ${name}`);
  return [product, makers[0].blueprint];
}

function common(sde, source, activity) {
  const key = `${source}/${activity}`;
  const cores = (sde.materials.get(key) || []).map(([m, q]) => [sde.name(m), q])
    .filter(([n]) => n.startsWith('Datacore - '));
  cores.sort((a, b) => byFold(a[0], b[0]));
  const skills = (sde.skills.get(key) || []).map((s) => sde.name(s));
  const science = skills.filter((s) => !s.includes('Encryption')).length;
  skills.sort(byFold);
  const lines = [`Datacores: ${cores.map(([n]) => n).join(', ')}`, `Required Per Run: ${cores[0][1]}`,
    `Skills: ${skills.join(', ')}`, `Time: ${minutes(sde.times.get(key))}`, 'Probabilities:'];
  return [lines, science];
}

const quality = (name) => name.split(/\s+/).find((word) => word in RELICS);

function techThree(sde, sources, level) {
  const order = Object.keys(RELICS);
  const relics = sources.filter((s) => quality(sde.name(s.blueprint)));
  if (!relics.length) throw new Failure('no relic invents this item');
  relics.sort((a, b) => {
    const x = sde.name(a.blueprint);
    const y = sde.name(b.blueprint);
    return order.indexOf(quality(x)) - order.indexOf(quality(y)) || byFold(x, y);
  });
  const [lines, science] = common(sde, relics[0].blueprint, relics[0].activity);
  lines.push('| Invented From | Decryptor | Probability | Runs | ME | TE |', '|---|---|---|---|---|---|');
  for (const relic of relics) {
    const name = sde.name(relic.blueprint);
    const [base, runs] = RELICS[quality(name)];
    for (const [dec, mult, dRuns, dMe, dTe] of DECRYPTORS) {
      const prob = chance([BigInt(base), 100n], science, level, mult);
      lines.push(`| ${name} | ${dec} | ${prob} | ${runs + dRuns} | ${2 + dMe} | ${4 + dTe} |`);
    }
  }
  return lines;
}

function invention(sde, name, level) {
  const [product, blueprint] = inventionTarget(sde, name);
  const sources = sde.makersOf(blueprint, [INVENTION, REVERSE_ENGINEERING]);
  if (!sources.length) throw new Failure(`nothing invents ${name}`);
  const lines = [...header(sde, product), '', 'Invention:'];
  if (techLevel(sde, product) === 'Tech III') return lines.concat(techThree(sde, sources, level));
  const source = sources[0];
  const base = sde.probabilities.get(`${source.blueprint}/${source.activity}/${blueprint}`);
  if (base === undefined) throw new Failure(`no invention probability for ${name}`);
  lines.push(`Base: ${sde.name(source.blueprint)} (${source.blueprint})`);
  const [block, science] = common(sde, source.blueprint, source.activity);
  lines.push(...block, '| Decryptor | Probability | Runs | ME | TE |', '|---|---|---|---|---|');
  for (const [dec, mult, dRuns, dMe, dTe] of DECRYPTORS) {
    const prob = chance(fraction(base), science, level, mult);
    lines.push(`| ${dec} | ${prob} | ${source.quantity + dRuns} | ${2 + dMe} | ${4 + dTe} |`);
  }
  return lines;
}

function parseArgs(argv) {
  const options = { skill: 5, sde: null };
  const positional = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--sde' || argv[i] === '--skill') {
      if (i + 1 >= argv.length) throw new Failure(`${argv[i]} needs a value`);
      const value = argv[i + 1];
      if (argv[i] === '--sde') {
        options.sde = value;
      } else {
        if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 5) {
          throw new Failure('skill level must be an integer from 1 to 5');
        }
        options.skill = Number(value);
      }
      i += 1;
    } else {
      positional.push(argv[i]);
    }
  }
  const commands = ['recipe', 'invention'];
  if (positional.length !== 2 || options.sde === null || !commands.includes(positional[0])) {
    throw new Failure('usage: industry recipe|invention <name> --sde <directory> [--skill <1-5>]');
  }
  [options.command, options.name] = positional;
  return options;
}

function main(argv) {
  try {
    const options = parseArgs(argv);
    const sde = new Sde(options.sde);
    const lines = options.command === 'recipe' ? recipe(sde, options.name) : invention(sde, options.name, options.skill);
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    process.stderr.write(`ERROR: ${err.message}\n`);
    process.exitCode = 1;
  }
}

main(process.argv.slice(2));
