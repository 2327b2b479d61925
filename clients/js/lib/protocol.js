// Protocol v1 as data: the same protocol/v1/*.json files the server and the Python
// client load (index.json: message types, error codes, close codes, limits; one JSON
// Schema per message).
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
  const names = [...new Set(Object.values(index.messages).map((m) => m.schema))];
  await Promise.all(
    names.map(async (name) => {
      raw[name] = await read(name);
    }),
  );
  const schemas = {};
  for (const [type, meta] of Object.entries(index.messages)) {
    schemas[type] = JSON.parse(utf8.decode(raw[meta.schema]));
  }
  return new Protocol(index, schemas, await fingerprint(raw));
}

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
  constructor(index, schemas, fingerprint) {
    this.index = index;
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

/** First violation of `schema` by `value` as "path: reason", or null (JSON Schema subset). */
export function check(schema, value, path) {
  const at = path || 'message';
  if ('const' in schema && value !== schema.const) return `${at}: must be ${JSON.stringify(schema.const)}`;
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeOk(t, value))) return `${at}: must be of type ${types.join(' or ')}`;
  }
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((sub) => check(sub, value, path) === null).length;
    if (matching !== 1) return `${at}: must match exactly one allowed form`;
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
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${at}: too many items`;
    if (schema.items) {
      for (let i = 0; i < value.length; i++) {
        const problem = check(schema.items, value[i], `${path}/${i}`);
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
        const problem = check(props[key], value[key], `${path}/${key}`);
        if (problem) return problem;
      } else if (schema.additionalProperties === false) {
        return `${at}: unexpected field ${JSON.stringify(key)}`;
      }
    }
  }
  return null;
}
