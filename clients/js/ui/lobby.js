// The lobby: the hosted games with a "new table" form each, and the live table list
// (subscribe_tables) with join / resume / add bot / watch.  Option names and choices
// come in words from the game modules (games/index.js), never as raw ids; each game's
// "How to play" opens the rules the server gives (howto.js).
//
// Bot levels: a `list_games` entry may carry `bot_levels` ([{id, name, description}],
// weakest first) and `default_bot_level`; then the form offers the choice and `add_bot`
// sends `level`.  Without them (older servers) there is no selector and no level.

import { h, replace } from './dom.js';
import { recentGames } from './replay.js';
import { gameView } from './games/index.js';
import { howtoButton } from './howto.js';

const STATUS_LABEL = { waiting: 'waiting for players', playing: 'playing', finished: 'finished' };

const capitalised = (text) => `${text[0].toUpperCase()}${text.slice(1)}`;

function optionInput(game, name, spec) {
  const id = `opt-${game.id}-${name}`;
  const words = gameView(game.id).optionWords?.[name] ?? {};
  const label = words.label ?? capitalised(name.replaceAll('_', ' '));
  let input;
  if (spec.type === 'boolean') {
    input = h('input', { id, name, type: 'checkbox', checked: spec.default === true });
  } else if (spec.choices) {
    input = h('select', { id, name }, spec.choices.map((c) => h('option', { value: c, selected: c === spec.default }, words.choices?.[c] ?? String(c).replaceAll('_', ' '))));
  } else if (spec.type === 'integer') {
    // An option whose 0 means "off" shows empty with that word (empty sends the default).
    const off = words.zero && spec.default === 0;
    input = h('input', { id, name, type: 'number', step: 1, min: spec.minimum, max: spec.maximum, value: off ? '' : (spec.default ?? ''), placeholder: words.zero });
  } else {
    input = h('input', { id, name, value: spec.default ?? '' });
  }
  return h('label', { class: 'opt', title: words.hint ?? spec.description, for: id }, h('span', {}, label), input, words.hint ? h('small', { class: 'muted hint' }, words.hint) : null);
}

function botLevelInput(game) {
  if (!Array.isArray(game.bot_levels) || !game.bot_levels.length) return null;
  const wanted = game.default_bot_level ?? game.bot_levels[0].id;
  return h(
    'label',
    { class: 'opt bot-level' },
    h('span', {}, 'Bot strength'),
    h('select', { name: 'bot_level' }, game.bot_levels.map((l) => h('option', { value: l.id, selected: l.id === wanted, title: l.description ?? '' }, l.name ?? l.id))),
  );
}

function readOptions(form, game) {
  const options = {};
  for (const [name, spec] of Object.entries(game.options ?? {})) {
    const el = form.elements.namedItem(name);
    if (!el) continue;
    if (spec.type === 'boolean') {
      if (el.checked !== spec.default) options[name] = el.checked;
    } else if (spec.type === 'integer') {
      if (el.value !== '' && Number(el.value) !== spec.default) options[name] = Number(el.value);
    } else if (el.value !== spec.default) {
      options[name] = el.value;
    }
  }
  const turn = form.elements.namedItem('turn_seconds').value;
  if (turn !== '') options.turn_seconds = Number(turn);
  const seed = form.elements.namedItem('seed').value;
  if (seed !== '') options.seed = Number(seed);
  return options;
}

function gameCard(app, game) {
  const seatsSelect = h(
    'select',
    { name: 'seats', class: 'seats-select' },
    Array.from({ length: game.max_players - game.min_players + 1 }, (_, i) => game.min_players + i).map((n) =>
      h('option', { value: n, selected: n === Math.min(game.max_players, Math.max(game.min_players, 2)) }, `${n} player${n > 1 ? 's' : ''}`),
    ),
  );
  const form = h(
    'form',
    {
      class: 'new-table',
      data: { game: game.id },
      on: {
        submit: async (event) => {
          event.preventDefault();
          const button = form.querySelector('button[type=submit]');
          button.disabled = true;
          try {
            const bots = form.elements.namedItem('bots').checked;
            const level = form.elements.namedItem('bot_level')?.value;
            await createAndSit(app, game, Number(seatsSelect.value), readOptions(form, game), bots ? { level } : null);
          } catch (err) {
            app.toast(err.reason ?? err.message, 'error');
          } finally {
            button.disabled = false;
          }
        },
      },
    },
    h('label', { class: 'opt' }, h('span', {}, 'Players'), seatsSelect),
    Object.entries(game.options ?? {}).map(([name, spec]) => optionInput(game, name, spec)),
    h('label', { class: 'opt', title: 'a late player gets the bot’s move' }, h('span', {}, 'Seconds per turn'), h('input', { name: 'turn_seconds', type: 'number', min: 1, max: 86400, placeholder: 'no limit' })),
    h('details', { class: 'advanced' }, h('summary', {}, 'more'), h('label', { class: 'opt', title: 'same number, same shuffles: replay a game exactly' }, h('span', {}, 'Shuffle number'), h('input', { name: 'seed', type: 'number', min: 0, step: 1, placeholder: 'random' }))),
    h('label', { class: 'opt check' }, h('input', { name: 'bots', type: 'checkbox', checked: true }), h('span', {}, 'Fill the other seats with bots')),
    botLevelInput(game),
    h('button', { class: 'primary', type: 'submit' }, 'Create table & sit'),
  );
  return h(
    'article',
    { class: 'game-card card', data: { game: game.id } },
    h('h3', {}, game.name, h('small', {}, ` ${game.min_players === game.max_players ? game.min_players : `${game.min_players}–${game.max_players}`} players`)),
    howtoButton(game),
    form,
  );
}

/** Create a table, sit at it, and fill the other seats with bots when `bots` ({level?}). */
async function createAndSit(app, game, seatCount, options, bots) {
  await app.enterRoom();
  const { client } = app;
  const table = await client.createTable(game.id, seatCount, options);
  const { seat, token } = await client.join(table);
  app.seats.set(table, seat, token);
  if (bots) for (let i = 1; i < seatCount; i++) await client.addBot(table, bots.level ? { level: bots.level } : {});
  app.go(`#/table/${table}`);
}

function seatChips(row) {
  return h(
    'span',
    { class: 'seat-chips' },
    row.seats.map((s, i) =>
      h(
        'span',
        { class: ['chip', s.name ? null : 'free', s.bot ? 'bot' : null, s.connected ? 'online' : null], title: s.name ? `${s.name}${s.bot ? ' (bot)' : ''}${s.connected ? ', connected' : ''}` : `seat ${i + 1} is free` },
        s.bot ? h('span', { class: 'bot-tag' }, 'bot') : null,
        s.name ?? 'free',
      ),
    ),
  );
}

/** A game on whose people have all left (the server lists such tables last). */
function everyoneLeft(row) {
  const people = row.seats.filter((s) => s.name && !s.bot);
  return row.status === 'playing' && people.length > 0 && !people.some((s) => s.connected);
}

function tableRow(app, row) {
  const { client } = app;
  const mine = app.seats.get(row.table);
  const free = row.seats.some((s) => !s.name && !s.bot);
  const game = app.gameInfo(row.game);
  const act = (fn) => async (event) => {
    event.target.disabled = true;
    try {
      await fn();
    } catch (err) {
      app.toast(err.reason ?? err.message, 'error');
      event.target.disabled = false;
    }
  };
  return h(
    'li',
    { class: ['table-row', row.status], data: { table: row.table, game: row.game, status: row.status } },
    h('div', { class: 'table-what' }, h('strong', {}, game.name), ' ', h('span', { class: 'muted' }, row.name || row.table)),
    everyoneLeft(row)
      ? h('span', { class: ['pill', 'left'], title: 'still on, but every player has left it (bots may play on)' }, 'everyone left')
      : h('span', { class: ['pill', row.status] }, STATUS_LABEL[row.status] ?? row.status),
    seatChips(row),
    h('span', { class: 'muted spectators', title: 'spectators' }, `${row.spectators ?? 0} watching`),
    h(
      'span',
      { class: 'row-actions' },
      mine ? h('button', { class: 'primary resume', on: { click: () => app.go(`#/table/${row.table}`) } }, 'Resume') : null,
      !mine && free && row.status === 'waiting'
        ? h(
            'button',
            {
              class: 'primary join',
              on: {
                click: act(async () => {
                  const { seat, token } = await client.join(row.table);
                  app.seats.set(row.table, seat, token);
                  app.go(`#/table/${row.table}`);
                }),
              },
            },
            'Join',
          )
        : null,
      free && row.status === 'waiting' ? h('button', { class: 'add-bot', on: { click: act(() => client.addBot(row.table)) } }, '+ Bot') : null,
      h('button', { class: 'watch', on: { click: () => app.go(`#/table/${row.table}?watch`) } }, 'Watch'),
    ),
  );
}

export function mountLobby(root, app) {
  const { client } = app;
  const list = h('ul', { class: 'table-list', 'aria-live': 'polite' });
  const filter = h('select', { class: 'game-filter', on: { change: () => render(client.lobby) } }, h('option', { value: '' }, 'all games'), app.games.map((g) => h('option', { value: g.id }, g.name)));
  const hideFinished = h('input', { type: 'checkbox', checked: true, on: { change: () => render(client.lobby) } });
  const empty = h('p', { class: 'muted empty' }, 'No tables yet — create one above, or ask a friend for a link.');
  const recent = recentGames(app);

  function render(tables) {
    const rows = tables.filter((t) => (!filter.value || t.game === filter.value) && !(hideFinished.checked && t.status === 'finished'));
    replace(list, rows.map((row) => tableRow(app, row)));
    empty.hidden = rows.length > 0;
    recent.update(tables, filter.value);
  }

  replace(
    root,
    h(
      'div',
      { class: 'lobby' },
      h('section', { class: 'games' }, h('h2', {}, 'Start a game'), h('div', { class: 'game-grid' }, app.games.map((g) => gameCard(app, g)))),
      h(
        'section',
        { class: 'tables' },
        h('h2', {}, 'Tables ', h('small', { class: 'muted' }, 'live')),
        h('div', { class: 'filters' }, filter, h('label', { class: 'check' }, hideFinished, ' hide finished')),
        list,
        empty,
      ),
      recent.root,
    ),
  );
  const off = client.on('tables', render);
  const offOpen = client.on('open', () => render(client.lobby));
  client.subscribeTables().catch((err) => app.toast(err.message, 'error'));
  render(client.lobby);
  return {
    destroy() {
      off();
      offOpen();
      client.unsubscribeTables().catch(() => {});
    },
  };
}
