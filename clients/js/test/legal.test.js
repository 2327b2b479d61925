// The compact, grid and layered grid forms of `legal` (protocol/README.md "Compact
// legal", "Grid legal", "Layered grid legal"): expanding groups and grids, reading a
// reply in whichever form it came, and against a real hub, every game's reply in every
// form, read as it came, lists exactly the plain actions.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { COMPACT, GRID, LAYERED, canonicalJSON, expandGrids, expandGroups, listedActions } from '../lib/index.js';
import { PROTOCOL_DIR } from '../testing/hub.js';
import { sharedHub } from '../testing/shared_hub.js';

const { connect } = sharedHub();

const GAMES = Object.keys(JSON.parse(readFileSync(join(PROTOCOL_DIR, 'index.json'), 'utf8')).games);
const FORMS = ['plain', COMPACT, GRID, LAYERED];

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

describe('layered grid legal', () => {
  // the README's example ("Layered grid legal"): a wall-duel move grid
  const ways = [
    { orange: 0, face: 'xo' },
    { orange: 0, face: 'ox' },
    { orange: 1, face: 'xo' },
    { orange: 1, face: 'ox' },
  ];
  const moveH = {
    fixed: { type: 'move', dir: 'h' },
    fields: ['x', 'y'],
    origin: [-3, 0],
    width: 16,
    height: 6,
    layers: { field: 'brick', values: [2, 4, 6] },
    each: ways,
  };

  it("expands the README's example: bit 10 with its four ways, then bit 112 with its four, in that order", () => {
    const bits = '10000000000000000000000000400';
    assert.equal(bits, hexOf([10, 112])); // the example's string has exactly those bits
    const actions = expandGrids([{ ...moveH, bits }]);
    assert.deepEqual(actions, [
      ...ways.map((way) => ({ type: 'move', dir: 'h', ...way, x: 7, y: 0, brick: 2 })),
      ...ways.map((way) => ({ type: 'move', dir: 'h', ...way, x: -3, y: 1, brick: 4 })),
    ]);
    // fixed, then the entry's fields, then the position's and the layer's
    for (const action of actions) assert.deepEqual(Object.keys(action), ['type', 'dir', 'orange', 'face', 'x', 'y', 'brick']);
    assert.deepEqual(listedActions({ grids: [{ ...moveH, bits }], version: 57 }), actions);
  });

  it('reads a grid with layers and no each: one action a bit, the position counted within its layer', () => {
    // 9-tower's shape: a layer per rotation, the same origin and size for every layer
    const level = { fixed: { type: 'place' }, fields: ['x', 'y'], origin: [-2, -1], width: 3, height: 2, layers: { field: 'rot', values: [0, 2, 3] } };
    assert.deepEqual(expandGrids([{ ...level, bits: hexOf([0, 5, 6, 11, 13]) }]), [
      { type: 'place', x: -2, y: -1, rot: 0 },
      { type: 'place', x: 0, y: 0, rot: 0 }, // the last bit of layer 0
      { type: 'place', x: -2, y: -1, rot: 2 }, // the first of layer 1
      { type: 'place', x: 0, y: 0, rot: 2 },
      { type: 'place', x: -1, y: -1, rot: 3 },
    ]);
    // a layer whose first rows are empty, and a long string across many layers
    const values = [...Array(40).keys()].map((k) => k * 10);
    const big = { fixed: {}, fields: ['col', 'row'], origin: [5, -7], width: 11, height: 4, layers: { field: 'layer', values } };
    const indices = [13, 44, 45, 100, 131, 176, 177, 1000, 1759];
    const bitsOf = hexOf(indices);
    assert.ok(bitsOf.length > 400, `only ${bitsOf.length} digits`);
    assert.deepEqual(
      expandGrids([{ ...big, bits: bitsOf }]),
      indices.map((i) => ({ col: 5 + ((i % 44) % 11), row: -7 + Math.floor((i % 44) / 11), layer: 10 * Math.floor(i / 44) })),
    );
  });

  it('reads a grid with each and no layers: one action a bit and entry, the position counted over the whole grid', () => {
    const grid = { fixed: { type: 'place', dir: 'v' }, fields: ['x', 'y'], origin: [1, 2], width: 5, each: [{ orange: 1, face: 'ox' }, { orange: 0 }], bits: hexOf([0, 7, 23]) };
    const actions = expandGrids([grid]);
    assert.deepEqual(actions, [
      { type: 'place', dir: 'v', orange: 1, face: 'ox', x: 1, y: 2 },
      { type: 'place', dir: 'v', orange: 0, x: 1, y: 2 },
      { type: 'place', dir: 'v', orange: 1, face: 'ox', x: 3, y: 3 },
      { type: 'place', dir: 'v', orange: 0, x: 3, y: 3 },
      { type: 'place', dir: 'v', orange: 1, face: 'ox', x: 4, y: 6 },
      { type: 'place', dir: 'v', orange: 0, x: 4, y: 6 },
    ]);
    assert.deepEqual(Object.keys(actions[0]), ['type', 'dir', 'orange', 'face', 'x', 'y']);
  });

  it('reads a grid without layers or each as in the grid form, beside layered ones, grid after grid', () => {
    const plain = { fixed: { type: 'place', rot: 1 }, fields: ['x', 'y'], origin: [-4, -3], width: 18, bits: '40005' };
    const expected = [
      { type: 'place', rot: 1, x: -4, y: -3 },
      { type: 'place', rot: 1, x: -2, y: -3 },
      { type: 'place', rot: 1, x: -4, y: -2 },
    ];
    assert.deepEqual(expandGrids([plain]), expected);
    for (const action of expandGrids([plain])) assert.deepEqual(Object.keys(action), ['type', 'rot', 'x', 'y']);
    const layeredOne = { ...moveH, bits: '1' };
    assert.deepEqual(expandGrids([plain, layeredOne, plain]), [
      ...expected,
      ...ways.map((way) => ({ type: 'move', dir: 'h', ...way, x: -3, y: 0, brick: 2 })),
      ...expected,
    ]);
  });

  it('refuses a layered grid without a good height, layers, each, or with bits past its last layer', () => {
    const bad = (grid, words) => assert.throws(() => expandGrids([{ ...moveH, bits: '1', ...grid }]), (err) => err instanceof RangeError && words.test(err.message), JSON.stringify(grid));
    for (const height of [undefined, 0, -6, 2.5, '6', null]) bad({ height }, /height must be a positive whole number/);
    for (const layers of [null, [], 'brick', 3]) bad({ layers }, /layers must be a map of a field and its values/);
    bad({ layers: { values: [2] } }, /layers must name their field, and it is missing/);
    for (const values of [undefined, { 0: 2 }, 'abc', 2]) bad({ layers: { field: 'brick', values } }, /layer values must be a list/);
    bad({ each: [] }, /"each" must be a non-empty list of maps, not an empty list/);
    for (const each of [{ orange: 0 }, 'xo', null]) bad({ each }, /"each" must be a non-empty list of maps/);
    bad({ each: [{ orange: 0 }, null] }, /but entry 2 is null/);
    bad({ each: [[0, 'xo']] }, /but entry 1 is a list/);
    bad({ each: [{ orange: 0 }, 3] }, /but entry 2 is 3/);
    bad({ each: [new Map([['orange', 0]])] }, /but entry 1 is a Map object/);
    bad({ layers: new Map([['field', 'brick']]) }, /layers must be a map of a field and its values, not a Map object/);
    // three layers of 16 x 6 bits: bit 287 is the last one, 288 is past them
    assert.equal(expandGrids([{ ...moveH, bits: hexOf([287]) }]).length, 4);
    bad({ bits: hexOf([288]) }, /bits reach past its 3 layers of 16 by 6/);
    bad({ layers: { field: 'brick', values: [] } }, /bits reach past its 0 layers/);
    // a grid without layers needs no height
    assert.deepEqual(expandGrids([{ fixed: {}, fields: ['x', 'y'], origin: [0, 0], width: 2, bits: '8' }]), [{ x: 1, y: 1 }]);
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
  it('9-tower: the layered grids, the grids, the compact groups and client.legal() expand to the plain list, round after round', async () => {
    const alice = await connect('alice');
    const table = await alice.createTable('nmbr9', 1, { seed: 5 });
    await alice.join(table);
    for (let round = 1; round <= 6; round++) {
      // a grid per level, its layers the card's distinct rotations over one origin and size
      const layered = await alice.requestWithRetry('legal', { table, form: LAYERED });
      assert.ok(layered.grids.length > 0 && !('groups' in layered) && !('actions' in layered));
      for (const g of layered.grids) {
        assert.equal(g.layers.field, 'rot');
        assert.ok(Number.isInteger(g.height) && g.height > 0 && !('each' in g));
        assert.equal(new Set(g.layers.values).size, g.layers.values.length);
        assert.ok(!('rot' in g.fixed));
      }
      const grid = await alice.requestWithRetry('legal', { table, form: GRID });
      const compact = await alice.requestWithRetry('legal', { table, form: COMPACT });
      const plain = await alice.requestWithRetry('legal', { table });
      assert.ok(grid.grids.length > 0 && !('groups' in grid) && !('actions' in grid));
      assert.ok(grid.grids.every((g) => /^[0-9a-f]+$/.test(g.bits)));
      assert.deepEqual(keys(expandGrids(grid.grids)), keys(plain.actions));
      assert.deepEqual(keys(expandGrids(layered.grids)), keys(plain.actions));
      assert.equal(expandGrids(layered.grids).length, plain.actions.length);
      assert.ok(compact.groups.length > 0 && !('actions' in compact));
      assert.deepEqual(keys(expandGroups(compact.groups)), keys(plain.actions));
      const { actions, version } = await alice.legal(table);
      assert.equal(version, plain.version);
      assert.deepEqual(keys(actions), keys(plain.actions));
      await alice.act(table, actions[actions.length - 1]);
    }
    await alice.close();
  });

  it('wall duel: the layered grids (placing: one over dir h and v; moving: one a direction over the bricks) expand to the plain list', async () => {
    const ann = await connect('ann');
    const table = await ann.createTable('brix', 2, { seed: 3, bricks: 4 });
    const { seat } = await ann.join(table);
    await ann.addBot(table);
    await ann.waitFor(table, (m) => m.view.status === 'playing');
    const seen = { place: 0, move: 0 };
    let acted = 0; // the version that holds this seat's last action: the mirror must have it
    for (let turn = 0; turn < 6; turn++) {
      const { view } = await ann.waitFor(table, (m) => m.version >= acted && (m.view.status !== 'playing' || m.view.to_act.includes(seat)));
      if (view.status !== 'playing') break;
      const plain = await ann.requestWithRetry('legal', { table });
      const layered = await ann.requestWithRetry('legal', { table, form: LAYERED });
      assert.equal(layered.version, plain.version);
      assert.ok(!('groups' in layered) && !('actions' in layered));
      for (const g of layered.grids) {
        assert.equal(g.each.length, 4);
        assert.deepEqual(keys(g.each), keys([{ orange: 0, face: 'xo' }, { orange: 0, face: 'ox' }, { orange: 1, face: 'xo' }, { orange: 1, face: 'ox' }]));
      }
      if (view.phase === 'place') {
        assert.equal(layered.grids.length, 1);
        assert.deepEqual(layered.grids[0].layers, { field: 'dir', values: ['h', 'v'] });
      } else {
        assert.equal(view.phase, 'move');
        assert.ok(layered.grids.length >= 1);
        for (const g of layered.grids) assert.equal(g.layers.field, 'brick');
      }
      seen[view.phase] += 1;
      const actions = expandGrids(layered.grids);
      assert.equal(actions.length, plain.actions.length);
      assert.deepEqual(keys(actions), keys(plain.actions));
      acted = await ann.act(table, plain.actions[0]); // a safe move first, when there is one
    }
    assert.ok(seen.place >= 2 && seen.move >= 1, JSON.stringify(seen));
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
      // Bots may still be moving (the number row's setup is simultaneous): the replies are
      // compared at one version, asked again from the plain one when the table moved on.
      for (let attempt = 1; ; attempt++) {
        const plain = await player.requestWithRetry('legal', { table });
        assert.ok(plain.actions.length > 0);
        const replies = [];
        for (const form of FORMS) replies.push([form, await player.requestWithRetry('legal', { table, form })]);
        const listed = await player.legal(table);
        if (replies.some(([, r]) => r.version !== plain.version) || listed.version !== plain.version) {
          assert.ok(attempt < 50, 'the table kept moving between the asks');
          continue;
        }
        for (const [form, reply] of replies) {
          assert.deepEqual(keys(listedActions(reply)), keys(plain.actions), form);
        }
        assert.deepEqual(keys(listed.actions), keys(plain.actions));
        break;
      }
    });
  }
});
