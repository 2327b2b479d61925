// Protocol v1 as data: the same protocol/v1/*.json files the server and the Python
// client load (index.json: message types, error codes, close codes, limits; one JSON
// Schema per message; games/: each game's actions, views, events and options).
//
// `loadProtocol(read)` takes an async `read(fileName) -> Uint8Array` so it works from
// a URL in the browser (`fromUrl('/protocol/v1/')`) and from the repo in node.  The
// Protocol validates messages against the schemas (the subset of JSON Schema 2020-12
// the files use) and computes the schema-set fingerprint the server announces in its
// hello reply, so a client can tell it speaks the same wire.

import { digestSHA256, hex } from './viewhash.js';

const utf8 = new TextDecoder();

/** A message that breaks the protocol (before it is sent, or as received). */
export class ProtocolError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
  }
}

/**
 * `read` for files served over HTTP under `base` (e.g. "/protocol/v1/"; a relative base
 * resolves against the page's URL).  `fetchImpl` is a fetch function, never a URL.
 */
export function fromUrl(base, fetchImpl = globalThis.fetch) {
  if (typeof fetchImpl !== 'function') throw new TypeError('fromUrl(base, fetchImpl): fetchImpl must be a fetch function');
  const root = new URL(base, globalThis.location?.href);
  return async (name) => {
    const response = await fetchImpl(new URL(name, root));
    if (!response.ok) throw new Error(`GET ${name}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
}

/** Load index.json and every schema it names; returns a Protocol. */
export async function loadProtocol(read) {
  const raw = { 'index.json': await read('index.json') };
  const index = JSON.parse(utf8.decode(raw['index.json']));
  const files = new Set(Object.values(index.messages).map((m) => m.schema));
  files.add(index.table_view);
  if (index.game_record) files.add(index.game_record);
  for (const refs of Object.values(index.games ?? {})) {
    for (const kind of GAME_SCHEMA_KINDS) files.add(refs[kind].split('#')[0]);
  }
  await Promise.all(
    [...files].map(async (name) => {
      raw[name] = await read(name);
    }),
  );
  const parse = (name) => JSON.parse(utf8.decode(raw[name]));
  const schemas = {};
  for (const [type, meta] of Object.entries(index.messages)) schemas[type] = parse(meta.schema);
  const games = {};
  for (const [game, refs] of Object.entries(index.games ?? {})) {
    games[game] = {};
    for (const kind of GAME_SCHEMA_KINDS) {
      const [name, fragment] = refs[kind].split('#');
      // A fragment names a part of the file; the whole file stays the root of its $refs.
      games[game][kind] = fragment ? { ...parse(name), $ref: `#${fragment}` } : parse(name);
    }
  }
  games[''] = { table_view: parse(index.table_view) };
  return new Protocol(index, schemas, await fingerprint(raw), games);
}

/** What index.json `games.<id>` names a schema for (as codec.py GAME_SCHEMA_KINDS). */
export const GAME_SCHEMA_KINDS = ['action', 'player_view', 'spectator_view', 'event', 'options'];

/** 16 hex of SHA-256 over every file: name, NUL, bytes, NUL -- sorted by name (as codec.py). */
async function fingerprint(raw) {
  const parts = [];
  const enc = new TextEncoder();
  for (const name of Object.keys(raw).sort()) {
    parts.push(enc.encode(name), Uint8Array.of(0), raw[name], Uint8Array.of(0));
  }
  const total = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    total.set(part, at);
    at += part.length;
  }
  return hex(await digestSHA256(total)).slice(0, 16);
}

export class Protocol {
  constructor(index, schemas, fingerprint, games = {}) {
    this.index = index;
    this.games = games;
    this.version = index.version;
    this.schemas = schemas;
    this.fingerprint = fingerprint;
    this.errorCodes = index.error_codes;
    this.closeCodes = index.close_codes;
    this.limits = index.limits;
    this.subprotocols = Object.keys(index.subprotocols);
  }

  /** Message types sent in `direction` ("client_to_server" | "server_to_client"). */
  messageTypes(direction) {
    return Object.entries(this.index.messages)
      .filter(([, meta]) => meta.direction === direction)
      .map(([type]) => type);
  }

  /** Throw ProtocolError("bad_message") unless `msg` is valid for its schema. */
  validate(msg) {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      throw new ProtocolError('bad_message', 'a message must be a map with a "t" field');
    }
    const schema = this.schemas[msg.t];
    if (!schema) throw new ProtocolError('unknown_type', `unknown message type ${JSON.stringify(msg.t)}`);
    const problem = check(schema, msg, '');
    if (problem) throw new ProtocolError('bad_message', `${msg.t}: ${problem}`);
  }

  /**
   * Throw ProtocolError("bad_action") unless `action` fits `game`'s action schema --
   * the check the hub makes before a game sees the action.  A game without schemas
   * passes (its engine decides).
   */
  validateAction(game, action) {
    const schema = this.games[game]?.action;
    if (!schema) return;
    const problem = check(schema, action, '', 'action');
    if (problem) throw new ProtocolError('bad_action', problem);
  }

  /**
   * First violation of `value` against `game`'s schema of `kind` (GAME_SCHEMA_KINDS,
   * or "table_view" with any game) as "path: reason", or null.
   */
  checkGameValue(game, kind, value) {
    const schema = kind === 'table_view' ? this.games[''].table_view : this.games[game]?.[kind];
    if (!schema) return `no ${kind} schema for game ${JSON.stringify(game)}`;
    return check(schema, value, '', kind);
  }

  /** A person's explanation of an error code, from index.json. */
  explain(code) {
    return this.errorCodes[code] ?? code;
  }
}

function typeOk(type, value) {
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return false;
  }
}

/** The schema a local `$ref` ("#/$defs/name") points to inside `root`. */
function resolve(root, ref) {
  if (!ref.startsWith('#')) throw new Error(`only local $ref are supported, not ${ref}`);
  let node = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    node = node[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    if (node === undefined) throw new Error(`$ref ${ref} points nowhere`);
  }
  return node;
}

/**
 * First violation of `schema` by `value` as "path: reason", or null.  The subset of
 * JSON Schema the protocol files use (keywords common to drafts 7 and 2020-12); a
 * `$ref` (local) replaces its sibling keywords, as in draft 7.  `root` resolves $ref.
 */
export function check(schema, value, path, name = 'message', root = schema) {
  if (schema.$ref !== undefined) return check(resolve(root, schema.$ref), value, path, name, root);
  const at = path ? `${name}${path}` : name;
  const sub = (s, v, p = path) => check(s, v, p, name, root);
  if ('const' in schema && value !== schema.const) return `${at}: must be ${JSON.stringify(schema.const)}`;
  if (schema.enum && !schema.enum.includes(value)) {
    return `${at}: must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeOk(t, value))) return `${at}: must be of type ${types.join(' or ')}`;
  }
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s) => sub(s, value) === null).length;
    if (matching !== 1) return `${at}: must match exactly one allowed form`;
  }
  if (schema.anyOf && !schema.anyOf.some((s) => sub(s, value) === null)) {
    return `${at}: must match one of the allowed forms`;
  }
  for (const part of schema.allOf ?? []) {
    const problem = sub(part, value);
    if (problem) return problem;
  }
  if (schema.if !== undefined) {
    const branch = sub(schema.if, value) === null ? schema.then : schema.else;
    const problem = branch === undefined ? null : sub(branch, value);
    if (problem) return problem;
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) return `${at}: too short`;
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) return `${at}: too long`;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      return `${at}: does not match ${schema.pattern}`;
    }
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${at}: must be >= ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${at}: must be <= ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return `${at}: too few items`;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${at}: too many items`;
    if (schema.items) {
      for (let i = 0; i < value.length; i++) {
        const problem = sub(schema.items, value[i], `${path}/${i}`);
        if (problem) return problem;
      }
    }
  }
  if (typeOk('object', value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) return `${at}: too many fields`;
    for (const key of schema.required ?? []) {
      if (value[key] === undefined) return `${at}: missing required field ${JSON.stringify(key)}`;
    }
    const props = schema.properties ?? {};
    for (const key of keys) {
      if (key in props) {
        const problem = sub(props[key], value[key], `${path}/${key}`);
        if (problem) return problem;
      } else if (schema.additionalProperties === false) {
        return `${at}: unexpected field ${JSON.stringify(key)}`;
      } else if (typeOk('object', schema.additionalProperties)) {
        const problem = sub(schema.additionalProperties, value[key], `${path}/${key}`);
        if (problem) return problem;
      }
    }
  }
  return null;
}
