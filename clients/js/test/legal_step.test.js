// Staged legal through the client library against a real hub: a Termite Towers turn
// chosen one field at a time reaches an action the server accepts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { sharedHub } from '../testing/shared_hub.js';

const shared = sharedHub();
const { connect } = shared;

describe('legalStep', () => {
  it('walks a termite turn field by field to an accepted action', async () => {
    const first = await connect('first');
    const second = await connect('second');
    const table = await first.createTable('termite', 2, { seed: 11 });
    await first.join(table);
    await second.join(table);
    const mirror = await first.waitFor(table, (m) => m.view.status === 'playing');
    const seat = mirror.view.to_act[0];
    const player = seat === 0 ? first : second;
    const { actions, version } = await player.legal(table);
    let partial = {};
    for (;;) {
      const step = await player.legalStep(table, partial);
      assert.ok(step.field && step.choices.length > 0, JSON.stringify(step));
      assert.ok(step.choices.length < actions.length);
      const choice = step.choices[0];
      partial = { ...partial, [step.field]: choice.value };
      if (choice.complete) break;
    }
    assert.ok(actions.some((a) => JSON.stringify(a) === JSON.stringify(partial)));
    assert.ok((await player.act(table, partial)) > version);
  });
});
