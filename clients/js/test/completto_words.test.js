// The number row's game log (ui/games/completto.js) names a place in a row as the rules
// page does (docs/games/completto.md): a "position", counted from 1 for players -- as
// the all-seeing replay card does ("position 1 holds 52").

import assert from 'node:assert/strict';
import { it } from 'node:test';

import { describe } from '../ui/games/completto.js';

const name = (seat) => `seat ${seat + 1}`;

it('a placement and a move name their positions from 1', () => {
  assert.equal(
    describe({ type: 'place', seat: 0, tile: 52, number: 52, pos: 9, bonus: false }, name),
    'seat 1 placed 52 at position 10.',
  );
  assert.equal(
    describe({ type: 'place', seat: 1, tile: 33, number: 33, pos: 0, bonus: true }, name),
    'seat 2 placed 33 at position 1 and goes again.',
  );
  assert.equal(
    describe({ type: 'move', seat: 1, from: 4, to: 12 }, name),
    'seat 2 moved a face-down tile from position 5 to position 13.',
  );
});
