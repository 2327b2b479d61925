// client.legal() on a hub older than the form it asks in (issue 33; protocol/README.md
// "Layered grid legal"): it asks again in the next cheaper form, keeps the form that
// was taken, and throws any other error.
//
// The older hub is a simulation of an older schema: the real hub (spawned for this
// file) behind a test-local relay that refuses a `legal` whose `form` is not in an
// older revision's protocol/v1/legal.json enum -- ["plain", "compact", "grid"] before
// the layered form, ["plain", "compact"] before the grid form -- with `bad_message` in
// the words the older hub's door gave (`legal: form must be one of [...]`), and passes
// every other frame through unchanged.  `additionalProperties` was true in every
// revision, so a hub before the compact form took any `form` and never read it: that
// relay drops the field.  The relay counts the `legal` asks it saw.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';

import { LEGAL_FORMS } from '../lib/client.js';
import { COMPACT, GRID, JSON_SUBPROTOCOL, LAYERED, ServerError, canonicalJSON } from '../lib/index.js';
import { sharedHub } from '../testing/shared_hub.js';

const shared = sharedHub();
const { connect } = shared;

const BEFORE_LAYERED = ['plain', COMPACT, GRID];
const BEFORE_GRID = ['plain', COMPACT];

const keys = (actions) => actions.map((a) => canonicalJSON(a)).sort();

const relays = [];
after(() => Promise.all(relays.map((relay) => relay.close())));

/**
 * A relay to the shared hub that stands for a hub whose `legal` schema had `forms` as
 * its `form` enum (null: before the field).  `seen` holds the form of every `legal` it
 * got (null: none).
 */
async function olderHub(forms) {
  const seen = [];
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (p) => [...p][0] });
  server.on('connection', (ws) => {
    const upstream = new WebSocket(shared.hub.ws, ws.protocol);
    const waiting = [];
    upstream.on('open', () => waiting.splice(0).forEach((data) => upstream.send(data)));
    upstream.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
    upstream.on('close', () => ws.close());
    upstream.on('error', () => ws.close());
    ws.on('close', () => upstream.close());
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.t === 'legal') {
        seen.push(msg.form ?? null);
        if (forms === null) {
          delete msg.form; // never read by a hub before the compact form
        } else if (msg.form !== undefined && !forms.includes(msg.form)) {
          const enumText = `[${forms.map((f) => `'${f}'`).join(', ')}]`;
          ws.send(JSON.stringify({ t: 'error', id: msg.id, code: 'bad_message', message: `legal: form must be one of ${enumText}` }));
          return;
        }
      }
      const out = JSON.stringify(msg);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(out);
      else waiting.push(out);
    });
  });
  await new Promise((resolve) => server.once('listening', resolve));
  const relay = {
    url: `ws://127.0.0.1:${server.address().port}/ws`,
    seen,
    close() {
      for (const ws of server.clients) ws.terminate();
      return new Promise((resolve) => server.close(resolve));
    },
  };
  relays.push(relay);
  return relay;
}

/** A seat at a fresh two-seat 9-tower table, through `url`; the other seat is taken directly. */
async function seated(url, name, seed, options = {}) {
  const player = await connect(name, { url, subprotocol: JSON_SUBPROTOCOL, reconnect: false, ...options });
  const other = await connect(`${name}-other`);
  const table = await player.createTable('nmbr9', 2, { seed });
  await player.join(table);
  await other.join(table);
  await player.waitFor(table, (m) => m.view.status === 'playing');
  return { player, table };
}

describe('legal on an older hub', () => {
  for (const [name, forms, taken] of [
    ['before the layered form', BEFORE_LAYERED, GRID],
    ['before the grid form', BEFORE_GRID, COMPACT],
  ]) {
    it(`${name}: asks again in the next cheaper form, lists the plain actions, and asks the kept form next`, async () => {
      const relay = await olderHub(forms);
      const { player, table } = await seated(relay.url, 'old', 5);
      const plain = await player.request('legal', { table });
      assert.ok(plain.actions.length > 0);
      relay.seen.length = 0;

      const first = await player.legal(table);
      assert.deepEqual(keys(first.actions), keys(plain.actions), 'the same actions as the plain ask');
      assert.equal(first.version, plain.version);
      const refused = LEGAL_FORMS.slice(0, LEGAL_FORMS.indexOf(taken));
      assert.deepEqual(relay.seen, [...refused, taken], 'each form down to the one the hub takes, once');
      assert.equal(player.legalForm, taken);

      const second = await player.legal(table);
      assert.deepEqual(keys(second.actions), keys(plain.actions));
      assert.deepEqual(relay.seen, [...refused, taken, taken], 'the second ask goes straight to the kept form');

      // the action is one the hub accepts
      assert.ok((await player.act(table, second.actions[0])) > plain.version);
    });
  }

  it('starts from the layered form again on a new socket (here: moved to the current hub)', async () => {
    const relay = await olderHub(BEFORE_LAYERED);
    const { player, table } = await seated(relay.url, 'mover', 7);
    await player.legal(table);
    assert.equal(player.legalForm, GRID);
    await player.moveTo(shared.hub.ws);
    assert.equal(player.legalForm, LAYERED);
    const plain = await player.request('legal', { table });
    assert.deepEqual(keys((await player.legal(table)).actions), keys(plain.actions));
    assert.equal(player.legalForm, LAYERED, 'the current hub takes it');
    assert.deepEqual(relay.seen, [LAYERED, GRID]);
  });

  it('a hub before the compact form answers the layered ask in the plain form, with no fallback', async () => {
    const relay = await olderHub(null);
    const { player, table } = await seated(relay.url, 'oldest', 9);
    const plain = await player.request('legal', { table });
    relay.seen.length = 0;
    assert.deepEqual(keys((await player.legal(table)).actions), keys(plain.actions));
    assert.deepEqual(relay.seen, [LAYERED]);
    assert.equal(player.legalForm, LAYERED);
  });

  it('throws another error at once, in whichever form it was asked', async () => {
    const current = await olderHub(LEGAL_FORMS); // today's enum, counted
    const fresh = await connect('errors-fresh', { url: current.url, subprotocol: JSON_SUBPROTOCOL, reconnect: false });
    await assert.rejects(fresh.legal('nosuchtable'), (err) => err instanceof ServerError && err.code === 'unknown_table');
    assert.deepEqual(current.seen, [LAYERED], 'not asked again in another form');
    assert.equal(fresh.legalForm, LAYERED);

    const relay = await olderHub(BEFORE_LAYERED);
    const { player, table } = await seated(relay.url, 'errors', 3);
    await player.legal(table);
    relay.seen.length = 0;
    await assert.rejects(player.legal('nosuchtable'), { code: 'unknown_table' });
    assert.deepEqual(relay.seen, [GRID], 'the kept form only, nothing cheaper');
  });

  it('throws bad_message to the plain ask, after every form', async () => {
    const relay = await olderHub(LEGAL_FORMS);
    // no protocol loaded: the table id is refused by the hub, not before sending
    const client = await connect('bad-id', { url: relay.url, subprotocol: JSON_SUBPROTOCOL, reconnect: false, protocol: null });
    await assert.rejects(client.legal('not a table id'), (err) => err instanceof ServerError && err.code === 'bad_message' && /not allowed/.test(err.reason));
    assert.deepEqual(relay.seen, [LAYERED, GRID, COMPACT, null]);
    assert.equal(client.legalForm, LAYERED, 'no form was taken, so none is kept');
  });
});
