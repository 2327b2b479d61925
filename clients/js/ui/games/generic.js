// Fallback view for a game without its own: the board as indented data and, for a
// seated player whose turn it is, every legal action as a button.

import { h, replace } from '../dom.js';

export function createView(root, ctx) {
  const actions = h('div', { class: 'generic-actions' });
  const board = h('pre', { class: 'generic-board' });
  replace(root, h('div', { class: 'generic' }, actions, board));
  let shown = -1;

  async function update(view) {
    board.textContent = JSON.stringify(view.board, null, 2);
    const mine = ctx.seat !== null && view.status === 'playing' && (view.to_act ?? []).includes(ctx.seat);
    if (!mine) {
      replace(actions);
      return;
    }
    const stamp = Symbol('update');
    shown = stamp;
    const legal = (await ctx.legal()) ?? [];
    if (shown !== stamp) return;
    replace(
      actions,
      h('p', {}, `${legal.length} legal action${legal.length === 1 ? '' : 's'}:`),
      legal.slice(0, 200).map((action) =>
        h('button', { class: 'small legal-action', on: { click: () => ctx.act(action) } }, JSON.stringify(action)),
      ),
    );
  }

  return { update, destroy() {} };
}
