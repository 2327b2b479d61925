// The per-game schemas (protocol/v1/games/) as the JS client loads them: actions are
// checked like the hub checks them, and live views of every game fit the table view
// and the game's player and spectator views.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ProtocolError } from '../lib/index.js';
import { sharedHub } from '../testing/shared_hub.js';

const shared = sharedHub();
const { connect } = shared;

describe('game actions', () => {
  const fits = [
    ['nmbr9', { type: 'place', x: -3, y: 2, rot: 1 }],
    ['nmbr9', { type: 'resign' }],
    ['brix', { type: 'move', brick: 2, x: 1, y: 0, dir: 'v', orange: 1, face: 'ox' }],
    ['completto', { type: 'take', source: 'faceup', number: 7 }],
    ['termite', { type: 'choose', cubes: [[0, 'red'], [1, 'blue']] }],
    ['termite', { type: 'place_die', die: 0, slot: 'A1', helper: null }],
  ];
  for (const [game, action] of fits) {
    it(`accepts ${game} ${JSON.stringify(action)}`, () => shared.protocol.validateAction(game, action));
  }

  const refused = [
    ['nmbr9', { type: 'place', x: 0, y: 0, rot: 0, note: 1 }, /unexpected field "note"/],
    ['nmbr9', { type: 'place', x: 0, y: 0 }, /missing required field "rot"/],
    ['nmbr9', { type: 'jump' }, /action\/type: must be one of/],
    ['brix', { type: 'place', x: 0, y: 0, dir: 'd', orange: 0, face: 'xo' }, /action\/dir/],
    ['completto', { type: 'discard', pos: 1 }, /unexpected field "pos"/],
    ['termite', { type: 'choose', cubes: [[0, 'red', 1]] }, /action\/cubes\/0/],
    ['termite', { type: 'play_queen', card: 'swarm' }, /missing required field "dice"/],
  ];
  for (const [game, action, reason] of refused) {
    it(`refuses ${game} ${JSON.stringify(action)} as bad_action`, () => {
      assert.throws(
        () => shared.protocol.validateAction(game, action),
        (err) => err instanceof ProtocolError && err.code === 'bad_action' && reason.test(err.message),
      );
    });
  }
});

describe('live views', () => {
  const tables = [
    ['nmbr9', 2],
    ['brix', 2],
    ['completto', 2],
    ['termite', 3],
  ];
  for (const [game, seats] of tables) {
    it(`${game}: a seat's and a spectator's snapshots fit the schemas`, async () => {
      const player = await connect('ann');
      const watcher = await connect('eve');
      const table = await player.createTable(game, seats, { seed: 5 });
      const { seat } = await player.join(table);
      for (let i = 1; i < seats; i++) await player.addBot(table);
      await watcher.spectate(table);
      const mine = await player.waitFor(table, (m) => m.view.status === 'playing');
      const theirs = await watcher.waitFor(table, (m) => m.view.status === 'playing');
      assert.equal(seat, 0);
      for (const [mirror, kind] of [
        [mine, 'player_view'],
        [theirs, 'spectator_view'],
      ]) {
        assert.equal(shared.protocol.checkGameValue(game, 'table_view', mirror.view), null);
        assert.equal(shared.protocol.checkGameValue(game, kind, mirror.view.board), null);
        assert.ok(shared.protocol.index.games[game].phases.includes(mirror.view.phase));
      }
      const { actions } = await player.legal(table);
      for (const action of actions) shared.protocol.validateAction(game, action);
    });
  }
});
