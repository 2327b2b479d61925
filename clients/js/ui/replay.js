// A game's replay (protocol/README.md "Replays"): step through a table's game move by
// move -- first, back, forward, last, jump to a round (or turn: the server numbers
// them) -- as a chosen seat saw it (or the spectators), or, once the game is over,
// all-seeing (every hand and face-down piece, listed under the line), with one line per
// move in the game log's words, and download the game record of a finished game.
//
// Opened from the lobby's recent finished games, the end-of-game screen, and the
// address /?replay=TABLE (#/replay/TABLE inside the page).  The server decides whose
// views may be seen: any seat once the game is over; while it is on, your own seat
// or the spectators'.  The views come as the `replay` request's pages: the view at the
// first version, then one patch per version, every hash checked as the live table's.
//
// Also here: the lobby's "Recent finished games" list (recentGames).

import { applyPatch, viewHash } from '../lib/index.js';
import { h, replace } from './dom.js';
import { gameView } from './games/index.js';

const SPECTATORS = 'spectators';
const ALL_SEEING = 'all'; // the audience of the all-seeing view
const words = (id) => String(id).replaceAll('_', ' ');

/** The replay page's own style sheet, added once. */
function ensureStyle() {
  if (document.querySelector('link[data-replay-style]')) return;
  document.head.append(h('link', { rel: 'stylesheet', href: 'ui/replay.css', data: { replayStyle: '' } }));
}

/** Every version of `audience`'s replay (a seat, null: the spectators, ALL_SEEING):
 * {views, moves, rounds (each version's round number from the server), roundName, status, game}. */
async function loadReplay(client, table, audience) {
  const views = [];
  const moves = [];
  const rounds = [];
  const asked = audience === ALL_SEEING ? { allSeeing: true } : { seat: audience };
  let first = 0;
  let reply;
  for (;;) {
    reply = await client.replay(table, { ...asked, from: first });
    let view = reply.start.view;
    if ((await viewHash(view)) !== reply.start.hash) throw new Error('the replay did not check out (a view hash differs); try again');
    views[reply.start.version] = view;
    rounds[reply.start.version] = reply.start.round;
    for (const move of reply.moves) {
      view = applyPatch(view, move.ops);
      if ((await viewHash(view)) !== move.hash) throw new Error(`the replay did not check out at move ${move.version}; try again`);
      views[move.version] = view;
      moves[move.version] = move;
      rounds[move.version] = move.round;
    }
    const last = views.length - 1;
    if (last >= reply.newest || !reply.moves.length) break;
    first = last;
  }
  return { views, moves, rounds, roundName: reply.round_name ?? 'turn', status: reply.status, game: reply.game };
}

/** [{round, version}]: the first version of each round once play began (the round
 * numbers are the server's, from each version's view). */
function roundStarts(replay) {
  const starts = [];
  replay.rounds.forEach((round, version) => {
    if (round === null || round === undefined || round === starts.at(-1)?.round) return;
    starts.push({ round, version });
  });
  return starts;
}

export function mountReplay(root, app, table, { seat: wanted = null } = {}) {
  ensureStyle();
  const { client } = app;
  let replay = null; // {views, moves, status, game}
  let at = 0; // the version shown
  let audience = wanted; // a seat number, null for the spectators, or ALL_SEEING
  let module = null;
  let controller = null;
  let closed = false;
  let started = false; // shown once: a change of seat keeps the move

  const title = h('h2', { class: 'table-title' }, 'Replay ', h('code', {}, table));
  const position = h('span', { class: 'pill replay-position', 'aria-live': 'polite' });
  const buttons = {
    first: h('button', { class: 'replay-first', title: 'the table as it began (Home)', on: { click: () => show(0) } }, '« First'),
    back: h('button', { class: 'replay-back', title: 'the move before (←)', on: { click: () => show(at - 1) } }, '◀ Back'),
    forward: h('button', { class: 'replay-forward primary', title: 'the next move (→)', on: { click: () => show(at + 1) } }, 'Forward ▶'),
    last: h('button', { class: 'replay-last', title: 'the end (End)', on: { click: () => show(replay.views.length - 1) } }, 'Last »'),
  };
  const rounds = h('select', { class: 'replay-round', 'aria-label': 'jump to a turn', on: { change: () => show(Number(rounds.value)) } });
  const roundLabel = h('span', {}, 'Jump to turn');
  const seats = h('select', { class: 'replay-seat', 'aria-label': 'whose view', on: { change: () => switchSeat(seats.value) } });
  const allSeeing = h('input', { type: 'checkbox', class: 'replay-all-seeing', on: { change: () => switchSeat(allSeeing.checked ? ALL_SEEING : seats.value) } });
  const allSeeingPick = h('label', { class: 'replay-pick replay-all-pick', hidden: true, title: 'the game is over: show every hand and every face-down piece' }, allSeeing, h('span', {}, 'Show everything'));
  const hidden = h('div', { class: 'card replay-hidden', hidden: true, 'aria-live': 'polite' });
  const download = h('button', { class: 'replay-download', hidden: true, on: { click: downloadRecord } }, 'Download record');
  const line = h('p', { class: 'replay-line', 'aria-live': 'polite' }, 'Loading the replay…');
  const gameRoot = h('div', { class: 'game-root' });
  const log = h('ol', { class: 'event-log replay-log', 'aria-label': 'the game so far, newest first' });

  replace(
    root,
    h(
      'div',
      { class: 'replay-page', data: { table } },
      h('header', { class: 'table-head' }, h('a', { href: '#/', class: 'back' }, '← Lobby'), title, position),
      h(
        'nav',
        { class: 'replay-controls', 'aria-label': 'replay controls' },
        h('span', { class: 'replay-steps' }, buttons.first, buttons.back, buttons.forward, buttons.last),
        h('label', { class: 'replay-pick' }, roundLabel, rounds),
        h('label', { class: 'replay-pick' }, h('span', {}, 'View as'), seats),
        allSeeingPick,
        download,
      ),
      line,
      hidden,
      gameRoot,
      h('details', { class: 'log', open: true }, h('summary', {}, 'Game log'), log),
    ),
  );
  window.scrollTo(0, 0);

  const viewAt = (version) => replay.views[version];
  const seatName = (s) => viewAt(replay.views.length - 1)?.seats?.[s]?.name ?? `seat ${s + 1}`;
  const ctx = {
    get seat() {
      return audience === ALL_SEEING ? null : audience;
    },
    seatName,
    act: async () => false,
    legal: async () => null,
    legalStep: async () => null,
    say: () => {},
    clearError: () => {},
  };

  /** The move that made `version`, in the game log's words. */
  function narrate(version) {
    if (version === 0) return 'The table is set up; nobody has sat down yet.';
    const move = replay.moves[version];
    if (!move) return '';
    if (move.kind === 'seat') {
      const who = viewAt(version).seats[move.seat];
      return who.bot ? `A bot took seat ${move.seat + 1}.` : `${who.name ?? 'Someone'} sat down at seat ${move.seat + 1}.`;
    }
    const said = move.events.map((event) => module?.describe?.(event, seatName) ?? genericSentence(event)).filter(Boolean);
    const text = said.join(' ') || `${seatName(move.seat)} moved.`;
    if (move.by === 'deadline') return `Time ran out for ${seatName(move.seat)}: the bot played for them. ${text}`;
    return text;
  }

  function genericSentence(event) {
    const who = event.seat !== undefined && event.seat !== null ? `${seatName(event.seat)}: ` : '';
    return `${who}${words(event.type)}.`;
  }

  function show(version) {
    if (!replay) return;
    at = Math.max(0, Math.min(replay.views.length - 1, version));
    const view = viewAt(at);
    const last = replay.views.length - 1;
    position.textContent = `move ${at} of ${last}`;
    buttons.first.disabled = buttons.back.disabled = at === 0;
    buttons.forward.disabled = buttons.last.disabled = at === last;
    const starts = roundStarts(replay);
    const current = starts.filter((s) => s.version <= at).length - 1;
    rounds.value = current >= 0 ? String(starts[current].version) : '';
    line.textContent = narrate(at);
    showHidden(view.board?.revealed);
    controller.update(view);
    replace(
      log,
      Array.from({ length: at }, (_, k) => at - k)
        .map((v) => h('li', { data: { version: v } }, narrate(v)))
        .filter((li) => li.textContent),
    );
  }

  /** What was hidden at this move (the all-seeing view's `revealed`), in words. */
  function showHidden(revealed) {
    hidden.hidden = audience !== ALL_SEEING;
    if (hidden.hidden) return;
    if (!revealed) {
      replace(hidden, h('p', {}, 'Nothing is hidden in this game: every player sees the whole table.'));
      return;
    }
    replace(
      hidden,
      h('h3', {}, 'Hidden from the players at this move'),
      h(
        'ul',
        { class: 'replay-hidden-list' },
        revealed.map((part) => {
          const what = part.seat === null ? part.what : `${seatName(part.seat)}: ${part.what}`;
          return h('li', {}, h('strong', {}, `${what}: `), part.items.length ? part.items.join(', ') : 'none');
        }),
      ),
    );
  }

  function fillPickers() {
    const starts = roundStarts(replay);
    const name = replay.roundName === 'round' ? 'Round' : 'Turn';
    roundLabel.textContent = `Jump to ${name.toLowerCase()}`;
    rounds.setAttribute('aria-label', `jump to a ${name.toLowerCase()}`);
    replace(
      rounds,
      h('option', { value: '', disabled: true }, 'before play'),
      starts.map((s) => h('option', { value: String(s.version) }, `${name} ${s.round}`)),
    );
    const finished = replay.status === 'finished';
    const mine = app.seats.get(table)?.seat ?? null;
    const end = viewAt(replay.views.length - 1);
    replace(
      seats,
      h('option', { value: SPECTATORS, selected: audience === null }, 'the spectators'),
      end.seats.map((s, i) =>
        h('option', { value: String(i), selected: audience === i, disabled: !finished && i !== mine }, `${s.name ?? `seat ${i + 1}`}${s.bot ? ' (bot)' : ''}${i === mine ? ' (you)' : ''}`),
      ),
    );
    seats.disabled = audience === ALL_SEEING;
    allSeeingPick.hidden = !finished;
    allSeeing.checked = audience === ALL_SEEING;
    download.hidden = !finished;
  }

  async function load() {
    line.textContent = 'Loading the replay…';
    try {
      replay = await loadReplay(client, table, audience);
    } catch (err) {
      if (closed) return;
      replace(gameRoot, h('div', { class: 'card error' }, h('h3', {}, err.code === 'unknown_table' ? 'No such game' : 'Cannot show this replay'), h('p', {}, err.reason ?? err.message), h('a', { href: '#/' }, 'Back to the lobby')));
      line.textContent = '';
      return;
    }
    if (closed) return;
    const game = app.gameInfo(replay.game);
    replace(title, `Replay: ${game.name} `, h('code', {}, table));
    controller?.destroy?.();
    replace(gameRoot);
    module = gameView(replay.game);
    controller = module.createView(gameRoot, ctx);
    fillPickers();
    show(started ? at : (roundStarts(replay)[0]?.version ?? 0)); // a new replay: where play began
    started = true;
  }

  function switchSeat(value) {
    audience = value === ALL_SEEING ? ALL_SEEING : value === SPECTATORS ? null : Number(value);
    load();
  }

  async function downloadRecord() {
    try {
      const record = await client.record(table);
      const blob = new Blob([`${JSON.stringify(record, null, 1)}\n`], { type: 'application/json' });
      const url = URL.createObjectURL(blob);
      const a = h('a', { href: url, download: `tablehub-${table}.json`, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      app.toast('Game record downloaded: check it with tablehub replay --verify FILE');
    } catch (err) {
      app.toast(err.reason ?? err.message, 'error');
    }
  }

  function onKey(event) {
    if (!replay || event.target.closest?.('select, input, textarea')) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: replay.views.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    show(to);
  }
  window.addEventListener('keydown', onKey);

  load();
  return {
    destroy() {
      closed = true;
      window.removeEventListener('keydown', onKey);
      controller?.destroy?.();
    },
  };
}

/** "ann won with 41 points" -- a finished lobby line's result in words. */
function resultWords(row) {
  const result = row.result;
  if (!result) return 'finished';
  const name = (s) => row.seats[s]?.name ?? `seat ${s + 1}`;
  const winners = result.winners ?? [];
  const score = (s) => (result.scores?.[s] === undefined ? '' : ` with ${result.scores[s]} point${result.scores[s] === 1 ? '' : 's'}`);
  if (!winners.length) return 'nobody won';
  if (winners.length === 1) return `${name(winners[0])} won${score(winners[0])}`;
  return `${winners.map(name).join(' and ')} shared the win${score(winners[0])}`;
}

/** The lobby's "Recent finished games": per game, its finished tables with their result
 * and a Replay button.  {root, update(tables, gameFilter)}. */
export function recentGames(app) {
  ensureStyle();
  const list = h('div', { class: 'recent-games' });
  const root = h('section', { class: 'recent' }, h('h2', {}, 'Recent finished games'), list);
  function update(tables, game) {
    const finished = tables.filter((t) => t.status === 'finished' && (!game || t.game === game));
    root.hidden = !finished.length;
    const byGame = new Map();
    for (const row of finished) byGame.set(row.game, [...(byGame.get(row.game) ?? []), row]);
    replace(
      list,
      [...byGame].map(([id, rows]) =>
        h(
          'div',
          { class: 'recent-game', data: { game: id } },
          h('h3', {}, app.gameInfo(id).name),
          h(
            'ul',
            { class: 'recent-list' },
            rows.map((row) =>
              h(
                'li',
                { class: 'recent-row', data: { table: row.table } },
                h('span', { class: 'recent-players' }, row.seats.map((s) => s.name ?? 'free').join(', ')),
                h('span', { class: 'recent-result muted' }, resultWords(row)),
                h('a', { class: 'button replay-link', href: `#/replay/${row.table}` }, 'Replay'),
              ),
            ),
          ),
        ),
      ),
    );
  }
  return { root, update };
}
