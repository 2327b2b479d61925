// The per-game schemas (protocol/v1/games/) as the JS client loads them, for every game
// the protocol names (index.json) -- no list of games here: the hub offers exactly those
// games; live views of each fit the table view and the game's player and spectator views;
// the actions `legal` lists are accepted like the hub accepts them, and the same actions
// spoiled (a field too many, one left out, a number sent as text, an unknown type) are
// refused as bad_action.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { ProtocolError } from '../lib/index.js';
import { PROTOCOL_DIR } from '../testing/hub.js';
import { sharedHub } from '../testing/shared_hub.js';

const shared = sharedHub();
const { connect } = shared;
const GAMES = Object.keys(JSON.parse(readFileSync(join(PROTOCOL_DIR, 'index.json'), 'utf8')).games);

function refused(game, action, reason) {
  assert.throws(
    () => shared.protocol.validateAction(game, action),
    (err) => err instanceof ProtocolError && err.code === 'bad_action' && reason.test(err.message),
    `${game} ${JSON.stringify(action)} should be refused (${reason})`,
  );
}

/** Each listed action spoiled in the ways a client's mistakes take. */
function checkSpoiled(game, actions) {
  const required = (type) => shared.protocol.games[game].action.$defs?.[type]?.required ?? [];
  refused(game, { type: 'jump_over_the_moon' }, /action\/type: must be one of/);
  for (const action of actions) {
    refused(game, { ...action, note: 1 }, /unexpected field "note"/);
    for (const [field, value] of Object.entries(action)) {
      if (Number.isInteger(value)) {
        refused(game, { ...action, [field]: String(value) }, new RegExp(`action/${field}`));
      }
      if (field !== 'type' && required(action.type).includes(field)) {
        const { [field]: _left, ...short } = action;
        refused(game, short, /missing required field|must be one of|does not match/);
      }
    }
  }
}

describe('every game', () => {
  it('the hub offers exactly the games the protocol names', async () => {
    const player = await connect('ann');
    const offered = (await player.listGames()).map((g) => g.id);
    assert.deepEqual([...offered].sort(), [...GAMES].sort());
  });

  for (const game of GAMES) {
    it(`${game}: snapshots fit the schemas, listed actions pass, spoiled ones do not`, async () => {
      const player = await connect('ann');
      const watcher = await connect('eve');
      const described = (await player.listGames()).find((g) => g.id === game);
      const seats = Math.min(Math.max(2, described.min_players), described.max_players);
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
      await player.waitFor(table, (m) => m.view.to_act.includes(seat));
      const { actions } = await player.legal(table);
      assert.ok(actions.length > 0, 'the seat to act has legal actions');
      for (const action of [...actions, { type: 'resign' }]) shared.protocol.validateAction(game, action);
      checkSpoiled(game, actions);
    });
  }
});
