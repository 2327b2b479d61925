// The view hash and canonical JSON agree with the server's Python implementation
// (protocol/viewhash.py), and the plain-JS SHA-256 fallback agrees with WebCrypto.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';

import { canonicalJSON, viewHash } from '../lib/viewhash.js';
import { sha256 } from '../lib/sha256.js';
import { REPO_ROOT } from '../testing/hub.js';

const SAMPLES = [
  {},
  { b: 1, a: [true, false, null], c: { z: 'x', y: -5 } },
  { text: 'quote " backslash \\ newline \n tab \t ctrl \u0001 \u001f del \u007f', unicode: 'éß数字9乘塔 🂡', empty: '' },
  { nums: [0, -1, 2 ** 31, 2 ** 53 - 1, -(2 ** 53) + 1], nested: [[[]], [{}], [{ k: [1, { j: 2 }] }]] },
  { 'key with space': 1, 'Key': 2, key: 3, _k: 4, '10': 5, '9': 6, '': 7 },
];

function pythonHashes(values) {
  const python = join(REPO_ROOT, '.venv', 'bin', 'python');
  const code =
    'import json, sys\n' +
    'from protocol.viewhash import canonical_json, view_hash\n' +
    'values = json.load(sys.stdin)\n' +
    'json.dump([[canonical_json(v).decode(), view_hash(v)] for v in values], sys.stdout)\n';
  const out = execFileSync(process.env.TABLEHUB_PYTHON ?? python, ['-c', code], {
    cwd: REPO_ROOT,
    input: JSON.stringify(values),
  });
  return JSON.parse(out.toString());
}

it('canonical JSON and view hash equal the server side', async () => {
  const expected = pythonHashes(SAMPLES);
  for (const [i, value] of SAMPLES.entries()) {
    assert.equal(canonicalJSON(value), expected[i][0], `canonical JSON of sample ${i}`);
    assert.equal(await viewHash(value), expected[i][1], `hash of sample ${i}`);
  }
});

it('refuses values a view cannot hold', () => {
  assert.throws(() => canonicalJSON({ a: undefined }), TypeError);
  assert.throws(() => canonicalJSON([Number.NaN]), TypeError);
});

it('plain-JS SHA-256 equals WebCrypto', async () => {
  const enc = new TextEncoder();
  const inputs = ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'x'.repeat(1000), '数字9乘塔'];
  for (const text of inputs) {
    const bytes = enc.encode(text);
    const web = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    assert.deepEqual(sha256(bytes), web, `sha256 of ${text.length} chars`);
  }
});
