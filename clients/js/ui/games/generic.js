// Fallback view for a game without its own: the board as nested lists of named values
// and, for a seated player whose turn it is, the legal actions chosen in steps
// (games/steps.js: one field at a time), so a fifth game is playable before it has
// its own view.

import { h, replace } from '../dom.js';
import { nextStep } from './steps.js';

const words = (key) => String(key).replaceAll('_', ' ');

/** A value as text for people (lists joined, nothing for null). */
function valueText(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.map(valueText).join(', ') || '—';
  return String(value);
}

/** The board as nested definition lists. */
function dataEl(value) {
  if (value === null || typeof value !== 'object' || (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null))) {
    return h('span', {}, valueText(value));
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [`${i + 1}`, v]) : Object.entries(value);
  return h('dl', { class: 'generic-data' }, entries.map(([key, v]) => [h('dt', {}, words(key)), h('dd', {}, dataEl(v))]));
}

export function createView(root, ctx) {
  const actions = h('div', { class: 'generic-actions' });
  const board = h('div', { class: 'generic-board' });
  replace(root, h('div', { class: 'generic' }, actions, board));
  let shown = null;
  let legal = [];
  let picks = [];

  function renderActions() {
    let left = legal;
    for (const { key, value } of picks) left = left.filter((a) => JSON.stringify(a[key]) === JSON.stringify(value));
    const step = nextStep(left, ['type']);
    const choose = (action) => ctx.act(action).then((ok) => ok && (picks = []));
    replace(
      actions,
      picks.length ? h('p', {}, 'You chose: ', picks.map((p) => `${words(p.key)} ${valueText(p.value)}`).join(' · ')) : null,
      step
        ? [
            h('p', {}, `Choose the ${words(step.key)}:`),
            step.options.map((o) =>
              h('button', { class: 'small legal-action', on: { click: () => (o.actions.length === 1 ? choose(o.actions[0]) : (picks.push({ key: step.key, value: o.value }), renderActions())) } }, valueText(o.value)),
            ),
          ]
        : left.map((a) => h('button', { class: 'small legal-action', on: { click: () => choose(a) } }, words(a.type ?? 'play'))),
      picks.length ? h('button', { class: 'small', on: { click: () => (picks.pop(), renderActions()) } }, 'Back') : null,
    );
  }

  async function update(view) {
    replace(board, dataEl(view.board));
    const mine = ctx.seat !== null && view.status === 'playing' && (view.to_act ?? []).includes(ctx.seat);
    if (!mine) {
      replace(actions);
      return;
    }
    const stamp = Symbol('update');
    shown = stamp;
    const got = (await ctx.legal()) ?? [];
    if (shown !== stamp) return;
    legal = got;
    picks = [];
    renderActions();
  }

  return { update, destroy() {} };
}
