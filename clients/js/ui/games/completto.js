// Number row view (docs/games/completto.md): your row of 22 (face-down tiles are "?"), the other
// rows, the pool (face-down count and face-up tiles) and the tile in hand.  Setup: pick
// a gap to insert your face-up tile.  Your turn: draw from the pool or take a face-up
// tile, then click a highlighted slot to place it (or discard it when it fits nowhere);
// or click one of your face-down tiles and then the slot to move it to.  Legal slots
// come from the server's `legal` list.  Spectators see every row, read-only.

import { CLICK, TOUCH, add, h, replace } from '../dom.js';

export function createView(root, ctx) {
  const me = ctx.seat;
  let view = null;
  let legal = [];
  let legalTurn = null;
  let reading = null; // chosen reading of a two-way tile
  let moving = null; // index of the face-down tile picked up to move

  const info = h('div', { class: 'cp-info', role: 'status' });
  const handBox = h('div', { class: 'cp-hand' });
  const myRow = h('div', { class: 'cp-mine' });
  const pool = h('div', { class: 'cp-pool' });
  const others = h('div', { class: 'cp-others' });
  const history = h('div', { class: 'cp-history muted' });
  replace(root, h('div', { class: ['cp', me === null ? 'spectating' : 'playing'] }, info, handBox, myRow, pool, others, history));

  const lastPos = new Map(); // seat -> the row position its latest move went to
  const b = () => view.board;
  const myTurn = () => me !== null && view.status === 'playing' && (b().to_act ?? []).includes(me);
  /** Changes whenever the legal actions may have changed. */
  const keyOf = (v) => `${v.status}/${v.board.phase}/${v.turn}/${JSON.stringify(v.board.hand)}/${v.board.players[me ?? 0]?.setup_left}`;
  const turnKey = () => keyOf(view);

  async function refreshLegal() {
    const key = turnKey();
    if (!myTurn()) {
      legal = [];
      legalTurn = key;
      return;
    }
    const actions = (await ctx.legal()) ?? [];
    if (!view || turnKey() !== key) return;
    legal = actions;
    legalTurn = key;
    const readings = [...new Set(actions.filter((a) => 'reading' in a).map((a) => a.reading))];
    if (!readings.includes(reading)) reading = readings[0] ?? null;
    render();
  }

  const ofType = (type) => legal.filter((a) => a.type === type);

  function tileEl(n, { pos, target, picked, onClick, small, last } = {}) {
    return h(
      onClick ? 'button' : 'span',
      {
        class: ['cp-slot', n === null ? 'down' : 'up', target ? 'target' : null, picked ? 'picked' : null, small ? 'small' : null, last ? 'last' : null],
        data: { pos: pos ?? '', n: n ?? '' },
        title: n === null ? 'face down' : String(n),
        on: onClick ? { click: onClick } : {},
        type: onClick ? 'button' : undefined,
      },
      n === null ? '?' : String(n),
    );
  }

  function readingToggle(readings) {
    if (readings.length < 2) return null;
    return h(
      'span',
      { class: 'cp-readings' },
      'read as ',
      readings.map((r) =>
        h('button', { class: ['small', 'cp-reading', r === reading ? 'on' : null], on: { click: () => ((reading = r), render()) } }, String(r)),
      ),
    );
  }

  function renderInfo() {
    const board = b();
    const phase =
      board.phase === 'setup'
        ? 'Setup: everyone inserts 5 face-up tiles so the face-up numbers ascend'
        : board.phase === 'play'
          ? `${ctx.seatName(board.current)} to play${board.bonus ? ' — bonus turn!' : ''}`
          : 'Game over';
    info.textContent = `Round ${board.round} of ${board.rounds} · ${phase}`;
  }

  function renderHand() {
    const board = b();
    replace(handBox);
    if (!myTurn()) return;
    const ready = legalTurn === turnKey();
    if (board.phase === 'setup') {
      const tile = board.players[me].setup_tile;
      if (!tile) return;
      add(handBox, 
        h('span', { class: 'cp-label' }, `Insert (${board.players[me].setup_left} left): `),
        tileEl(tile.tile),
        readingToggle(tile.readings),
        h('span', { class: 'muted' }, ready ? ` — ${CLICK} a highlighted gap in your row` : ' …'),
      );
      return;
    }
    if (board.hand) {
      const places = ofType('place');
      add(handBox, 
        h('span', { class: 'cp-label' }, 'In hand: '),
        tileEl(board.hand.tile),
        readingToggle([...new Set(places.map((a) => a.reading))]),
        ofType('discard').length
          ? h('button', { class: 'cp-discard', on: { click: () => ctx.act({ type: 'discard' }) } }, 'It fits nowhere: put it face up in the pool')
          : h('span', { class: 'muted' }, ready ? ` — ${CLICK} a highlighted tile of your row to replace it` : ' …'),
      );
      return;
    }
    add(handBox, 
      h('span', { class: 'cp-label' }, 'Your turn: '),
      ofType('take').some((a) => a.source === 'pool')
        ? h('button', { class: 'primary cp-draw', on: { click: () => ctx.act({ type: 'take', source: 'pool' }) } }, `Draw a face-down tile (${board.pool.face_down})`)
        : null,
      h('span', { class: 'muted' }, moving === null ? ` or take a face-up tile from the pool, or ${CLICK} one of your “?” tiles to move it` : ` — now ${CLICK} where the tile should go${TOUCH ? '' : ' (Esc to cancel)'}`),
    );
  }

  function rowEl(seat, big) {
    const board = b();
    const player = board.players[seat];
    const mine = seat === me && myTurn() && legalTurn === turnKey();
    const inserts = mine && board.phase === 'setup' ? new Set(ofType('insert').filter((a) => a.reading === reading).map((a) => a.pos)) : new Set();
    const places = mine && board.hand ? new Set(ofType('place').filter((a) => a.reading === reading).map((a) => a.pos)) : new Set();
    const moves = mine && !board.hand && moving !== null ? new Set(ofType('move').filter((a) => a.from === moving).map((a) => a.to)) : new Set();
    const movable = mine && !board.hand ? new Set(ofType('move').map((a) => a.from)) : new Set();
    const items = [];
    const gap = (pos) =>
      inserts.size
        ? h('button', { class: ['cp-gap', inserts.has(pos) ? 'target' : null], data: { pos }, disabled: !inserts.has(pos), title: `insert at position ${pos + 1}`, on: { click: () => ctx.act({ type: 'insert', pos, reading }) } }, '+')
        : null;
    const from = moving;
    player.row.forEach((n, pos) => {
      items.push(gap(pos));
      let onClick = null;
      if (places.has(pos)) onClick = () => ctx.act({ type: 'place', pos, reading });
      else if (moves.has(pos)) onClick = () => ((moving = null), ctx.act({ type: 'move', from, to: pos }));
      else if (movable.has(pos)) onClick = () => ((moving = moving === pos ? null : pos), render());
      items.push(tileEl(n, { pos, target: places.has(pos) || moves.has(pos), picked: moving === pos, onClick, small: !big, last: lastPos.get(seat) === pos }));
    });
    items.push(gap(player.row.length));
    return h(
      'div',
      { class: ['cp-row-box', seat === me ? 'me' : null, (board.to_act ?? []).includes(seat) ? 'to-act' : null, player.resigned ? 'resigned' : null] },
      h('div', { class: 'cp-row-head' }, h('strong', {}, ctx.seatName(seat)), h('span', { class: 'muted' }, ` · ${player.face_down} face down · penalty ${player.penalty}${player.resigned ? ' · resigned' : ''}${board.phase === 'setup' ? ` · ${player.setup_left} to insert` : ''}`)),
      h('div', { class: 'cp-row', data: { seat } }, items),
    );
  }

  function renderPool() {
    const board = b();
    const canTake = myTurn() && !board.hand && board.phase === 'play';
    const takeable = new Set(ofType('take').filter((a) => a.source === 'faceup').map((a) => a.number));
    replace(
      pool,
      h('span', { class: 'cp-label' }, 'Pool: '),
      h('span', { class: 'cp-pool-down', data: { count: board.pool.face_down } }, `${board.pool.face_down} face down`),
      board.pool.face_up.length ? ' · face up: ' : '',
      board.pool.face_up.map(({ tile }) =>
        tileEl(tile, canTake && takeable.has(tile) ? { target: true, onClick: () => ctx.act({ type: 'take', source: 'faceup', number: tile }) } : {}),
      ),
    );
  }

  function render() {
    if (!view) return;
    const board = b();
    renderInfo();
    renderHand();
    replace(myRow, me === null ? null : rowEl(me, true));
    renderPool();
    replace(
      others,
      board.players.map((_, seat) => (seat === me ? null : rowEl(seat, me === null))),
    );
    replace(
      history,
      board.history.map((r) => h('div', {}, `Round ${r.round}: ${r.winner === null ? 'no winner' : `${ctx.seatName(r.winner)} completed the row`} · penalties ${r.penalties.join(' / ')}`)),
    );
  }

  function onKey(event) {
    if (event.key === 'Escape' && moving !== null) {
      moving = null;
      render();
    }
  }
  document.addEventListener('keydown', onKey);

  return {
    update(next) {
      const changed = !view || keyOf(view) !== keyOf(next);
      view = next;
      if (changed) {
        moving = null;
        refreshLegal();
      }
      render();
    },
    events(list) {
      const moved = list.filter((e) => ['insert', 'place', 'move'].includes(e.type));
      if (!moved.length) return;
      for (const e of moved) lastPos.set(e.seat, e.type === 'move' ? e.to : e.pos);
      render();
    },
    destroy() {
      document.removeEventListener('keydown', onKey);
    },
  };
}

// -- words for people: the game log, the end screen ------------------------------

export const optionWords = {
  rounds: { label: 'Rounds', hint: 'each round costs a point per face-down tile left' },
};

/** A log line for one event, or null for the generic line. */
export function describe(event, name) {
  const who = event.seat !== undefined ? name(event.seat) : '';
  switch (event.type) {
    case 'insert':
      return `${who} slipped ${event.number} into their row.`;
    case 'reveal':
      return `${who} turned up ${event.tile}.`;
    case 'turn':
      return event.bonus ? `${who} plays again.` : `${who} to play.`;
    case 'take':
      return `${who} took ${event.tile} from the ${event.source === 'pool' ? 'face-down pool' : 'face-up tiles'}${event.fits === false ? '; it fits nowhere' : ''}.`;
    case 'place':
      return `${who} placed ${event.number ?? event.tile} at position ${event.pos + 1}${event.bonus ? ' and goes again' : ''}.`;
    case 'discard':
      return `${who} put ${event.tile} face up in the pool.`;
    case 'move':
      return `${who} moved a face-down tile from position ${event.from + 1} to position ${event.to + 1}.`;
    case 'round_end':
      return `Round ${event.round} is over: ${name(event.winner)} completed their row.`;
    case 'round_start':
      return `Round ${event.round} begins; ${name(event.start)} starts.`;
    case 'resign':
      return `${who} resigned.`;
    case 'game_end':
      return 'The game is over.';
    default:
      return null;
  }
}

/** The end screen's breakdown: the penalty points over the rounds (the score is minus
 * those), then the tiles still face down in each row. */
export function breakdown(view) {
  const players = view.board.players ?? [];
  return {
    columns: ['penalty points'],
    rows: players.map((p) => [p.penalty ?? 0]),
    after: { columns: ['tiles still face down'], rows: players.map((p) => [p.face_down ?? 0]) },
    note: 'Each round gives a penalty point for every tile still face down when it ends; the score is minus the penalty, and the fewest penalty points win.',
  };
}
