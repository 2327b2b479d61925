// Game views by game id; any other game gets the generic view (board as data + its
// legal actions as buttons), so a fifth game is playable before it has its own view.

import * as brix from './brix.js';
import * as completto from './completto.js';
import * as generic from './generic.js';
import * as nmbr9 from './nmbr9.js';
import * as termite from './termite.js';

const VIEWS = { nmbr9, brix, completto, termite };

export function gameView(id) {
  return VIEWS[id] ?? generic;
}
