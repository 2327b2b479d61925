// A table page: header (game, status, turn, deadline), the seats with presence, the
// result, the game's own view (ui/games/<id>.js), an event log, resign / leave.
//
// Entering: with a stored seat token we take the seat back (join with token), else we
// spectate (also with #/table/<id>?watch).  Leaving the page sends `leave`: the seat
// and its token are kept, the lobby offers "Resume".
//
// Game views implement createView(root, ctx) -> {update(view), destroy(), events?(list)};
// ctx = {seat (null = spectator), seatName(seat), act(action) -> Promise<bool>,
//        legal() -> Promise<actions | null>, legalStep(partial) -> Promise<step | null>
//        (staged legal, protocol/README.md: the next field's choices), say(text, kind)}.
// The game module's words (games/index.js: describe, reason, breakdown) make the log, the result and
// the end-of-game table read as sentences.
//
// A turn the timer played for you (your seat was to act, the deadline passed and your
// seat moved on without your move being accepted) gets a notice, shown until you move
// again, and a log line.

import { formatSeconds, h, replace } from './dom.js';
import { gameView } from './games/index.js';
import { howtoButton } from './howto.js';

const words = (id) => String(id).replaceAll('_', ' ');

/** An event the game has no sentence for, still in words (no field dump). */
function genericSentence(event, name) {
  const who = event.seat !== undefined && event.seat !== null ? `${name(event.seat)}: ` : '';
  return `${who}${words(event.type)}.`;
}

export function mountTable(root, app, table, { watch = false } = {}) {
  const { client } = app;
  let seat = null;
  let view = null;
  let controller = null;
  let controllerKey = null;
  let legalCache = null;
  let closed = false;
  const offs = [];

  const title = h('h2', { class: 'table-title' }, 'Table ', h('code', {}, table));
  const statusPill = h('span', { class: 'pill' });
  const turnInfo = h('span', { class: 'turn-info muted' });
  const clock = h('span', { class: 'deadline', hidden: true, title: 'time left for this turn; then the bot moves for you' });
  const seatsBar = h('ul', { class: 'seats-bar' });
  const banner = h('div', { class: 'banner', hidden: true });
  const errorLine = h('div', { class: 'action-error', role: 'alert', hidden: true });
  const gameRoot = h('div', { class: 'game-root' });
  const endScreen = h('section', { class: 'end-screen card', hidden: true, 'aria-live': 'polite' });
  const notice = h('div', { class: 'timer-notice', role: 'status', hidden: true });
  const howtoSlot = h('span', { class: 'howto-slot' }); // the "How to play" button, once the view names the game
  const log = h('ol', { class: 'event-log', 'aria-label': 'game log, newest first' });
  const resignBtn = h('button', { class: 'danger resign', hidden: true, on: { click: resign } }, 'Resign');
  const shareBtn = h('button', { class: 'share', on: { click: share } }, 'Copy watch link');

  replace(
    root,
    h(
      'div',
      { class: 'table-page', data: { table } },
      h(
        'header',
        { class: 'table-head' },
        h('a', { href: '#/', class: 'back' }, '← Lobby'),
        title,
        statusPill,
        turnInfo,
        clock,
        howtoSlot,
      ),
      seatsBar,
      banner,
      notice,
      errorLine,
      endScreen,
      gameRoot,
      h('footer', { class: 'table-foot' }, resignBtn, shareBtn, h('details', { class: 'log', open: true }, h('summary', {}, 'Game log'), log)),
    ),
  );
  gameRoot.append(h('p', { class: 'muted loading' }, 'Loading table…'));
  window.scrollTo(0, 0);
  let module = null; // the game's module (words), once the view names the game
  let myTurn = null; // {turn, deadline} while this seat is to act
  let actedTurn = null; // the turn of this seat's last accepted action

  const seatName = (s) => {
    const name = view?.seats?.[s]?.name ?? `seat ${s + 1}`;
    return s === seat ? `${name} (you)` : name;
  };

  function showError(text) {
    errorLine.textContent = text;
    errorLine.hidden = false;
  }

  function clearError() {
    errorLine.hidden = true;
    errorLine.textContent = '';
  }

  const ctx = {
    get seat() {
      return seat;
    },
    seatName,
    async act(action) {
      clearError();
      try {
        const before = actedTurn;
        actedTurn = view?.turn; // set before the reply: the patch may arrive first
        try {
          await client.act(table, action);
        } catch (err) {
          actedTurn = before;
          throw err;
        }
        notice.hidden = true; // the notice stays until this seat moves again
        legalCache = null;
        return true;
      } catch (err) {
        showError(err.reason ?? err.message);
        return false;
      }
    },
    legal() {
      if (seat === null) return Promise.resolve(null);
      const version = client.tables.get(table)?.version;
      if (!legalCache || legalCache.version !== version) {
        legalCache = {
          version,
          promise: client
            .legal(table)
            .then((r) => r.actions)
            .catch(() => null),
        };
      }
      return legalCache.promise;
    },
    legalStep(partial) {
      if (seat === null) return Promise.resolve(null);
      return client.legalStep(table, partial).catch(() => null);
    },
    say: (text, kind) => (kind === 'error' ? showError(text) : app.toast(text, kind)),
    clearError,
  };

  function renderHeader() {
    const game = app.gameInfo(view.game);
    replace(title, `${game.name} `, h('code', {}, table));
    statusPill.className = `pill ${view.status}`;
    statusPill.textContent = seat === null ? `${view.status} · watching` : view.status;
    const toAct = view.to_act ?? [];
    turnInfo.textContent =
      view.status === 'playing'
        ? toAct.includes(seat)
          ? 'Your turn'
          : toAct.length
            ? `Waiting for ${toAct.map(seatName).join(', ')}`
            : ''
        : '';
    turnInfo.classList.toggle('yours', view.status === 'playing' && toAct.includes(seat));
    resignBtn.hidden = seat === null || view.status !== 'playing';
  }

  function renderSeats() {
    const presence = client.tables.get(table)?.presence?.seats;
    const toAct = new Set(view.status === 'playing' ? view.to_act ?? [] : []);
    replace(
      seatsBar,
      view.seats.map((s, i) => {
        const online = s.bot || presence?.[i]?.connected;
        const free = !s.name && !s.bot;
        return h(
          'li',
          { class: ['seat', free ? 'free' : null, toAct.has(i) ? 'to-act' : null, i === seat ? 'me' : null], data: { seat: i } },
          h('span', { class: ['dot', online ? 'online' : 'offline'], title: online ? 'connected' : 'not connected' }),
          s.bot ? h('span', { class: 'bot-tag' }, 'bot') : null,
          free ? `seat ${i + 1} free` : seatName(i),
          free && view.status === 'waiting'
            ? h(
                'span',
                { class: 'seat-actions' },
                seat === null ? h('button', { class: 'small sit', on: { click: () => sit(i) } }, 'Sit here') : null,
                h('button', { class: 'small add-bot', on: { click: () => addBot(i) } }, '+ Bot'),
              )
            : null,
        );
      }),
      h('li', { class: 'spectators muted', title: 'spectators' }, `${client.tables.get(table)?.presence?.spectators ?? 0} watching`),
    );
  }

  function renderBanner() {
    const result = view.result;
    if (view.status === 'waiting') {
      const free = view.seats.filter((s) => !s.name && !s.bot).length;
      banner.hidden = false;
      banner.className = 'banner waiting';
      banner.textContent = `Waiting for ${free} more player${free === 1 ? '' : 's'} — share the link, sit down, or add bots.`;
    } else if (result) {
      const winners = result.winners ?? [];
      banner.hidden = false;
      banner.className = `banner finished${winners.includes(seat) ? ' won' : ''}`;
      const why = reasonText(result.reason);
      banner.textContent = `${headline(winners)}${why ? ` — ${why}.` : '.'}`;
    } else {
      banner.hidden = true;
    }
  }

  function headline(winners) {
    if (!winners.length) return 'Nobody wins';
    if (winners.includes(seat)) return winners.length === 1 ? 'You win' : `You share the win with ${winners.filter((w) => w !== seat).map(seatName).join(' and ')}`;
    return `${winners.map(seatName).join(' and ')} win${winners.length === 1 ? 's' : ''}`;
  }

  /** The result's reason for people: the game's words for a code, seats as names. */
  function reasonText(reason) {
    if (!reason) return '';
    const text = module?.reason?.(reason) ?? reason;
    return words(text).replace(/\bseat (\d+)\b/g, (_, n) => seatName(Number(n)));
  }

  /** The end-of-game screen: the ranking with each seat's score broken down. */
  function renderEnd() {
    const result = view.result;
    if (view.status !== 'finished' || !result) {
      endScreen.hidden = true;
      return;
    }
    const winners = result.winners ?? [];
    const scores = result.scores ?? view.seats.map(() => null);
    const parts = module?.breakdown?.(view) ?? { columns: [], rows: [] };
    const order = view.seats.map((_, i) => i).sort((a, b) => (winners.includes(b) - winners.includes(a)) || (scores[b] ?? 0) - (scores[a] ?? 0));
    let place = 0;
    const ranked = order.map((i, k) => {
      if (k === 0 || winners.includes(i) !== winners.includes(order[k - 1]) || scores[i] !== scores[order[k - 1]]) place = k + 1;
      return { i, place };
    });
    const table = h(
      'table',
      { class: 'end-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Place'), h('th', {}, 'Player'), parts.columns.map((c) => h('th', {}, c)), h('th', { class: 'score' }, 'Score'), (parts.after?.columns ?? []).map((c) => h('th', { class: 'after' }, c)))),
      h(
        'tbody',
        {},
        ranked.map(({ i, place: p }) =>
          h(
            'tr',
            { class: [winners.includes(i) ? 'winner' : null, i === seat ? 'me' : null], data: { seat: i } },
            h('td', {}, winners.includes(i) ? `${p} ★` : String(p)),
            h('td', {}, seatName(i)),
            (parts.rows[i] ?? []).map((v) => h('td', { class: 'num' }, String(v))),
            h('td', { class: 'num score' }, scores[i] === null || scores[i] === undefined ? '–' : String(scores[i])),
            (parts.after?.rows[i] ?? []).map((v) => h('td', { class: 'num after' }, String(v))),
          ),
        ),
      ),
    );
    endScreen.hidden = false;
    const why = reasonText(result.reason);
    replace(
      endScreen,
      h('h2', {}, `Game over — ${headline(winners)}`),
      why ? h('p', { class: 'end-reason' }, `${why[0].toUpperCase()}${why.slice(1)}.`) : null,
      h('div', { class: 'end-scroll' }, table),
      parts.note ? h('p', { class: 'end-note muted' }, parts.note) : null,
      h('p', {}, h('a', { href: '#/', class: 'button' }, 'Back to the lobby'), ' ', h('a', { href: `#/replay/${table}`, class: 'button replay-link' }, 'Watch the replay')),
    );
  }

  /** Notice when the deadline played this seat's move (it was to act, time ran out). */
  function checkTimer() {
    if (seat === null || !view) return;
    const toAct = view.status === 'playing' && (view.to_act ?? []).includes(seat);
    if (myTurn && (!toAct || view.turn !== myTurn.turn)) {
      const expired = myTurn.deadline !== null && Date.now() >= myTurn.deadline - 1000;
      if (expired && actedTurn !== myTurn.turn) {
        const text = 'Time ran out: the bot played your move.';
        notice.textContent = text;
        notice.hidden = false;
        log.prepend(h('li', { class: 'timer' }, text));
        app.toast(text, 'info');
      }
      myTurn = null;
    }
    if (toAct && !myTurn) {
      myTurn = { turn: view.turn, deadline: view.deadline ?? null };
    } else if (toAct && myTurn) {
      myTurn.deadline = view.deadline ?? myTurn.deadline;
    }
  }

  function tick() {
    const deadline = view?.deadline;
    if (!deadline || view.status !== 'playing') {
      clock.hidden = true;
      return;
    }
    clock.hidden = false;
    clock.textContent = `${formatSeconds(deadline - Date.now())} left`;
  }
  const timer = setInterval(tick, 250);

  function render(mirror) {
    if (closed || !mirror.view) return;
    view = mirror.view;
    const key = `${view.game}/${seat}`;
    if (controllerKey !== key) {
      controller?.destroy?.();
      replace(gameRoot);
      module = gameView(view.game);
      controller = module.createView(gameRoot, ctx);
      controllerKey = key;
      renderRules();
    }
    renderHeader();
    renderSeats();
    renderBanner();
    checkTimer();
    tick();
    controller.update(view);
    renderEnd();
  }

  function renderRules() {
    replace(howtoSlot, howtoButton(app.gameInfo(view.game)));
  }

  function describe(event) {
    return module?.describe?.(event, seatName) ?? genericSentence(event, seatName);
  }

  async function sit(i) {
    try {
      const { seat: got, token } = await client.join(table, { seat: i });
      app.seats.set(table, got, token);
      seat = got;
      if (watch) history.replaceState(null, '', `#/table/${table}`);
      render(client.tables.get(table));
    } catch (err) {
      app.toast(err.reason ?? err.message, 'error');
    }
  }

  async function addBot(i) {
    try {
      await client.addBot(table, { seat: i });
    } catch (err) {
      app.toast(err.reason ?? err.message, 'error');
    }
  }

  async function resign() {
    if (!confirm('Resign this game?')) return;
    await ctx.act({ type: 'resign' });
  }

  async function share() {
    const url = `${location.origin}${location.pathname}${location.search}#/table/${table}?watch`; // ?room= kept
    try {
      await navigator.clipboard.writeText(url);
      app.toast('Link copied');
    } catch {
      prompt('Copy this link', url);
    }
  }

  async function spectate() {
    seat = null;
    await client.spectate(table);
  }

  async function enter() {
    const saved = app.seats.get(table);
    const mirror = client.tables.get(table);
    try {
      if (!watch && saved) {
        if (mirror?.seated) {
          seat = mirror.seat;
        } else {
          try {
            const got = await client.join(table, { token: saved.token, seat: saved.seat });
            app.seats.set(table, got.seat, got.token);
            seat = got.seat;
          } catch (err) {
            if (err.code === 'unknown_table') throw err;
            app.seats.forget(table);
            app.toast(`Your seat could not be taken back (${err.reason ?? err.code}); watching instead.`, 'error');
            await spectate();
          }
        }
      } else {
        await spectate();
      }
      render(await client.waitFor(table, () => true));
    } catch (err) {
      if (closed) return;
      replace(gameRoot, h('div', { class: 'card error' }, h('h3', {}, err.code === 'unknown_table' ? 'No such table' : 'Cannot open this table'), h('p', {}, err.reason ?? err.message), h('a', { href: '#/' }, 'Back to the lobby')));
    }
  }

  offs.push(
    client.on('view', ({ table: t, mirror }) => t === table && render(mirror)),
    client.on('presence', ({ table: t }) => t === table && view && renderSeats()),
    client.on('event', ({ table: t, version, events }) => {
      if (t !== table) return;
      for (const event of events) log.prepend(h('li', { data: { version, type: event.type } }, describe(event)));
      while (log.children.length > 200) log.lastChild.remove();
      controller?.events?.(events);
    }),
    client.on('resume_failed', ({ table: t, code }) => {
      if (t !== table) return;
      if (code === 'unknown_table') {
        gone('This table is gone', 'The server no longer knows it (it may have restarted, or closed the table).');
        return;
      }
      const why = { seat_taken: 'someone else has your seat now', unauthorized: 'your seat’s key was not accepted' }[code] ?? 'the server could not give it back';
      app.toast(`Your seat was lost after reconnecting: ${why}. Watching instead.`, 'error');
      if (seat !== null) {
        app.seats.forget(table);
        spectate().catch(() => {});
      }
    }),
    client.on('table_closed', ({ table: t, reason }) => {
      if (t === table) gone('This table was closed', reason ? `${reason[0].toUpperCase()}${reason.slice(1)}.` : 'The server closed it.');
    }),
  );

  /** The table no longer exists: say why, instead of a board that will never move. */
  function gone(title, text) {
    closed = true; // no more pushes come for it
    app.seats.forget(table);
    controller?.destroy?.();
    controller = null;
    controllerKey = null;
    clock.hidden = resignBtn.hidden = shareBtn.hidden = notice.hidden = endScreen.hidden = banner.hidden = true;
    statusPill.className = 'pill closed';
    statusPill.textContent = 'closed';
    turnInfo.textContent = '';
    replace(seatsBar);
    replace(gameRoot, h('div', { class: 'card closed-table' }, h('h3', {}, title), h('p', {}, text), h('a', { href: '#/' }, 'Back to the lobby')));
  }

  enter();

  return {
    destroy() {
      closed = true;
      clearInterval(timer);
      offs.forEach((off) => off());
      controller?.destroy?.();
      if (client.tables.has(table)) client.leave(table).catch(() => {});
    },
  };
}
