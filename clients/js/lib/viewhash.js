// The view hash of protocol v1 (part of the wire contract, see protocol/viewhash.py):
// the first 16 hex digits of SHA-256 over the view's canonical JSON (RFC 8785).
//
// Views hold only maps with string keys, lists, strings, integers, booleans and null.
// For those, RFC 8785 is: object keys sorted by UTF-16 code units, no whitespace,
// strings and numbers serialised as ECMAScript JSON.stringify does -- which is exactly
// what Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
// produces for such values.

import { sha256 } from './sha256.js';

/** Canonical JSON text of a JSON value (RFC 8785 for the value kinds views use). */
export function canonicalJSON(value) {
  if (value === null || typeof value !== 'object') {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
      throw new TypeError(`not a JSON value: ${String(value)}`);
    }
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError(`not a JSON number: ${value}`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJSON).join(',')}]`;
  }
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(value[k])}`).join(',')}}`;
}

const encoder = new TextEncoder();

function hex(bytes) {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** SHA-256 digest via WebCrypto when available, else the plain-JS fallback. */
export async function digestSHA256(bytes) {
  const subtle = globalThis.crypto?.subtle;
  if (subtle) return new Uint8Array(await subtle.digest('SHA-256', bytes));
  return sha256(bytes);
}

/** The protocol's view hash: 16 hex digits. */
export async function viewHash(view) {
  const digest = await digestSHA256(encoder.encode(canonicalJSON(view)));
  return hex(digest).slice(0, 16);
}

export { hex };
