// Wall duel view (docs/games/brix.md): the shared wall seen from the side (row 0 at the
// bottom), cubes in their colour with their symbol; on your turn choose the brick's
// lie (horizontal / vertical), which end is orange and which symbols show, and click a
// marked target (the brick's left / lower cell) to place it.  In the move phase click
// one of the movable bricks first.  Winning lines, the last brick and the locked brick
// are highlighted.  Legal targets come from the server's `legal` list.

import { CLICK, add, h, replace, svg, svgPoint } from '../dom.js';

const MAX_WIDTH = 8;
const TARGET_LABEL = { X: 'four X', O: 'four O', orange: 'four orange', blue: 'four blue' };

const brickCells = (x, y, dir) => (dir === 'h' ? [[x, y], [x + 1, y]] : [[x, y], [x, y + 1]]);

/** [colour, mark] of the two cubes (left/lower first), as the server's cube_faces. */
function cubeFaces(orange, face) {
  const orangeCube = ['orange', face[0].toUpperCase()];
  const blueCube = ['blue', face[1].toUpperCase()];
  return orange === 0 ? [orangeCube, blueCube] : [blueCube, orangeCube];
}

function cube(x, y, color, mark, extra = {}) {
  return svg(
    'g',
    { class: ['bx-cube', color], data: { x: extra.dataX ?? x, y: extra.dataY ?? y, color, mark } },
    svg('rect', { x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92, rx: 0.12 }),
    svg('text', { x: x + 0.5, y: y + 0.56, class: 'bx-mark' }, mark),
  );
}

export function createView(root, ctx) {
  const me = ctx.seat;
  let view = null;
  let config = { dir: 'h', orange: 0, face: 'xo' };
  let selected = null; // brick id picked up in the move phase
  let legal = [];
  let legalFor = -1;
  let hoverCell = null;
  let geometry = null; // {lo, top} to map SVG <-> wall cells

  const goal = h('div', { class: 'bx-goal' });
  const info = h('div', { class: 'bx-info muted' });
  const preview = h('div', { class: 'bx-preview' });
  const prompt = h('div', { class: 'bx-prompt', role: 'status' });
  const drawButtons = h('span', { class: 'bx-draw' });
  const controls = h(
    'div',
    { class: 'bx-controls' },
    preview,
    h('button', { class: 'bx-turn', title: 'horizontal / vertical (T)', on: { click: () => change({ dir: config.dir === 'h' ? 'v' : 'h' }) } }, 'Turn'),
    h('button', { class: 'bx-colours', title: 'swap which end is orange (C)', on: { click: () => change({ orange: 1 - config.orange }) } }, 'Swap colours'),
    h('button', { class: 'bx-symbols', title: 'swap the symbols shown (S)', on: { click: () => change({ face: config.face === 'xo' ? 'ox' : 'xo' }) } }, 'Swap X/O'),
    drawButtons,
  );
  const wallBox = h('div', { class: 'bx-wall-box' });
  replace(root, h('div', { class: ['bx', me === null ? 'spectating' : 'playing'] }, goal, info, me === null ? null : controls, me === null ? null : prompt, wallBox));

  const myTurn = () => me !== null && view?.status === 'playing' && view.board.to_act === me && !view.board.result;

  function change(patch) {
    config = { ...config, ...patch };
    render();
  }

  function onKey(event) {
    if (event.target instanceof HTMLInputElement || !myTurn()) return;
    const k = event.key.toLowerCase();
    if (k === 't') change({ dir: config.dir === 'h' ? 'v' : 'h' });
    else if (k === 'c') change({ orange: 1 - config.orange });
    else if (k === 's') change({ face: config.face === 'xo' ? 'ox' : 'xo' });
    else if (k === 'escape') {
      selected = null;
      render();
    }
  }
  document.addEventListener('keydown', onKey);

  /** Legal place/move actions matching the chosen configuration (and picked-up brick). */
  function targets() {
    return legal.filter(
      (a) =>
        (a.type === 'place' || (a.type === 'move' && a.brick === selected)) &&
        a.dir === config.dir &&
        a.orange === config.orange &&
        a.face === config.face,
    );
  }

  const movable = () => new Set(legal.filter((a) => a.type === 'move').map((a) => a.brick));

  async function refreshLegal() {
    if (!myTurn()) {
      legal = [];
      return;
    }
    const version = view.board.turn;
    const actions = (await ctx.legal()) ?? [];
    if (view.board.turn !== version) return;
    legal = actions;
    legalFor = version;
    render();
  }

  function renderPreview() {
    const faces = cubeFaces(config.orange, config.face);
    const cells = config.dir === 'h' ? [[0, 0], [1, 0]] : [[0, 1], [0, 0]];
    replace(
      preview,
      svg(
        'svg',
        { viewBox: config.dir === 'h' ? '0 0 2 1' : '0 0 1 2', class: ['bx-preview-svg', config.dir] },
        cells.map(([x, y], i) => cube(x, y, faces[i][0], faces[i][1])),
      ),
    );
  }

  function renderGoal() {
    const b = view.board;
    replace(
      goal,
      b.targets.map((values, s) =>
        h(
          'span',
          { class: ['bx-seat-goal', s === me ? 'me' : null, b.to_act === s && !b.result ? 'to-act' : null] },
          `${ctx.seatName(s)}: `,
          values.map((v) => TARGET_LABEL[v] ?? v).join(' or '),
        ),
      ),
    );
    const phase = b.phase === 'place' ? `placing · ${b.supply} of ${b.bricks_total} bricks left` : b.phase === 'move' ? `moving bricks · turn ${b.moves}${b.move_limit ? ` of ${b.move_limit}` : ''}` : 'game over';
    info.textContent = `${phase}${b.draw_offer !== null && b.draw_offer !== undefined ? ` · ${ctx.seatName(b.draw_offer)} offers a draw` : ''}`;
  }

  function renderPrompt() {
    if (me === null) return;
    const b = view.board;
    replace(drawButtons);
    if (!myTurn()) {
      prompt.textContent = b.result ? '' : view.status === 'playing' ? `Waiting for ${ctx.seatName(b.to_act)}…` : '';
      return;
    }
    if (b.draw_offer !== null && b.draw_offer !== me) {
      add(drawButtons, h('button', { class: 'bx-accept-draw', on: { click: () => ctx.act({ type: 'accept_draw' }) } }, 'Accept draw'));
    } else if (b.draw_offer === null) {
      add(drawButtons, h('button', { class: 'bx-offer-draw', on: { click: () => ctx.act({ type: 'offer_draw' }) } }, 'Offer draw'));
    }
    if (legalFor !== view.board.turn) {
      prompt.textContent = 'Your turn…';
    } else if (b.phase === 'move' && selected === null) {
      prompt.textContent = `Your turn: ${CLICK} a brick to take it out (the locked one cannot move).`;
    } else {
      const n = targets().length;
      prompt.textContent = n
        ? `Your turn: ${CLICK} a marked cell to ${b.phase === 'move' ? 'put the brick back there' : 'place the brick'} (${n} spot${n === 1 ? '' : 's'}).`
        : 'No legal spot for this brick this way — turn it or swap its faces.';
    }
  }

  function renderWall() {
    const b = view.board;
    let lo = 0;
    let hi = MAX_WIDTH - 1;
    if (b.columns) {
      lo = b.columns[1] - (MAX_WIDTH - 1);
      hi = b.columns[0] + (MAX_WIDTH - 1);
    }
    const rows = Math.max(5, b.height + 3);
    const top = rows - 1;
    const width = hi - lo + 1;
    geometry = { lo, top };
    const X = (x) => x - lo;
    const Y = (y) => top - y;
    const children = [];
    const grid = [];
    for (let x = 0; x <= width; x++) grid.push(`M${x} 0v${rows}`);
    for (let y = 0; y <= rows; y++) grid.push(`M0 ${y}h${width}`);
    children.push(svg('path', { d: grid.join(''), class: 'bx-grid' }));
    children.push(svg('rect', { x: 0, y: rows - 0.02, width, height: 0.2, class: 'bx-ground' }));
    const pickable = myTurn() && b.phase === 'move' ? movable() : new Set();
    for (const brick of b.bricks) {
      const cells = brick.cubes.map((c) => [X(c.x), Y(c.y)]);
      const minX = Math.min(...cells.map(([x]) => x));
      const minY = Math.min(...cells.map(([, y]) => y));
      const w = brick.dir === 'h' ? 2 : 1;
      const ht = brick.dir === 'h' ? 1 : 2;
      children.push(
        svg(
          'g',
          {
            class: ['bx-brick', brick.id === b.last?.brick ? 'last' : null, brick.id === b.locked ? 'locked' : null, pickable.has(brick.id) ? 'pickable' : null, brick.id === selected ? 'selected' : null],
            data: { brick: brick.id, by: brick.by },
            on: pickable.has(brick.id) ? { click: (event) => (event.stopPropagation(), pick(brick.id)) } : {},
          },
          brick.cubes.map((c) => cube(X(c.x), Y(c.y), c.color, c.mark, { dataX: c.x, dataY: c.y })),
          svg('rect', { x: minX + 0.02, y: minY + 0.02, width: w - 0.04, height: ht - 0.04, class: 'bx-brick-edge', rx: 0.1 }),
          brick.id === b.locked ? svg('rect', { x: minX + 0.06, y: minY + 0.06, width: w - 0.12, height: ht - 0.12, class: 'bx-lock', rx: 0.1 }) : null,
        ),
      );
    }
    for (const line of b.lines ?? []) {
      const pts = line.cells.map(([x, y]) => `${X(x) + 0.5},${Y(y) + 0.5}`).join(' ');
      children.push(svg('polyline', { points: pts, class: ['bx-line', line.seat === me ? 'mine' : null], data: { value: line.value } }));
    }
    for (const [x, y] of b.last?.collapse ?? []) {
      children.push(svg('rect', { x: X(x), y: Y(y), width: 1, height: 1, class: 'bx-collapse' }));
    }
    if (myTurn()) {
      for (const t of targets()) {
        children.push(svg('circle', { cx: X(t.x) + 0.5, cy: Y(t.y) + 0.5, r: 0.17, class: 'bx-target', data: { x: t.x, y: t.y } }));
      }
    }
    const ghostLayer = svg('g', { class: 'bx-ghost-layer' });
    const el = svg('svg', { class: 'bx-wall', viewBox: `-0.1 -0.1 ${width + 0.2} ${rows + 0.4}`, data: { bricks: b.bricks.length } }, children, ghostLayer);
    const drawGhost = () => {
      const ghost = myTurn() && hoverCell && targets().find((t) => t.x === hoverCell.x && t.y === hoverCell.y);
      replace(ghostLayer);
      if (!ghost) return;
      const faces = cubeFaces(ghost.orange, ghost.face);
      ghostLayer.append(
        svg('g', { class: 'bx-ghost' }, brickCells(ghost.x, ghost.y, ghost.dir).map(([x, y], i) => cube(X(x), Y(y), faces[i][0], faces[i][1]))),
      );
    };
    drawGhost();
    el.addEventListener('pointermove', (event) => {
      const cell = cellAt(el, event);
      if (cell?.x !== hoverCell?.x || cell?.y !== hoverCell?.y) {
        hoverCell = cell;
        drawGhost();
      }
    });
    el.addEventListener('pointerleave', () => {
      hoverCell = null;
      drawGhost();
    });
    el.addEventListener('click', (event) => {
      const cell = cellAt(el, event);
      if (cell) drop(cell);
    });
    replace(wallBox, el);
  }

  function cellAt(el, event) {
    const p = svgPoint(el, event);
    if (!p || !geometry) return null;
    return { x: Math.floor(p.x) + geometry.lo, y: geometry.top - Math.floor(p.y) };
  }

  function pick(id) {
    selected = selected === id ? null : id;
    render();
  }

  async function drop(cell) {
    if (!myTurn()) return;
    if (view.board.phase === 'move' && selected === null) {
      const id = view.board.cells[`${cell.x},${cell.y}`]?.brick;
      if (id !== undefined && movable().has(id)) pick(id);
      else ctx.say(id === view.board.locked ? 'That brick was just moved by your opponent: it is locked this turn.' : 'Click one of the bricks you may move first.', 'error');
      return;
    }
    const target = targets().find((t) => t.x === cell.x && t.y === cell.y);
    if (!target) {
      ctx.say(`No legal ${config.dir === 'h' ? 'horizontal' : 'vertical'} brick with its ${config.dir === 'h' ? 'left' : 'lower'} cube at (${cell.x},${cell.y}).`, 'error');
      return;
    }
    if (await ctx.act(target)) {
      selected = null;
      hoverCell = null;
    }
  }

  function render() {
    if (!view) return;
    renderGoal();
    renderPreview();
    renderPrompt();
    renderWall();
  }

  return {
    update(next) {
      const turnChanged = view?.board.turn !== next.board.turn;
      view = next;
      if (turnChanged) {
        selected = null;
        legal = [];
        legalFor = -1;
        refreshLegal();
      }
      render();
    },
    destroy() {
      document.removeEventListener('keydown', onKey);
    },
  };
}

// -- words for people: the game log, the end screen ------------------------------

export const optionWords = {
  bricks: { label: 'Bricks in the supply', hint: 'the retail box has 22' },
  mode: {
    label: 'Winning lines',
    choices: { symbols: 'X against O', colors: 'orange against blue', symbols_vs_colors: 'symbols against colours' },
  },
  move_limit: { label: 'Draw after moving turns', hint: 'empty or 0: never', zero: 'never' },
};

const REASONS = {
  resign: 'the other player resigned',
  draw_agreed: 'both players agreed to a draw',
  collapse: 'the wall collapsed when a brick was taken out',
  both_lines: 'the last brick made lines for both players, and the mover wins those',
  four_in_line: 'four in a line',
  opponent_line: 'the last brick completed the opponent’s line',
  move_limit: 'the move limit was reached',
};

/** The result's reason in words. */
export function reason(code) {
  return REASONS[code] ?? null;
}

/** Where a brick went, in words: how it lies and its height (columns may be negative). */
function at(pos) {
  if (!pos) return 'in the wall';
  const how = pos.dir === 'v' ? 'standing' : 'lying';
  return pos.y === 0 ? `${how} on the ground` : `${how} on row ${pos.y + 1}`;
}

/** A log line for one event, or null for the generic line. */
export function describe(event, name) {
  const who = event.seat !== undefined ? name(event.seat) : '';
  switch (event.type) {
    case 'place':
      return `${who} placed a brick ${at(event.to)}.`;
    case 'move':
      return `${who} moved a brick, now ${at(event.to)}.`;
    case 'line':
      return `Four ${event.value} in a line for ${who}.`;
    case 'collapse':
      return `The wall collapsed under ${who}.`;
    case 'resign':
      return `${who} resigned.`;
    case 'draw_offered':
      return `${who} offers a draw.`;
    case 'draw_agreed':
      return `${who} accepted the draw.`;
    case 'game_over':
      return `The game is over${REASONS[event.result?.reason] ? `: ${REASONS[event.result.reason]}` : ''}.`;
    default:
      return null;
  }
}
