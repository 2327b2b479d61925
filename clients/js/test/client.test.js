// The client library against a real hub (spawned on a free port): hello, requests,
// patches equal snapshots, resync after a forced gap and after a corrupted view,
// reconnect + resume through a cut TCP connection, moving to another address, the live lobby, batch frames, and
// retries of what a busy server refuses (against a scripted peer: a hub is not busy on cue),
// and the form `legal` asks for and the forms it reads (a scripted peer answering each form).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';

import { Client, JSON_SUBPROTOCOL, ProtocolError, ServerError } from '../lib/index.js';
import { startProxy } from '../testing/proxy.js';
import { sharedHub } from '../testing/shared_hub.js';

const shared = sharedHub();
const { connect } = shared;

/** A fresh spectator's snapshot of `table` at exactly `version` (retries until it matches). */
async function snapshotAt(table, version) {
  const watcher = await connect('checker');
  await watcher.spectate(table);
  const mirror = await watcher.waitFor(table, (m) => m.version >= version);
  assert.equal(mirror.version, version, 'the table moved on while checking');
  const view = mirror.view;
  await watcher.close();
  return view;
}

/** Seats whose turn it is (from the view). */
const toAct = (mirror) => mirror.view.to_act;

describe('protocol files', () => {
  it('gives the same schema fingerprint as the server', async () => {
    const client = await connect('fp');
    assert.match(client.server.schema, /^[0-9a-f]{16}$/);
    assert.equal(client.protocol.fingerprint, client.server.schema);
    assert.equal(client.schemaMatches, true);
    assert.equal(client.server.v, 1);
  });

  it('has a helper for every client-to-server message', () => {
    const camel = (s) => s.replace(/_(\w)/g, (_, c) => c.toUpperCase());
    const missing = shared.protocol
      .messageTypes('client_to_server')
      .filter((t) => t !== 'hello')
      .filter((t) => typeof Client.prototype[camel(t)] !== 'function');
    assert.deepEqual(missing, []);
  });

  it('refuses an invalid request before sending it', async () => {
    const client = await connect('strict');
    await assert.rejects(client.request('join', {}), { code: 'bad_message', message: /missing required field "table"/ });
    await assert.rejects(client.request('nope'), { code: 'unknown_type' });
  });

  it('gets error replies with stable codes', async () => {
    const client = await connect('errors');
    await assert.rejects(client.join('no-such-table'), (err) => err instanceof ServerError && err.code === 'unknown_table');
    await assert.rejects(client.createTable('chess', 2), { code: 'unknown_game' });
    assert.ok(shared.protocol.explain('unknown_game').length > 0);
  });
});

describe('nmbr9 over msgpack and JSON', () => {
  it('joins, acts, and its patched views equal fresh snapshots', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob', { subprotocol: JSON_SUBPROTOCOL });
    const spectator = await connect('spec');
    const table = await alice.createTable('nmbr9', 2, { seed: 7 });
    const a = await alice.join(table);
    const b = await bob.join(table);
    assert.deepEqual([a.seat, b.seat], [0, 1]);
    assert.ok(a.token.length >= 8);
    await spectator.spectate(table);
    await spectator.waitFor(table, (m) => m.view.status === 'playing');

    // An illegal placement is refused with the rule, and changes nothing.
    const before = (await alice.waitFor(table, (m) => m.view.status === 'playing')).version;
    await alice.act(table, { type: 'place', x: 0, y: 0, rot: 0 });
    await assert.rejects(alice.act(table, { type: 'place', x: 0, y: 0, rot: 0 }), {
      code: 'not_your_turn',
    });
    await bob.act(table, { type: 'place', x: 0, y: 0, rot: 0 });
    const far = { type: 'place', x: 50, y: 50, rot: 0 };
    await assert.rejects(alice.act(table, far), (err) => err.code === 'illegal_action' && /touch/.test(err.reason));
    // A malformed action is refused before it is sent, in the hub's words.
    await assert.rejects(alice.act(table, { ...far, note: 'hi' }), (err) => err instanceof ProtocolError && err.code === 'bad_action' && /note/.test(err.message));
    assert.equal((await alice.waitFor(table, (m) => m.version >= before + 2)).version, before + 2);

    for (let round = 2; round <= 20; round++) {
      for (const player of [alice, bob]) {
        const { actions } = await player.legal(table);
        assert.ok(actions.length > 0);
        await player.act(table, actions[round % actions.length]);
      }
      if (round === 10) {
        const mirror = await spectator.waitFor(table, (m) => m.view.board.round === 11);
        assert.deepEqual(await snapshotAt(table, mirror.version), mirror.view);
      }
    }
    const done = await spectator.waitFor(table, (m) => m.view.status === 'finished');
    const final = await snapshotAt(table, done.version);
    for (const client of [alice, bob, spectator]) {
      const mirror = await client.waitFor(table, (m) => m.version === done.version);
      assert.deepEqual(mirror.view, final);
      assert.equal(mirror.mismatches, 0);
      assert.ok(mirror.patches >= 40, `patches applied: ${mirror.patches}`);
    }
    assert.equal(final.board.finished, true);
    assert.deepEqual(final.result.scores, final.board.players.map((p) => p.score));
    assert.ok(spectator.tables.get(table).events.some((e) => e.type === 'finished'));
  });
});

describe('resync', () => {
  it('catches up after a forced gap (a dropped patch)', async () => {
    let drop = 0;
    const alice = await connect('gap-alice', {
      inspect: (msg) => !(msg.t === 'patch' && drop > 0 && drop-- > 0),
    });
    const bob = await connect('gap-bob');
    const table = await alice.createTable('nmbr9', 2, { seed: 11 });
    await alice.join(table);
    await bob.join(table);
    await alice.waitFor(table, (m) => m.view.status === 'playing');
    drop = 1;
    await bob.act(table, (await bob.legal(table)).actions[0]); // this patch is lost
    const version = await alice.act(table, (await alice.legal(table)).actions[0]);
    const mirror = await alice.waitFor(table, (m) => m.version >= version);
    assert.equal(drop, 0);
    assert.ok(mirror.resyncs >= 1, 'a resync was requested');
    assert.equal(mirror.mismatches, 0);
    assert.deepEqual(mirror.view, await snapshotAt(table, version));
    assert.equal(mirror.view.board.round, 2);
  });

  it('asks for a snapshot when its view is corrupt (hash mismatch)', async () => {
    const alice = await connect('bad-alice');
    const bob = await connect('bad-bob');
    const table = await alice.createTable('nmbr9', 2, { seed: 12 });
    await alice.join(table);
    await bob.join(table);
    const mirror = await alice.waitFor(table, (m) => m.view.status === 'playing');
    const snapshots = mirror.snapshots;
    mirror.view = { ...mirror.view, board: { ...mirror.view.board, rounds: 99 } }; // corrupt it
    const mismatch = alice.next('mismatch', (d) => d.table === table);
    const version = await bob.act(table, (await bob.legal(table)).actions[0]);
    await mismatch;
    const fixed = await alice.waitFor(table, (m) => m.version >= version && m.snapshots > snapshots);
    assert.equal(fixed.view.board.rounds, 20);
    assert.deepEqual(fixed.view, await snapshotAt(table, fixed.version));
  });
});

describe('reconnect', () => {
  it('resumes the seat and the missed versions after the network drops', async () => {
    const proxy = await startProxy(shared.hub.port);
    try {
      const alice = await connect('net-alice', { url: proxy.ws, backoff: { initialMs: 50, maxMs: 200 } });
      const spec = await connect('net-spec', { url: proxy.ws, backoff: { initialMs: 50, maxMs: 200 } });
      const bob = await connect('net-bob');
      const table = await alice.createTable('nmbr9', 2, { seed: 13 });
      const { seat } = await alice.join(table);
      await bob.join(table);
      await spec.spectate(table);
      await alice.waitFor(table, (m) => m.view.status === 'playing');
      await spec.waitFor(table, (m) => m.view.status === 'playing');
      const snapshots = alice.tables.get(table).snapshots;

      const reopened = alice.next('open');
      const specReopened = spec.next('open');
      proxy.cut();
      const missed = await bob.act(table, (await bob.legal(table)).actions[0]);
      await Promise.all([reopened, specReopened]);
      assert.equal(alice.reconnects, 1);
      assert.deepEqual(
        alice.server.resumed.map((r) => [r.table, r.seat, r.ok]),
        [[table, seat, true]],
      );
      const mirror = await alice.waitFor(table, (m) => m.version >= missed);
      assert.equal(mirror.snapshots, snapshots, 'caught up by a patch from the version it had');
      assert.equal(mirror.view.board.players[1].placed, true);

      // The seat is ours again: acting works and ends the round.
      const version = await alice.act(table, (await alice.legal(table)).actions[0]);
      const specMirror = await spec.waitFor(table, (m) => m.version >= version);
      assert.equal(specMirror.view.board.round, 2);
      assert.deepEqual(specMirror.view, await snapshotAt(table, version));
      assert.equal(spec.server.resumed[0].seat, null);
    } finally {
      await proxy.close();
    }
  });

  it('fails pending requests when the connection drops, and keeps retrying with backoff', async () => {
    const proxy = await startProxy(shared.hub.port);
    const states = [];
    const client = await connect('retry', { url: proxy.ws, backoff: { initialMs: 20, maxMs: 50 } });
    client.on('state', ({ state }) => states.push(state));
    await proxy.close(); // cut and stop listening: reconnect attempts fail
    await client.next('state', ({ state }) => state === 'reconnecting');
    await assert.rejects(client.ping(), { code: 'disconnected' });
    await client.next('retry', ({ attempt }) => attempt >= 3); // failed attempts are retried
    assert.equal(client.state, 'reconnecting');
    await client.close();
    assert.equal(client.state, 'closed');
    assert.ok(states.includes('reconnecting'));
  });
});

describe('moving to another address', () => {
  it('goes on with its seat and its lobby at a room of the same hub', async () => {
    const alice = await connect('move-alice');
    const bob = await connect('move-bob');
    await alice.subscribeTables();
    const table = await alice.createTable('nmbr9', 2, { seed: 17 });
    const { seat } = await alice.join(table);
    await bob.join(table);
    await alice.waitFor(table, (m) => m.view.status === 'playing');

    const url = `${shared.hub.ws}?room=${encodeURIComponent('move test')}`;
    const reply = await alice.moveTo(url);
    assert.equal(alice.url, url);
    assert.equal(alice.state, 'open');
    assert.deepEqual(reply.resumed.map((r) => [r.table, r.seat, r.ok]), [[table, seat, true]]);

    // Still seated, still in the lobby.
    const other = await bob.createTable('nmbr9', 2);
    const listed = (list) => list.some((t) => t.table === other);
    if (!listed(alice.lobby)) await alice.next('tables', listed);
    const version = await alice.act(table, (await alice.legal(table)).actions[0]);
    const mirror = await alice.waitFor(table, (m) => m.version >= version);
    assert.deepEqual(mirror.view, await snapshotAt(table, version));
  });
});

describe('lobby', () => {
  it('pushes the table list when it changes', async () => {
    const watcher = await connect('lobby');
    await watcher.subscribeTables();
    const maker = await connect('maker');
    const created = await maker.createTable('nmbr9', 3, {}, 'lobby test');
    // The push may come before the reply: the latest list, else the next one.
    const listed = (tables) => tables.some((t) => t.table === created);
    const tables = listed(watcher.lobby) ? watcher.lobby : await watcher.next('tables', listed);
    const row = tables.find((t) => t.table === created);
    assert.equal(row.game, 'nmbr9');
    assert.equal(row.seats.length, 3);
    const joined = watcher.next('tables', (list) => list.find((t) => t.table === created)?.seats[0].name === 'maker');
    await maker.join(created);
    await joined;
    const botted = watcher.next('tables', (list) => list.find((t) => t.table === created)?.seats[1].bot === true);
    assert.equal(await maker.addBot(created), 1);
    await botted;
  });
});

describe('every game', () => {
  it('plays a few turns of each hosted game with consistent views', async () => {
    const lister = await connect('lister');
    const games = await lister.listGames();
    assert.ok(games.some((g) => g.id === 'nmbr9'));
    for (const game of games) {
      const player = await connect(`p-${game.id}`);
      const table = await player.createTable(game.id, game.min_players, { seed: 5 });
      await player.join(table);
      for (let s = 1; s < game.min_players; s++) await player.addBot(table);
      let mirror = await player.waitFor(table, (m) => m.view.status !== 'waiting', 10000);
      let moves = 0;
      while (moves < 6 && mirror.view.status === 'playing') {
        if (!toAct(mirror).includes(0)) {
          const at = mirror.version;
          mirror = await player.waitFor(table, (m) => m.version > at || m.view.status !== 'playing', 10000);
          continue;
        }
        const { actions } = await player.legal(table);
        if (actions.length === 0) break;
        const version = await player.act(table, actions[0]);
        mirror = await player.waitFor(table, (m) => m.version >= version);
        moves += 1;
      }
      assert.ok(moves > 0, `${game.id}: no move played`);
      assert.equal(mirror.mismatches, 0, `${game.id}: hash mismatches`);
      assert.ok(mirror.view.board && typeof mirror.view.board === 'object');
    }
  });
});

describe('batches and retries', () => {
  it('asks for batch and takes batch frames apart in order', async () => {
    const client = await connect('batcher');
    let batches = 0;
    client._ws.addEventListener('message', (event) => {
      if (client.codec.decode(event.data).t === 'batch') batches += 1;
    });
    const table = await client.createTable('nmbr9', 1, { seed: 4 });
    const kinds = [];
    client.on('message', (msg) => kinds.push(msg.t));
    const snapshot = client.next('message', (msg) => msg.t === 'snapshot');
    await client.join(table); // the ok and the snapshot leave the hub in one flush
    await snapshot;
    const mirror = await client.waitFor(table, (m) => m.version >= 1);
    assert.ok(batches >= 1, 'the hub sent at least one batch');
    assert.ok(!kinds.includes('batch'), 'handlers see the messages, never the batch');
    assert.ok(kinds.indexOf('ok') < kinds.indexOf('snapshot'), 'in the order sent');
    const version = await client.act(table, (await client.legal(table)).actions[0]);
    await client.waitFor(table, (m) => m.version >= version);
    assert.equal(mirror.mismatches, 0);
  });

  it('takes a seat back by its token when its resume was refused for now', async () => {
    const seen = [];
    let hellos = 0;
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (p) => [...p][0] });
    server.on('connection', (ws) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        seen.push(msg);
        const ok = (fields) => ws.send(JSON.stringify({ t: 'ok', id: msg.id, ...fields }));
        if (msg.t === 'hello') {
          hellos += 1;
          const refused = { table: 't1', seat: null, ok: false, code: 'unavailable', retry_ms: 5 };
          ok({ resumed: hellos === 1 ? [] : [refused] });
        } else if (msg.t === 'join') {
          ok({ seat: 1, token: 'tok-tok-tok' });
          if (hellos === 1) ws.close(1012, 'this server lost the game store');
        }
      });
    });
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `ws://127.0.0.1:${server.address().port}/ws`;
    const client = await Client.connect(url, {
      name: 'resumer', WebSocket, subprotocol: JSON_SUBPROTOCOL, backoff: { initialMs: 5, maxMs: 5, factor: 1 },
    });
    const failed = [];
    client.on('resume_failed', (detail) => failed.push(detail));
    const reopened = new Promise((resolve) => client.on('open', resolve));
    try {
      await client.join('t1', { seat: 1 });
      await reopened;
    } finally {
      await client.close();
      server.close();
    }
    const joins = seen.filter((m) => m.t === 'join');
    assert.equal(joins.length, 2, 'joined again after the refused resume');
    assert.equal(joins[1].token, 'tok-tok-tok');
    assert.deepEqual(failed, []);
    assert.equal(client.tables.get('t1').seat, 1);
  });

  it('retries overloaded and unavailable with the same key, saying so in words', async () => {
    const seen = [];
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (p) => [...p][0] });
    server.on('connection', (ws) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        seen.push(msg);
        const earlier = seen.filter((m) => m.t === msg.t).length - 1;
        const busy = (code) => ({ t: 'error', id: msg.id, code, message: 'not now', retry_ms: 5 });
        let out;
        if (msg.t === 'hello') out = { t: 'ok', id: msg.id, resumed: [] };
        else if (msg.t === 'create_table') out = earlier < 2 ? busy('overloaded') : { t: 'ok', id: msg.id, table: 't1' };
        else if (msg.t === 'join') out = earlier < 1 ? busy('unavailable') : { t: 'ok', id: msg.id, seat: 0, token: 'tok-tok-tok' };
        else if (msg.t === 'legal') out = earlier < 1 ? busy('overloaded') : { t: 'ok', id: msg.id, actions: [], version: 3 };
        else out = busy('overloaded');
        ws.send(JSON.stringify(out));
      });
    });
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `ws://127.0.0.1:${server.address().port}/ws`;
    const client = await Client.connect(url, { name: 'retrier', WebSocket, subprotocol: JSON_SUBPROTOCOL, reconnect: false });
    const said = [];
    client.on('waiting', (detail) => said.push(detail));
    try {
      assert.equal(await client.createTable('nmbr9', 2), 't1');
      assert.deepEqual(await client.join('t1'), { seat: 0, token: 'tok-tok-tok' });
      assert.deepEqual(await client.legal('t1'), { actions: [], version: 3 });
      await assert.rejects(client.act('t1', { type: 'place', x: 0, y: 0, rot: 0 }), { code: 'overloaded' });
    } finally {
      await client.close();
      server.close();
    }
    assert.deepEqual(seen[0].caps, ['batch']);
    for (const type of ['create_table', 'join', 'act']) {
      const tries = seen.filter((m) => m.t === type);
      assert.equal(new Set(tries.map((m) => m.key)).size, 1, `${type}: one key for every try`);
      assert.match(tries[0].key, /^[A-Za-z0-9_-]{32}$/);
      assert.equal(new Set(tries.map((m) => m.id)).size, tries.length);
    }
    assert.equal(seen.filter((m) => m.t === 'act').length, client.options.retry.tries);
    assert.match(said[0].message, /^the server is busy: creating the table again in \d+\.\d s \(try 2 of 8\)$/);
    assert.match(said[2].message, /^the server cannot reach its storage right now: taking the seat/);
    assert.match(said[3].message, /^the server is busy: asking for your choices again in/);
    assert.equal(seen.filter((m) => m.t === 'legal').length, 2);
    assert.ok(said.every((d) => !/undefined|null|_/.test(d.message)));
    assert.ok(said.every((d) => d.delayMs <= client.options.retry.maxMs));
  });
});

describe('legal', () => {
  it('asks for the layered grid form and reads the reply in whichever form the game answers in', async () => {
    // a scripted peer: the layered form (protocol/README.md's example), the grid form, then a
    // game's compact and plain answers, then a seat that need not act
    const each = [
      { orange: 0, face: 'xo' },
      { orange: 0, face: 'ox' },
      { orange: 1, face: 'xo' },
      { orange: 1, face: 'ox' },
    ];
    const replies = [
      {
        grids: [
          {
            fixed: { type: 'move', dir: 'h' }, fields: ['x', 'y'], origin: [-3, 0], width: 16, height: 6,
            layers: { field: 'brick', values: [2, 4, 6] }, each, bits: '10000000000000000000000000400',
          },
        ],
        version: 6,
      },
      { grids: [{ fixed: { type: 'place', rot: 0 }, fields: ['x', 'y'], origin: [-4, -3], width: 18, bits: '40005' }], version: 7 },
      { groups: [{ fixed: { type: 'place', rot: 1 }, fields: ['x', 'y'], values: [2, 5] }], version: 8 },
      { actions: [{ type: 'pass' }], version: 9 },
      { grids: [], version: 10 },
    ];
    const seen = [];
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (p) => [...p][0] });
    server.on('connection', (ws) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        seen.push(msg);
        const out = msg.t === 'hello' ? { resumed: [] } : msg.partial ? { field: null, choices: [], complete: false, version: 10 } : replies.shift();
        ws.send(JSON.stringify({ t: 'ok', id: msg.id, ...out }));
      });
    });
    await new Promise((resolve) => server.once('listening', resolve));
    const client = await Client.connect(`ws://127.0.0.1:${server.address().port}/ws`, {
      name: 'asker', WebSocket, subprotocol: JSON_SUBPROTOCOL, reconnect: false,
    });
    try {
      assert.deepEqual(await client.legal('t1'), {
        actions: [
          ...each.map((way) => ({ type: 'move', dir: 'h', ...way, x: 7, y: 0, brick: 2 })),
          ...each.map((way) => ({ type: 'move', dir: 'h', ...way, x: -3, y: 1, brick: 4 })),
        ],
        version: 6,
      });
      assert.deepEqual(await client.legal('t1'), {
        actions: [
          { type: 'place', rot: 0, x: -4, y: -3 },
          { type: 'place', rot: 0, x: -2, y: -3 },
          { type: 'place', rot: 0, x: -4, y: -2 },
        ],
        version: 7,
      });
      assert.deepEqual(await client.legal('t1'), { actions: [{ type: 'place', rot: 1, x: 2, y: 5 }], version: 8 });
      assert.deepEqual(await client.legal('t1'), { actions: [{ type: 'pass' }], version: 9 });
      assert.deepEqual(await client.legal('t1'), { actions: [], version: 10 });
      await client.legalStep('t1', { type: 'place' });
    } finally {
      await client.close();
      server.close();
    }
    const asked = seen.filter((m) => m.t === 'legal').map(({ id: _id, ...fields }) => fields);
    assert.deepEqual(asked, [
      ...Array(5).fill({ t: 'legal', table: 't1', form: 'layered' }),
      { t: 'legal', table: 't1', partial: { type: 'place' } },
    ]);
  });
});
