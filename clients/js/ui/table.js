// A table page: header (game, status, turn, deadline), the seats with presence, the
// result, the game's own view (ui/games/<id>.js), an event log, resign / leave.
//
// Entering: with a stored seat token we take the seat back (join with token), else we
// spectate (also with #/table/<id>?watch).  Leaving the page sends `leave`: the seat
// and its token are kept, the lobby offers "Resume".
//
// Game views implement createView(root, ctx) -> {update(view), destroy(), describe?(event)};
// ctx = {seat (null = spectator), seatName(seat), act(action) -> Promise<bool>,
//        legal() -> Promise<actions | null>, say(text, kind)}.

import { formatSeconds, h, replace } from './dom.js';
import { gameView } from './games/index.js';

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
  const log = h('ol', { class: 'event-log' });
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
      ),
      seatsBar,
      banner,
      errorLine,
      gameRoot,
      h('footer', { class: 'table-foot' }, resignBtn, shareBtn, h('details', { class: 'log' }, h('summary', {}, 'Game log'), log)),
    ),
  );
  gameRoot.append(h('p', { class: 'muted loading' }, 'Loading table…'));

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
        await client.act(table, action);
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
      const who = winners.length ? `${winners.includes(seat) ? 'You win' : `${winners.map(seatName).join(' and ')} win${winners.length === 1 ? 's' : ''}`}` : 'No winner';
      const scores = result.scores ? ` · scores ${result.scores.map((sc, i) => `${seatName(i)} ${sc}`).join(', ')}` : '';
      banner.textContent = `${who}${result.reason ? ` — ${result.reason}` : ''}${scores}`;
    } else {
      banner.hidden = true;
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
      controller = gameView(view.game).createView(gameRoot, ctx);
      controllerKey = key;
    }
    renderHeader();
    renderSeats();
    renderBanner();
    tick();
    controller.update(view);
  }

  function describe(event) {
    const text = controller?.describe?.(event);
    if (text) return text;
    const who = event.seat !== undefined ? `${seatName(event.seat)}: ` : '';
    const rest = Object.entries(event)
      .filter(([k]) => !['type', 'seat', 'version'].includes(k))
      .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join(', ');
    return `${who}${event.type}${rest ? ` (${rest})` : ''}`;
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
    const url = `${location.origin}${location.pathname}#/table/${table}?watch`;
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
      for (const event of events) log.prepend(h('li', { data: { version } }, describe(event)));
      while (log.children.length > 200) log.lastChild.remove();
    }),
    client.on('resume_failed', ({ table: t, code }) => {
      if (t !== table) return;
      app.toast(`Lost this table after reconnecting (${code})`, 'error');
      if (seat !== null) {
        app.seats.forget(table);
        spectate().catch(() => {});
      }
    }),
    client.on('table_closed', ({ table: t, reason }) => {
      if (t === table) showError(`This table was closed: ${reason ?? ''}`);
    }),
  );
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
