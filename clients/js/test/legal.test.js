// The compact form of `legal` (protocol/README.md "Compact legal"): expanding its groups,
// and against a real hub, the expanded 9-tower reply is exactly the plain one and a game
// without a compact form answers the plain list.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { expandGroups, listedActions } from '../lib/index.js';
import { sharedHub } from '../testing/shared_hub.js';

const { connect } = sharedHub();

const keys = (actions) => actions.map((a) => JSON.stringify(a, Object.keys(a).sort())).sort();

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

  it('9-tower: the client asks compact, and it expands to the plain list', async () => {
    const alice = await connect('alice');
    const table = await alice.createTable('nmbr9', 1, { seed: 5 });
    await alice.join(table);
    for (let round = 1; round <= 6; round++) {
      const compact = await alice.requestWithRetry('legal', { table, form: 'compact' });
      const plain = await alice.requestWithRetry('legal', { table });
      assert.ok(compact.groups.length > 0 && !('actions' in compact));
      const { actions, version } = await alice.legal(table);
      assert.equal(version, plain.version);
      assert.deepEqual(keys(actions), keys(plain.actions));
      await alice.act(table, actions[actions.length - 1]);
    }
    await alice.close();
  });

  it('a game without a compact form answers the plain list', async () => {
    const alice = await connect('alice');
    const table = await alice.createTable('brix', 2);
    await alice.join(table);
    await alice.addBot(table);
    const compact = await alice.requestWithRetry('legal', { table, form: 'compact' });
    const plain = await alice.requestWithRetry('legal', { table });
    assert.deepEqual(compact.actions, plain.actions);
    assert.deepEqual((await alice.legal(table)).actions, plain.actions);
    await alice.close();
  });
});
