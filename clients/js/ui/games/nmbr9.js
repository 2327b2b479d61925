// 9-tower view (docs/games/nmbr9.md): your layered board with the current tile as a ghost that
// follows the pointer (rotate with Q/E or the buttons; it shows the level it would land
// on, or why it cannot go there), click to pin it (or drag it from the preview), click
// again / Enter / Confirm to place; the remaining-cards tracker, a live leaderboard and
// everyone's boards, each with its latest tile outlined.
// Spectators get the same boards, read-only.
//
// Board data (engine view): {round, rounds, card, remaining[10], finished, winners,
// players: [{tiles: [{digit, x, y, rot, level, cells}], score, resigned, placed}]}.

import { TOUCH, h, replace, svg, svgPoint } from '../dom.js';
import { checkPlacement, placedCells, shapeCells, shapeSize, tileScore } from './nmbr9-rules.js';

const LEVEL_FILL = ['#efe3c8', '#d9b77a', '#b98a45', '#8c5f28', '#5f3d17', '#3d250c'];
const levelFill = (level) => LEVEL_FILL[Math.min(level, LEVEL_FILL.length - 1)];
const MARGIN = 4; // empty cells around a layout: room for the ghost next to it
const MINI_LIMIT = 24; // boards shown below the main one on a huge tournament table

const cellKey = (x, y) => `${x},${y}`;

/** Bounds {x, y, w, h} (cells) of a layout with a margin, at least `min` cells wide/high. */
function bounds(tiles, margin, min) {
  const cells = tiles.flatMap((t) => t.cells);
  if (cells.length === 0) return { x: -Math.floor(min / 2) + 1, y: -Math.floor(min / 2) + 1, w: min, h: min };
  let x0 = Math.min(...cells.map(([x]) => x)) - margin;
  let x1 = Math.max(...cells.map(([x]) => x)) + margin;
  let y0 = Math.min(...cells.map(([, y]) => y)) - margin;
  let y1 = Math.max(...cells.map(([, y]) => y)) + margin;
  const grow = (lo, hi) => {
    const missing = Math.max(0, min - (hi - lo + 1));
    return [lo - Math.floor(missing / 2), hi + Math.ceil(missing / 2)];
  };
  [x0, x1] = grow(x0, x1);
  [y0, y1] = grow(y0, y1);
  return { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

/** Outline segments of a set of cells (edges without a neighbour in the set). */
function outline(cells) {
  const set = new Set(cells.map(([x, y]) => cellKey(x, y)));
  let d = '';
  for (const [x, y] of cells) {
    if (!set.has(cellKey(x, y - 1))) d += `M${x} ${y}h1`;
    if (!set.has(cellKey(x, y + 1))) d += `M${x} ${y + 1}h1`;
    if (!set.has(cellKey(x - 1, y))) d += `M${x} ${y}v1`;
    if (!set.has(cellKey(x + 1, y))) d += `M${x + 1} ${y}v1`;
  }
  return d;
}

/** The cell of a tile where its digit label goes: the one nearest its centre. */
function labelCell(cells) {
  const cx = cells.reduce((s, [x]) => s + x, 0) / cells.length + 0.5;
  const cy = cells.reduce((s, [, y]) => s + y, 0) / cells.length + 0.5;
  let best = cells[0];
  let bestD = Infinity;
  for (const [x, y] of cells) {
    const d = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2;
    if (d < bestD) [best, bestD] = [[x, y], d];
  }
  return best;
}

function tileGroup(tile, index, last) {
  const fill = levelFill(tile.level);
  const [lx, ly] = labelCell(tile.cells);
  return svg(
    'g',
    {
      class: ['n9-tile', last ? 'last' : null],
      data: { digit: tile.digit, x: tile.x, y: tile.y, rot: tile.rot, level: tile.level, round: index + 1 },
    },
    tile.cells.map(([x, y]) => svg('rect', { x, y, width: 1, height: 1, fill })),
    svg('path', { d: outline(tile.cells), class: 'n9-edge' }),
    svg(
      'text',
      { x: lx + 0.5, y: ly + 0.55, class: tile.level >= 2 ? 'n9-digit light' : 'n9-digit' },
      String(tile.digit),
    ),
  );
}

/** The smallest box holding both boxes. */
function union(a, b) {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/** `box` widened (centred) to at least `aspect` = width / height, to fill a wide frame. */
function widen(box, aspect) {
  const w = Math.ceil(box.h * aspect);
  if (!(w > box.w)) return box;
  return { ...box, x: box.x - Math.floor((w - box.w) / 2), w };
}

/**
 * An SVG board of one layout; returns {el, box}.  The latest tile (the last move) is
 * outlined.  `box` (cells) overrides the fitted one, so a board can keep its frame.
 */
function boardSvg(player, seat, { min = 10, margin = MARGIN, title, box: frame } = {}) {
  const tiles = [...player.tiles.entries()].sort((a, b) => a[1].level - b[1].level);
  const box = frame ?? bounds(player.tiles, margin, min);
  const grid = [];
  for (let x = box.x; x <= box.x + box.w; x++) grid.push(`M${x} ${box.y}v${box.h}`);
  for (let y = box.y; y <= box.y + box.h; y++) grid.push(`M${box.x} ${y}h${box.w}`);
  const el = svg(
    'svg',
    {
      class: 'n9-board',
      viewBox: `${box.x} ${box.y} ${box.w} ${box.h}`,
      data: { seat, tiles: player.tiles.length },
      role: 'img',
      'aria-label': title ?? `board of seat ${seat}`,
    },
    svg('path', { d: grid.join(''), class: 'n9-grid' }),
    svg('g', { class: 'n9-tiles' }, tiles.map(([index, tile]) => tileGroup(tile, index, index === player.tiles.length - 1))),
  );
  return { el, box };
}

function tilePreview(digit, rot) {
  const cells = shapeCells(digit, rot);
  const { w, h: ht } = shapeSize(digit, rot);
  return svg(
    'svg',
    { class: 'n9-preview', viewBox: `-0.2 -0.2 ${w + 0.4} ${ht + 0.4}` },
    cells.map(([x, y]) => svg('rect', { x, y, width: 1, height: 1, class: 'n9-preview-cell' })),
    svg('path', { d: outline(cells), class: 'n9-edge' }),
  );
}

export function createView(root, ctx) {
  const me = ctx.seat; // null for spectators
  let view = null;
  let rot = 0;
  let hover = null; // {cx, cy}: the cell under the pointer
  let pinned = null; // {cx, cy}: where the ghost was dropped (awaits confirm)
  let watched = me ?? 0; // whose board is the big one
  let sending = false;
  let main = null; // {el, box} of the big board
  let frame = null; // {seat, box}: the big board's frame, grown only when tiles need it
  let dragging = false; // the tile is being dragged from the preview

  const status = h('div', { class: 'n9-status', role: 'status', 'aria-live': 'polite' });
  const cardBox = h('div', { class: 'n9-card' });
  const confirmBtn = h('button', { class: 'primary n9-confirm', on: { click: () => confirm() } }, 'Confirm');
  const controls = h(
    'div',
    { class: 'n9-controls' },
    h('button', { class: 'n9-rotl', title: 'rotate left (Q)', on: { click: () => rotate(-1) } }, '⟲ Rotate'),
    h('button', { class: 'n9-rotr', title: 'rotate right (E or R)', on: { click: () => rotate(1) } }, 'Rotate ⟳'),
    h('button', { class: 'n9-hint', title: 'pin the best-scoring legal spot', on: { click: () => hint() } }, 'Hint'),
    confirmBtn,
  );
  const hintText = h('p', { class: 'hint-text' }, TOUCH ? 'Tap your board to drop the tile there (or drag the tile from its preview) · Rotate with the buttons · tap it again or Confirm to place it.' : 'Move over your board: the tile follows (or drag it from its preview). Q/E rotate · click to drop · click again or Enter to confirm · Esc to pick it up.');
  const boardWrap = h('div', { class: 'n9-main-board' });
  const boardTitle = h('h3', { class: 'n9-board-title' });
  const tracker = h('div', { class: 'n9-tracker' });
  const leaders = h('ol', { class: 'n9-leaders' });
  const minis = h('div', { class: 'n9-minis' });
  const legend = h(
    'div',
    { class: 'n9-legend' },
    'Levels: ',
    LEVEL_FILL.slice(0, 5).map((fill, level) =>
      h('span', { class: 'n9-swatch', style: { background: fill }, title: `level ${level}` }, String(level)),
    ),
  );

  replace(
    root,
    h(
      'div',
      { class: ['n9', me === null ? 'spectating' : 'playing'] },
      h(
        'div',
        { class: 'n9-play' },
        me === null ? null : h('div', { class: 'n9-top' }, cardBox, controls),
        me === null ? null : status,
        boardTitle,
        boardWrap,
        legend,
        me === null ? null : hintText,
      ),
      h(
        'aside',
        { class: 'n9-side' },
        h('section', {}, h('h3', {}, 'Leaderboard'), leaders),
        h('section', {}, h('h3', {}, 'Cards'), tracker),
      ),
      h('section', { class: 'n9-others' }, h('h3', {}, 'Everyone’s boards'), minis),
    ),
  );

  const board = () => view?.board;
  const mine = () => (me === null ? null : board().players[me]);
  const canPlace = () =>
    me !== null && view?.status === 'playing' && !board().finished && mine() && !mine().placed && !mine().resigned;

  function ghostAt(center) {
    if (!center) return null;
    const digit = board().card;
    const { w, h: ht } = shapeSize(digit, rot);
    const x = center.cx - Math.floor((w - 1) / 2);
    const y = center.cy - Math.floor((ht - 1) / 2);
    return { digit, x, y, rot, cells: placedCells(digit, x, y, rot), check: checkPlacement(mine().tiles, digit, x, y, rot) };
  }

  function drawGhost() {
    if (!main) return;
    main.el.querySelector('.n9-ghost')?.remove();
    if (!canPlace()) return;
    const ghost = ghostAt(pinned ?? hover);
    if (!ghost) return;
    const { ok } = ghost.check;
    const [lx, ly] = labelCell(ghost.cells);
    main.el.append(
      svg(
        'g',
        {
          class: ['n9-ghost', ok ? 'legal' : 'illegal', pinned ? 'pinned' : null],
          data: { x: ghost.x, y: ghost.y, rot: ghost.rot, level: ok ? ghost.check.level : '' },
        },
        ghost.cells.map(([x, y]) => svg('rect', { x, y, width: 1, height: 1 })),
        svg('path', { d: outline(ghost.cells), class: 'n9-ghost-edge' }),
        svg('text', { x: lx + 0.5, y: ly + 0.55, class: 'n9-ghost-label' }, ok ? `L${ghost.check.level}` : '✕'),
      ),
    );
  }

  function showStatus() {
    if (me === null) return;
    status.className = 'n9-status';
    confirmBtn.disabled = true;
    if (!view || view.status !== 'playing') {
      status.textContent = view?.status === 'waiting' ? 'Waiting for every seat to be taken…' : view?.status === 'finished' ? 'The game is over.' : '';
      return;
    }
    const p = mine();
    if (p.resigned) {
      status.textContent = 'You resigned; your board stays in view.';
      return;
    }
    if (p.placed) {
      const waiting = view.to_act.map((s) => ctx.seatName(s)).join(', ');
      status.textContent = `Placed. Waiting for ${waiting || 'the next card'}…`;
      return;
    }
    const ghost = ghostAt(pinned ?? hover);
    if (!ghost) {
      status.textContent = TOUCH ? `Place the ${board().card}: tap your board where it should go.` : `Place the ${board().card}: move over your board, then click to drop it.`;
      return;
    }
    if (ghost.check.ok) {
      const points = tileScore({ digit: ghost.digit, level: ghost.check.level });
      status.classList.add('legal');
      status.textContent = `Level ${ghost.check.level} · +${points} point${points === 1 ? '' : 's'}${pinned ? ` — ${TOUCH ? 'tap' : 'click'} again or Confirm to place` : ''}`;
      confirmBtn.disabled = !pinned || sending;
    } else {
      status.classList.add('illegal');
      status.textContent = ghost.check.reason;
    }
  }

  function refreshGhost() {
    drawGhost();
    showStatus();
  }

  function rotate(step) {
    if (!canPlace()) return;
    rot = (((rot + step) % 4) + 4) % 4;
    renderCard();
    refreshGhost();
  }

  async function confirm() {
    if (!canPlace() || !pinned || sending) return;
    const ghost = ghostAt(pinned);
    if (!ghost.check.ok) {
      showStatus();
      return;
    }
    sending = true;
    showStatus();
    const ok = await ctx.act({ type: 'place', x: ghost.x, y: ghost.y, rot: ghost.rot });
    sending = false;
    if (ok) {
      pinned = null;
      hover = null;
    }
    refreshGhost();
  }

  async function hint() {
    if (!canPlace()) return;
    const actions = (await ctx.legal()) ?? [];
    const best = actions.find((a) => a.type === 'place');
    if (!best) return;
    rot = best.rot;
    const { w, h: ht } = shapeSize(board().card, rot);
    pinned = { cx: best.x + Math.floor((w - 1) / 2), cy: best.y + Math.floor((ht - 1) / 2) };
    renderCard();
    refreshGhost();
  }

  function cellOf(event) {
    const p = svgPoint(main.el, event);
    return p && { cx: Math.floor(p.x), cy: Math.floor(p.y) };
  }

  function attachPointer(el) {
    el.addEventListener('pointermove', (event) => {
      if (!canPlace()) return;
      const cell = cellOf(event);
      if (cell && (cell.cx !== hover?.cx || cell.cy !== hover?.cy)) {
        hover = cell;
        if (!pinned) refreshGhost();
      }
    });
    el.addEventListener('pointerleave', () => {
      hover = null;
      if (!pinned) refreshGhost();
    });
    el.addEventListener('click', (event) => {
      if (!canPlace()) return;
      const cell = cellOf(event);
      if (!cell) return;
      if (pinned && pinned.cx === cell.cx && pinned.cy === cell.cy) {
        confirm();
        return;
      }
      pinned = cell;
      hover = cell;
      refreshGhost();
    });
  }

  function onKey(event) {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    const k = event.key;
    if (k === 'q' || k === 'Q') rotate(-1);
    else if (k === 'e' || k === 'E' || k === 'r' || k === 'R') rotate(1);
    else if (k === 'Enter' && pinned) confirm();
    else if (k === 'Escape') {
      pinned = null;
      refreshGhost();
    } else if (k.startsWith('Arrow') && pinned && canPlace()) {
      event.preventDefault();
      const [dx, dy] = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[k];
      pinned = { cx: pinned.cx + dx, cy: pinned.cy + dy };
      refreshGhost();
    } else return;
  }
  document.addEventListener('keydown', onKey);

  /** The preview can be dragged onto the board: the ghost follows, release drops it. */
  function dragSource(el) {
    el.classList.add('draggable');
    const over = (event) => {
      const cell = main && cellOf(event);
      const { box } = main ?? {};
      return cell && box && cell.cx >= box.x && cell.cy >= box.y && cell.cx < box.x + box.w && cell.cy < box.y + box.h ? cell : null;
    };
    el.addEventListener('pointerdown', (event) => {
      if (!canPlace()) return;
      event.preventDefault();
      dragging = true;
      el.setPointerCapture(event.pointerId);
      pinned = null;
    });
    el.addEventListener('pointermove', (event) => {
      if (!dragging) return;
      hover = over(event);
      refreshGhost();
    });
    const drop = (event) => {
      if (!dragging) return;
      dragging = false;
      const cell = event.type === 'pointerup' ? over(event) : null;
      if (cell) pinned = hover = cell;
      refreshGhost();
    };
    el.addEventListener('pointerup', drop);
    el.addEventListener('pointercancel', drop);
    return el;
  }

  let cardShown = null; // what the card box shows: kept while a patch changes nothing there
  function renderCard() {
    if (me === null) return;
    const b = board();
    // Another player's move must not replace the preview mid-drag (it holds the pointer).
    const shown = `${b.finished}|${b.card}|${rot}|${b.round}`;
    if (shown === cardShown) return;
    cardShown = shown;
    replace(
      cardBox,
      h('div', { class: 'n9-card-digit', title: 'the current card' }, b.finished ? '–' : String(b.card)),
      b.finished ? null : dragSource(tilePreview(b.card, rot)),
      h('div', { class: 'n9-round' }, `Round ${Math.min(b.round, b.rounds)} / ${b.rounds}`),
    );
  }

  function renderMain() {
    const b = board();
    const seat = me ?? watched;
    const player = b.players[seat];
    boardTitle.textContent =
      me === null ? `${ctx.seatName(seat)} — ${player.score} points` : `Your board — ${player.score} points`;
    // Keep the frame while the tiles fit (no jump after Confirm); widen it to the space.
    const need = bounds(player.tiles, MARGIN, 12);
    let box = frame?.seat === seat ? union(frame.box, need) : need;
    const width = boardWrap.clientWidth;
    if (width > 0) box = widen(box, width / Math.max(240, Math.min(width, window.innerHeight * 0.7)));
    frame = { seat, box };
    main = boardSvg(player, seat, { box, title: `board of ${ctx.seatName(seat)}` });
    main.el.classList.add('n9-big');
    if (me !== null) attachPointer(main.el);
    replace(boardWrap, main.el);
  }

  function renderTracker() {
    const b = board();
    const left = b.remaining.reduce((s, n) => s + n, 0);
    replace(
      tracker,
      h('div', { class: 'n9-round-line' }, b.finished ? 'All cards played' : `Round ${b.round} of ${b.rounds} · card ${b.card} · ${left} to come`),
      h(
        'div',
        { class: 'n9-remaining' },
        b.remaining.map((count, digit) =>
          h(
            'div',
            { class: ['n9-rem', !b.finished && digit === b.card ? 'current' : null, count === 0 ? 'gone' : null], data: { digit, count } },
            h('span', { class: 'n9-rem-digit' }, String(digit)),
            h('span', { class: 'n9-pips' }, '●'.repeat(count) + '○'.repeat(Math.max(0, 2 - count))),
          ),
        ),
      ),
    );
  }

  function ranking() {
    const b = board();
    return b.players
      .map((p, seat) => ({ ...p, seat }))
      .sort((a, c) => Number(a.resigned) - Number(c.resigned) || c.score - a.score || a.seat - c.seat);
  }

  function renderLeaders() {
    const b = board();
    const winners = new Set(b.winners ?? []);
    replace(
      leaders,
      ranking().map((p) =>
        h(
          'li',
          { class: ['n9-leader', p.seat === me ? 'me' : null, p.resigned ? 'resigned' : null, winners.has(p.seat) ? 'winner' : null], data: { seat: p.seat, score: p.score } },
          h('span', { class: 'name' }, `${winners.has(p.seat) ? '★ ' : ''}${ctx.seatName(p.seat)}`),
          h('span', { class: 'score' }, String(p.score)),
          h('span', { class: 'placed', title: p.placed ? 'placed this round' : 'still to place' }, b.finished ? '' : p.placed ? '✓' : '…'),
        ),
      ),
    );
  }

  function renderMinis() {
    const shown = ranking()
      .filter((p) => p.seat !== me)
      .slice(0, MINI_LIMIT);
    replace(
      minis,
      shown.map((p) => {
        const { el } = boardSvg(p, p.seat, { min: 8, margin: 1, title: `board of ${ctx.seatName(p.seat)}` });
        return h(
          'figure',
          {
            class: ['n9-mini', p.seat === watched && me === null ? 'watched' : null],
            data: { seat: p.seat },
            on: me === null ? { click: () => ((watched = p.seat), update(view)) } : {},
          },
          el,
          h('figcaption', {}, `${ctx.seatName(p.seat)} · ${p.score}`),
        );
      }),
    );
  }

  function update(next) {
    const prevRound = view?.board?.round;
    view = next;
    controls.hidden = hintText.hidden = board().finished || view.status === 'finished';
    if (prevRound !== undefined && prevRound !== board().round) {
      pinned = null; // a new card: pick up any dropped ghost
      rot = 0;
    }
    renderCard();
    renderMain();
    renderTracker();
    renderLeaders();
    renderMinis();
    refreshGhost();
  }

  return {
    update,
    destroy() {
      document.removeEventListener('keydown', onKey);
    },
  };
}

// -- words for people: the game log, the end screen ------------------------------

export const optionWords = {
  tournament: { label: 'Tournament table', hint: 'up to 1,000 players on the same deck' },
};

/** A digit with its article, as it is read: "a 7", "an 8". */
const aDigit = (digit) => `${Number(digit) === 8 ? 'an' : 'a'} ${digit}`;

/** A log line for one event, or null for the generic line. */
export function describe(event, name) {
  switch (event.type) {
    case 'placed':
      return event.level > 0
        ? `${name(event.seat)} placed ${aDigit(event.digit)} on level ${event.level} for ${event.digit * event.level} point${event.digit * event.level === 1 ? '' : 's'} (total ${event.score}).`
        : `${name(event.seat)} placed ${aDigit(event.digit)} on the table (total ${event.score}).`;
    case 'card':
      return `Round ${event.round}: the card is ${aDigit(event.digit)}.`;
    case 'resigned':
      return `${name(event.seat)} resigned.`;
    case 'finished':
      return `The game is over: ${event.winners.map(name).join(' and ') || 'nobody'} win${event.winners.length === 1 ? 's' : ''}.`;
    default:
      return null;
  }
}

/** The end screen's breakdown: points per level for every seat (they add up to the
 * score), then the tiles each placed. */
export function breakdown(view) {
  const players = view.board.players;
  const top = Math.max(1, ...players.flatMap((p) => p.tiles.map((t) => t.level)));
  const columns = Array.from({ length: top }, (_, i) => `level ${i + 1}`);
  return {
    columns,
    rows: players.map((p) => columns.map((_, i) => p.tiles.filter((t) => t.level === i + 1).reduce((s, t) => s + t.digit * t.level, 0))),
    after: { columns: ['tiles placed'], rows: players.map((p) => [p.tiles.length]) },
    note: 'A tile scores its number times its level; tiles on the table (level 0) score nothing.',
  };
}
