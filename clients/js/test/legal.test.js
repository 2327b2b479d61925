// The compact and grid forms of `legal` (protocol/README.md "Compact legal", "Grid
// legal"): expanding groups and grids, reading a reply in whichever form it came,
// and against a real hub, every game's reply in every form, read as it came, lists exactly
// the plain actions.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { canonicalJSON, expandGrids, expandGroups, listedActions } from '../lib/index.js';
import { PROTOCOL_DIR } from '../testing/hub.js';
import { sharedHub } from '../testing/shared_hub.js';

const { connect } = sharedHub();

const GAMES = Object.keys(JSON.parse(readFileSync(join(PROTOCOL_DIR, 'index.json'), 'utf8')).games);
const FORMS = ['plain', 'compact', 'grid'];

/** The actions as sorted canonical JSON: equal for the same actions in any order. */
const keys = (actions) => actions.map(canonicalJSON).sort();

/** The hex `bits` of a grid with exactly the bits `indices` set (through BigInt, not the parser's way). */
const hexOf = (indices) => indices.reduce((n, i) => n | (1n << BigInt(i)), 0n).toString(16);

describe('grid legal', () => {
  const place0 = { fixed: { type: 'place', rot: 0 }, fields: ['x', 'y'], origin: [-4, -3], width: 18 };

  it('expands the bits of a grid from its origin, a row of `width` after another', () => {
    assert.deepEqual(expandGrids([{ ...place0, bits: '5' }]), [
      { type: 'place', rot: 0, x: -4, y: -3 },
      { type: 'place', rot: 0, x: -2, y: -3 },
    ]);
    assert.deepEqual(expandGrids([{ ...place0, bits: '40000' }]), [{ type: 'place', rot: 0, x: -4, y: -2 }]);
    assert.deepEqual(expandGrids([{ ...place0, bits: '20000' }]), [{ type: 'place', rot: 0, x: 13, y: -3 }]);
    assert.deepEqual(expandGrids([{ ...place0, bits: '0' }]), []);
  });

  it('reads a hex string of a hundred and more digits, bits across many rows, in ascending order', () => {
    const indices = [0, 3, 4, 17, 18, 35, 36, 100, 255, 256, 401, 403, 419];
    const bits = hexOf(indices);
    assert.ok(bits.length > 100, `only ${bits.length} digits`);
    assert.deepEqual(
      expandGrids([{ ...place0, bits }]),
      indices.map((i) => ({ type: 'place', rot: 0, x: -4 + (i % 18), y: -3 + Math.floor(i / 18) })),
    );
    // the top bits set, every bit of every digit: all 4 * 120 positions
    const full = 'f'.repeat(120);
    const all = expandGrids([{ fixed: {}, fields: ['col', 'row'], origin: [0, 0], width: 7, bits: full }]);
    assert.equal(all.length, 480);
    assert.deepEqual(all[479], { col: 479 % 7, row: Math.floor(479 / 7) });
    assert.deepEqual(all.map((a) => a.row * 7 + a.col), [...Array(480).keys()]);
  });

  it('expands several grids grid after grid, each with its own fixed fields, origin and width', () => {
    const grids = [
      { fixed: { type: 'place', rot: 1 }, fields: ['x', 'y'], origin: [2, 0], width: 3, bits: hexOf([5, 1]) },
      { fixed: { type: 'place', rot: 0, level: 2 }, fields: ['y', 'x'], origin: [-1, 10], width: 4, bits: '101' },
      { ...place0, bits: '1' },
    ];
    assert.deepEqual(expandGrids(grids), [
      { type: 'place', rot: 1, x: 3, y: 0 },
      { type: 'place', rot: 1, x: 4, y: 1 },
      { type: 'place', rot: 0, level: 2, y: -1, x: 10 },
      { type: 'place', rot: 0, level: 2, y: -1, x: 12 },
      { type: 'place', rot: 0, x: -4, y: -3 },
    ]);
  });

  it('reads a reply in whichever form it came: grids, else groups, else actions', () => {
    assert.deepEqual(listedActions({ grids: [], version: 4 }), []);
    assert.deepEqual(listedActions({ grids: [{ ...place0, bits: '4' }], version: 4 }), [{ type: 'place', rot: 0, x: -2, y: -3 }]);
    assert.deepEqual(listedActions({ groups: [{ fixed: { type: 'place', rot: 2 }, fields: ['x', 'y'], values: [1, 2] }], version: 4 }), [
      { type: 'place', rot: 2, x: 1, y: 2 },
    ]);
    assert.deepEqual(listedActions({ actions: [{ type: 'pass' }], version: 4 }), [{ type: 'pass' }]);
  });

  it('refuses bits that are not lowercase hexadecimal and a width that is not a positive whole number', () => {
    for (const bits of ['', '0x5', 'A', '5 ', '-1']) assert.throws(() => expandGrids([{ ...place0, bits }]), RangeError, JSON.stringify(bits));
    for (const width of [0, -3, 2.5, '18']) assert.throws(() => expandGrids([{ ...place0, width, bits: '1' }]), RangeError, String(width));
  });
});

describe('compact legal', () => {
  it('expands each group into its actions, in order', () => {
    const groups = [
      { fixed: { type: 'place', rot: 0 }, fields: ['x', 'y'], values: [3, -2, 4, -2] },
      { fixed: { type: 'place', rot: 1 }, fields: ['x', 'y'], values: [0, 0] },
    ];
    assert.deepEqual(expandGroups(groups), [
      { type: 'place', rot: 0, x: 3, y: -2 },
      { type: 'place', rot: 0, x: 4, y: -2 },
      { type: 'place', rot: 1, x: 0, y: 0 },
    ]);
    assert.deepEqual(listedActions({ actions: [{ type: 'pass' }], version: 1 }), [{ type: 'pass' }]);
    assert.deepEqual(listedActions({ groups: [], version: 1 }), []);
  });

});

describe('legal against a hub', () => {
  it('9-tower: the grids, the compact groups and client.legal() expand to the plain list, round after round', async () => {
    const alice = await connect('alice');
    const table = await alice.createTable('nmbr9', 1, { seed: 5 });
    await alice.join(table);
    for (let round = 1; round <= 6; round++) {
      const grid = await alice.requestWithRetry('legal', { table, form: 'grid' });
      const compact = await alice.requestWithRetry('legal', { table, form: 'compact' });
      const plain = await alice.requestWithRetry('legal', { table });
      assert.ok(grid.grids.length > 0 && !('groups' in grid) && !('actions' in grid));
      assert.ok(grid.grids.every((g) => /^[0-9a-f]+$/.test(g.bits)));
      assert.deepEqual(keys(expandGrids(grid.grids)), keys(plain.actions));
      assert.ok(compact.groups.length > 0 && !('actions' in compact));
      assert.deepEqual(keys(expandGroups(compact.groups)), keys(plain.actions));
      const { actions, version } = await alice.legal(table);
      assert.equal(version, plain.version);
      assert.deepEqual(keys(actions), keys(plain.actions));
      await alice.act(table, actions[actions.length - 1]);
    }
    await alice.close();
  });

  // Which games have which form changes as games gain them; each reply, read in whichever
  // form it came, must list exactly the plain actions.
  for (const game of GAMES) {
    it(`${game}: every form of the reply, read as it came, lists exactly the plain actions`, async () => {
      const player = await connect('ann');
      const described = (await player.listGames()).find((g) => g.id === game);
      const seats = Math.min(Math.max(2, described.min_players), described.max_players);
      const table = await player.createTable(game, seats, { seed: 7 });
      const { seat } = await player.join(table);
      for (let i = 1; i < seats; i++) await player.addBot(table);
      await player.waitFor(table, (m) => m.view.status === 'playing' && m.view.to_act.includes(seat));
      const plain = await player.requestWithRetry('legal', { table });
      assert.ok(plain.actions.length > 0);
      for (const form of FORMS) {
        const reply = await player.requestWithRetry('legal', { table, form });
        assert.equal(reply.version, plain.version, form);
        assert.deepEqual(keys(listedActions(reply)), keys(plain.actions), form);
      }
      assert.deepEqual(keys((await player.legal(table)).actions), keys(plain.actions));
    });
  }
});
