// The 9-tower ghost's rules (ui/games/nmbr9-rules.js) against the server: for real
// layouts from a game, the JS legality check accepts exactly the server's legal list,
// and refuses an illegal drop in the server's own words.

import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import WebSocket from 'ws';

import { Client } from '../lib/index.js';
import { startHub } from '../testing/hub.js';
import { checkPlacement, placedCells } from '../ui/games/nmbr9-rules.js';

let hub;
before(async () => {
  hub = await startHub();
});
after(() => hub?.stop());

const cellsKey = (cells) =>
  cells
    .map(([x, y]) => `${x},${y}`)
    .sort()
    .join(' ');

/** Every placement the JS rules accept around the layout, as cell-set keys. */
function jsLegal(tiles, digit) {
  const cells = tiles.flatMap((t) => t.cells);
  const xs = cells.map(([x]) => x);
  const ys = cells.map(([, y]) => y);
  const out = new Set();
  for (let rot = 0; rot < 4; rot++) {
    for (let x = Math.min(...xs) - 5; x <= Math.max(...xs) + 1; x++) {
      for (let y = Math.min(...ys) - 5; y <= Math.max(...ys) + 1; y++) {
        if (checkPlacement(tiles, digit, x, y, rot).ok) out.add(cellsKey(placedCells(digit, x, y, rot)));
      }
    }
  }
  return out;
}

it('accepts exactly the server legal placements, round after round', async () => {
  const client = await Client.connect(hub.ws, { name: 'rules', WebSocket });
  try {
    for (const seed of [1, 2]) {
      const table = await client.createTable('nmbr9', 1, { seed });
      await client.join(table);
      let mirror = await client.waitFor(table, (m) => m.view.status === 'playing');
      for (let round = 1; round <= 20; round++) {
        const { tiles } = mirror.view.board.players[0];
        const digit = mirror.view.board.card;
        const { actions } = await client.legal(table);
        if (tiles.length > 0) {
          const server = new Set(actions.map((a) => cellsKey(placedCells(digit, a.x, a.y, a.rot))));
          const js = jsLegal(tiles, digit);
          assert.deepEqual([...js].sort(), [...server].sort(), `seed ${seed} round ${round} digit ${digit}`);
        }
        // Prefer high placements so the layouts get several levels.
        const version = await client.act(table, actions[(round * 7) % Math.min(actions.length, 3)]);
        mirror = await client.waitFor(table, (m) => m.version >= version);
      }
      assert.equal(mirror.view.status, 'finished');
      assert.ok(mirror.view.board.players[0].tiles.some((t) => t.level >= 1), 'layout has a level >= 1');
    }
  } finally {
    await client.close();
  }
});

it('explains an illegal drop exactly as the server does', async () => {
  const client = await Client.connect(hub.ws, { name: 'reasons', WebSocket });
  try {
    const table = await client.createTable('nmbr9', 1, { seed: 3 });
    await client.join(table);
    await client.waitFor(table, (m) => m.view.status === 'playing');
    for (let round = 1; round <= 8; round++) {
      const { actions } = await client.legal(table);
      const version = await client.act(table, actions[0]);
      await client.waitFor(table, (m) => m.version >= version);
    }
    const { view } = client.tables.get(table);
    const { tiles } = view.board.players[0];
    const digit = view.board.card;
    const top = tiles.reduce((a, t) => (t.level > a.level ? t : a));
    const tries = [
      [top.x + 40, top.y, 0], // far away: no contact
      [top.x, top.y, 0], // on top of one tile / uneven
      [top.x + 1, top.y + 1, 1],
      [top.x - 2, top.y - 1, 2],
    ];
    let checked = 0;
    for (const [x, y, rot] of tries) {
      const local = checkPlacement(tiles, digit, x, y, rot);
      if (local.ok) continue;
      await assert.rejects(client.act(table, { type: 'place', x, y, rot }), (err) => {
        assert.equal(err.code, 'illegal_action');
        assert.equal(err.reason, local.reason);
        return true;
      });
      checked += 1;
    }
    assert.ok(checked >= 2, `illegal drops checked: ${checked}`);
  } finally {
    await client.close();
  }
});
