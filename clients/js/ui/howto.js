// "How to play": a game's rules for players, as the server gives them (list_games
// `howto`: sections of a title and paragraphs, protocol/README.md "How to play") -- the
// same text the terminal's `help` and the game's rules page show.  One panel (a modal
// dialog) for every game, opened from the lobby's game cards and the table page; a game
// without a how-to shows its short help instead.

import { h, replace } from './dom.js';

let dialog = null;

/** The sections to show: the game's howto, or its help split into paragraphs. */
function sectionsOf(game) {
  if (Array.isArray(game.howto) && game.howto.length) return game.howto;
  const help = String(game.help ?? '').trim();
  const paragraphs = help ? help.split(/\n\s*\n/).map((p) => p.replace(/\s*\n\s*/g, ' ')) : [];
  return [{ title: 'The rules', paragraphs: paragraphs.length ? paragraphs : ['Choose one of the moves offered on your turn.'] }];
}

function panel() {
  if (dialog?.isConnected) return dialog;
  dialog = h('dialog', {
    class: 'howto',
    'aria-labelledby': 'howto-title',
    on: {
      // A click on the backdrop (the dialog element itself, outside its content) closes it.
      click: (event) => event.target === dialog && dialog.close(),
    },
  });
  document.body.append(dialog);
  return dialog;
}

/** Open the panel on `game` (a list_games entry). */
export function openHowto(game) {
  const el = panel();
  const sections = sectionsOf(game);
  const ids = sections.map((_, i) => `howto-${game.id}-${i}`);
  replace(
    el,
    h(
      'div',
      { class: 'howto-body', data: { game: game.id } },
      h(
        'header',
        { class: 'howto-head' },
        h('h2', { id: 'howto-title' }, `How to play ${game.name ?? game.id}`),
        h('button', { class: 'howto-close', type: 'button', 'aria-label': 'close', on: { click: () => el.close() } }, 'Close'),
      ),
      sections.length > 1
        ? h('nav', { class: 'howto-toc', 'aria-label': 'sections' }, sections.map((s, i) => h('a', { href: `#${ids[i]}`, on: { click: (e) => (e.preventDefault(), el.querySelector(`#${ids[i]}`)?.scrollIntoView({ block: 'start' })) } }, s.title)))
        : null,
      sections.map((s, i) => h('section', { class: 'howto-section', id: ids[i] }, h('h3', {}, s.title), (s.paragraphs ?? []).map((p) => h('p', {}, p)))),
    ),
  );
  if (!el.open) el.showModal();
  el.querySelector('.howto-body').scrollTop = 0;
}

/** A "How to play" button opening the panel on `game` (a list_games entry). */
export function howtoButton(game, { label = 'How to play' } = {}) {
  return h('button', { class: 'howto-open', type: 'button', data: { game: game.id }, on: { click: () => openHowto(game) } }, label);
}
