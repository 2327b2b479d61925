// Game views by game id; any other game gets the generic view (the board as named
// values, its legal actions chosen in steps), so a fifth game is playable before it has
// its own view.
//
// A game module exports createView(root, ctx) and, for people, optionally (the rules
// themselves come from the server: list_games `howto`, shown by ../howto.js):
//   optionWords  {option: {label, hint?, choices?: {id: words}, zero?: words}},
//   describe(event, name) -> a log sentence or null,
//   reason(code) -> the result's reason in words, or null (engines that send codes),
//   breakdown(view) -> {columns, rows: [per seat]} for the end-of-game table: the parts
//                of the score (they add up to it), optionally after: {columns, rows}
//                shown beyond the score (counts, tie-breaks) and a note below it.

import * as brix from './brix.js';
import * as completto from './completto.js';
import * as generic from './generic.js';
import * as nmbr9 from './nmbr9.js';
import * as termite from './termite.js';

const VIEWS = { nmbr9, brix, completto, termite };

export function gameView(id) {
  return VIEWS[id] ?? generic;
}
