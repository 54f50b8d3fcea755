'use strict';
// Versioned configuration service: immutable versions, scopes, rollback, includes.

const http = require('node:http');

const MAX_BODY = 1024 * 1024;
const MAX_VERSIONS = 10000;
const MAX_CHAIN = 64;

class ApiError extends Error {
  constructor(status, code, message, details = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }

  body() {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

const badInput = (message) => new ApiError(400, 'invalid_input', message);
const notFound = (message) => new ApiError(404, 'not_found', message);
const conflict = (message) => new ApiError(409, 'conflict', message);
const tooDeep = () => new ApiError(422, 'unprocessable', 'include chain too long', { reason: 'max_depth' });

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// ------------------------------------------------------------------ input checks

function requireObject(value, field) {
  if (!isObject(value)) throw badInput(`${field} must be a JSON object`);
  return value;
}

function positiveInt(value, field) {
  const parsed = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
  if (!Number.isInteger(parsed) || parsed <= 0) throw badInput(`${field} must be a positive integer`);
  return parsed;
}

function optionalVersion(body, field = 'version') {
  const value = body[field];
  return value === undefined || value === null ? null : positiveInt(value, field);
}

function parseScope(value, field = 'scope') {
  const scope = requireObject(value, field);
  if (!Object.values(scope).every((v) => typeof v === 'string')) throw badInput(`${field} values must be strings`);
  return Object.fromEntries(Object.keys(scope).sort().map((k) => [k, scope[k]]));
}

function optionalBool(body, field) {
  const value = body[field] === undefined ? false : body[field];
  if (typeof value !== 'boolean') throw badInput(`${field} must be a boolean`);
  return value;
}

function parseInclude(item) {
  const ref = requireObject(item, 'include');
  if (typeof ref.name !== 'string' || ref.name === '') throw badInput('include name must be a non-empty string');
  return { name: ref.name, scope: parseScope(ref.scope, 'include scope'), version: optionalVersion(ref) };
}

function parseIncludes(value) {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw badInput('includes must be a list');
  return value.map(parseInclude);
}

// ------------------------------------------------------------------ deep merge

const pointer = (path) => path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

const kindsClash = (left, right) =>
  isObject(left) !== isObject(right) || Array.isArray(left) !== Array.isArray(right);

function mergeValue(left, right, path) {
  if (isObject(left) && isObject(right)) return deepMerge(left, right, path);
  if (kindsClash(left, right)) {
    throw new ApiError(422, 'unprocessable', 'incompatible types while merging', { path: pointer(path) });
  }
  return right;
}

function deepMerge(left, right, path = []) {
  const merged = { ...left };
  for (const [key, value] of Object.entries(right)) {
    merged[key] = Object.hasOwn(merged, key) ? mergeValue(merged[key], value, [...path, key]) : value;
  }
  return merged;
}

// ------------------------------------------------------------------ storage

class Pair {
  constructor(name, scope) {
    this.name = name;
    this.scope = scope;
    this.versions = [];
    this.active = null;
    this.seen = new Map();
  }

  get(version) {
    return version >= 1 && version <= this.versions.length ? this.versions[version - 1] : null;
  }

  summary(version) {
    return { name: this.name, scope: this.scope, version, active: version === this.active };
  }

  detail(version) {
    const record = this.get(version);
    return { ...this.summary(version), config: record.config, includes: record.includes };
  }
}

class Store {
  constructor() {
    this.pairs = new Map();
  }

  find(name, scope) {
    return this.pairs.get(canonical([name, scope])) || null;
  }

  pair(name, scope) {
    const found = this.find(name, scope);
    if (!found) throw notFound(`no config ${JSON.stringify(name)} for this scope`);
    return found;
  }

  versionOf(name, scope, version) {
    const pair = this.pair(name, scope);
    if (version === null) return pair.active;
    if (!pair.get(version)) throw notFound(`version ${version} of ${JSON.stringify(name)} does not exist`);
    return version;
  }

  create(name, scope, config, includes, inherit) {
    const key = canonical([config, includes, inherit]);
    const pairKey = canonical([name, scope]);
    if (!this.pairs.has(pairKey)) this.pairs.set(pairKey, new Pair(name, scope));
    const pair = this.pairs.get(pairKey);
    if (pair.seen.has(key)) return [pair.summary(pair.seen.get(key)), false];
    if (pair.versions.length >= MAX_VERSIONS) throw conflict('version limit reached for this config');
    const base = inherit && pair.active ? pair.get(pair.active) : null;
    let stored = { config, includes: includes || [] };
    if (base) stored = { config: deepMerge(base.config, config), includes: includes === null ? base.includes : includes };
    pair.versions.push(stored);
    pair.active = pair.versions.length;
    pair.seen.set(key, pair.active);
    return [pair.summary(pair.active), true];
  }
}

class Resolver {
  constructor(store) {
    this.store = store;
    this.graph = [];
    this.done = new Map();
    this.stack = [];
  }

  includeVersion(ref) {
    return ref.version !== null ? ref.version : this.store.pair(ref.name, ref.scope).active;
  }

  resolve(name, scope, version) {
    const key = canonical([name, scope, version]);
    if (this.done.has(key)) return this.done.get(key);
    if (this.stack.includes(key)) throw new ApiError(409, 'cycle_detected', `include cycle through ${name} v${version}`);
    if (this.stack.length >= MAX_CHAIN) throw tooDeep();
    const record = this.store.pair(name, scope).get(version);
    if (!record) throw notFound(`version ${version} of ${JSON.stringify(name)} does not exist`);
    this.stack.push(key);
    let merged = {};
    for (const ref of record.includes) {
      merged = deepMerge(merged, this.resolve(ref.name, ref.scope, this.includeVersion(ref)));
    }
    merged = deepMerge(merged, record.config);
    this.stack.pop();
    this.record(key, { name, scope, version_used: version }, merged);
    return merged;
  }

  record(key, node, merged) {
    if (this.graph.length >= MAX_CHAIN) throw tooDeep();
    this.graph.push(node);
    this.done.set(key, merged);
  }
}

// ------------------------------------------------------------------ endpoints

class Service {
  constructor() {
    this.store = new Store();
  }

  create(name, body) {
    const config = requireObject(body.config, 'config');
    const [summary, created] = this.store.create(name, parseScope(body.scope), config,
      parseIncludes(body.includes), optionalBool(body, 'inherits_active'));
    return [created ? 201 : 200, summary];
  }

  versions(name, body) {
    const pair = this.store.pair(name, parseScope(body.scope));
    const listed = pair.versions.map((_, i) => ({ version: i + 1, active: i + 1 === pair.active }));
    return [200, { name, scope: pair.scope, versions: listed }];
  }

  active(name, body) {
    const pair = this.store.pair(name, parseScope(body.scope));
    return [200, pair.detail(pair.active)];
  }

  getVersion(name, version, body) {
    const scope = parseScope(body.scope);
    return [200, this.store.pair(name, scope).detail(this.store.versionOf(name, scope, version))];
  }

  activate(name, version, body) {
    const pair = this.store.pair(name, parseScope(body.scope));
    if (!pair.get(version)) throw conflict(`version ${version} does not exist for this config`);
    pair.active = version;
    return [200, pair.summary(version)];
  }

  rollback(name, body) {
    const target = positiveInt(body.to_version, 'to_version');
    const pair = this.store.pair(name, parseScope(body.scope));
    if (target > pair.active) throw conflict('rollback target must not be newer than the active version');
    return this.activate(name, target, body);
  }

  resolve(name, body) {
    const scope = parseScope(body.scope);
    const version = optionalVersion(body);
    optionalBool(body, 'dry_run');
    const used = this.store.versionOf(name, scope, version);
    const resolver = new Resolver(this.store);
    const resolved = resolver.resolve(name, scope, used);
    return [200, { name, scope, version_used: used, resolved_config: resolved, resolution_graph: resolver.graph }];
  }
}

const NAME_ACTIONS = new Map([[null, 'create'], ['versions', 'versions'], ['active', 'active'],
  ['rollback', 'rollback'], ['resolve', 'resolve']]);

function splitAction(segment) {
  const at = segment.indexOf(':');
  if (at < 0) return [decodeURIComponent(segment), null];
  return [decodeURIComponent(segment.slice(0, at)), segment.slice(at + 1)];
}

function routeVersion(service, name, segment, body) {
  const [versionText, action] = splitAction(segment);
  const version = positiveInt(versionText, 'version');
  if (action === null) return service.getVersion(name, version, body);
  if (action === 'activate') return service.activate(name, version, body);
  throw notFound('unknown endpoint');
}

function route(service, path, body) {
  const parts = path.split('/');
  if (![4, 5].includes(parts.length) || parts[1] !== 'v1' || parts[2] !== 'configs') throw notFound('unknown endpoint');
  const [name, action] = splitAction(parts[3]);
  if (!name) throw notFound('unknown endpoint');
  if (parts.length === 4 && NAME_ACTIONS.has(action)) return service[NAME_ACTIONS.get(action)](name, body);
  if (parts.length === 5 && action === null) return routeVersion(service, name, parts[4], body);
  throw notFound('unknown endpoint');
}

// ------------------------------------------------------------------ HTTP

function send(res, status, payload) {
  const data = Buffer.from(`${canonical(payload)}\n`, 'utf8');
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': data.length });
  res.end(data);
}

function parseBody(raw, size) {
  if (size > MAX_BODY) throw new ApiError(413, 'too_large', 'request body exceeds 1 MiB');
  if (raw.length === 0) return {};
  let body;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badInput('request body is not valid JSON');
  }
  return requireObject(body, 'request body');
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve([Buffer.concat(chunks), size]));
    req.on('error', reject);
  });
}

function answer(res, work) {
  try {
    send(res, ...work());
  } catch (err) {
    const error = err instanceof ApiError ? err : new ApiError(500, 'internal', String(err));
    send(res, error.status, error.body());
  }
}

function handle(service, req, res, raw, size) {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (req.method === 'GET' && path === '/healthz') return send(res, 200, { ok: true });
  if (req.method === 'POST') return answer(res, () => route(service, path, parseBody(raw, size)));
  if (path.startsWith('/v1/')) {
    return send(res, 405, new ApiError(405, 'method_not_allowed', `${req.method} is not supported here`).body());
  }
  return send(res, 404, notFound('unknown endpoint').body());
}

function parseArgs(argv) {
  const options = { address: '0.0.0.0', port: 8080 };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--address') options.address = argv[i + 1];
    else if (argv[i] === '--port') options.port = Number(argv[i + 1]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return options;
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const service = new Service();
  const server = http.createServer((req, res) => {
    readBody(req).then(([raw, size]) => handle(service, req, res, raw, size), () => res.destroy());
  });
  server.listen(options.port, options.address);
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
