// Termite Towers view (docs/games/termite.md): the action cards A/C/E/G (a slot per die value),
// the six stake areas D1-D6 (main stake cubes, tunnel and collect dice, the stake-card
// pyramid, everyone's tunnels), your board (dice, rooms, wall, blueprints, queen cards)
// and the other players' boards.  Day: click one of your dice, then a highlighted slot
// (optionally with a helper die); queen cards are buttons.  Night: the pending choice's
// prompt and its legal answers as buttons.  Legal slots come from the `legal` list.

import { add, h, replace } from '../dom.js';

const SEAT_COLOURS = ['#e4572e', '#1b998b', '#f3a712', '#6a4c93'];
const CUBE_COLOURS = { red: '#d64545', yellow: '#e8c547', green: '#4c9a4c', blue: '#3b6fd1', purple: '#8a4fbf', white: '#e9e6df' };
const INITIAL = { r: 'red', y: 'yellow', g: 'green', b: 'blue', p: 'purple', w: 'white' };

const seatColour = (owner) => (owner < 0 ? '#9a9a9a' : SEAT_COLOURS[owner % SEAT_COLOURS.length]);

function dieEl(die, extra = {}) {
  return h(
    extra.onClick ? 'button' : 'span',
    {
      class: ['tm-die', die.kind, extra.selected ? 'selected' : null, extra.placed ? 'placed' : null],
      style: { '--seat': seatColour(die.owner ?? extra.owner ?? -1) },
      title: `${die.kind} ${die.value}${die.owner !== undefined ? (die.owner < 0 ? ' (neutral)' : ` (seat ${die.owner + 1})`) : ''}`,
      data: { die: extra.index ?? die.die ?? '', value: die.value },
      on: extra.onClick ? { click: extra.onClick } : {},
      type: extra.onClick ? 'button' : undefined,
    },
    die.kind === 'soldier' ? `⚔${die.value}` : String(die.value),
  );
}

function cubes(list) {
  return list.map((c) => h('span', { class: 'tm-cube', style: { background: CUBE_COLOURS[c] ?? '#ccc' }, title: c }));
}

function label(action) {
  return Object.entries(action)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${k} ${Array.isArray(v) ? JSON.stringify(v) : v}`)
    .join(', ');
}

export function createView(root, ctx) {
  const me = ctx.seat;
  let view = null;
  let legal = [];
  let legalKey = null;
  let selected = null; // index of my die picked for placement
  let helper = null; // index of a helper die, or null

  const info = h('div', { class: 'tm-info', role: 'status' });
  const turnBox = h('div', { class: 'tm-turn' });
  const cardsBox = h('section', { class: 'tm-cards' });
  const stakesBox = h('section', { class: 'tm-stakes' });
  const mineBox = h('section', { class: 'tm-mine' });
  const othersBox = h('section', { class: 'tm-others' });
  const commonBox = h('section', { class: 'tm-common muted' });
  replace(root, h('div', { class: ['tm', me === null ? 'spectating' : 'playing'] }, info, turnBox, h('div', { class: 'tm-table' }, cardsBox, stakesBox), mineBox, othersBox, commonBox));

  const b = () => view.board;
  const myTurn = () => me !== null && view.status === 'playing' && (b().to_act ?? []).includes(me);
  const keyOf = (v) => `${v.status}/${v.turn}/${v.board.phase}/${JSON.stringify(v.board.pending)}/${JSON.stringify(v.board.to_act)}/${v.board.players[me ?? 0]?.dice.map((d) => d.at).join()}`;

  async function refreshLegal() {
    const key = keyOf(view);
    if (!myTurn()) {
      legal = [];
      legalKey = key;
      return;
    }
    const actions = (await ctx.legal()) ?? [];
    if (!view || keyOf(view) !== key) return;
    legal = actions;
    legalKey = key;
    render();
  }

  const ready = () => legalKey === keyOf(view) && myTurn();

  /** Legal place_die actions for the picked die and helper, by slot. */
  function slotActions() {
    const out = new Map();
    if (!ready() || selected === null) return out;
    for (const a of legal) {
      if (a.type !== 'place_die' || a.die !== selected || (a.helper ?? null) !== helper) continue;
      if (!out.has(a.slot)) out.set(a.slot, []);
      out.get(a.slot).push(a);
    }
    return out;
  }

  function slotButton(slot, content, targets) {
    const actions = targets.get(slot);
    return h(
      actions ? 'button' : 'div',
      {
        class: ['tm-slot', actions ? 'target' : null],
        data: { slot },
        type: actions ? 'button' : undefined,
        on: actions ? { click: () => chooseSlot(actions) } : {},
      },
      content,
    );
  }

  async function chooseSlot(actions) {
    if (actions.length === 1) {
      if (await ctx.act(actions[0])) selected = helper = null;
      return;
    }
    // A room slot: pick the value the dice take there.
    replace(
      turnBox,
      h('span', {}, 'Value in the room: '),
      actions.map((a) => h('button', { class: 'small tm-value', on: { click: async () => (await ctx.act(a)) && (selected = helper = null) } }, String(a.value ?? label(a)))),
      h('button', { class: 'small', on: { click: () => render() } }, 'Cancel'),
    );
  }

  function renderInfo() {
    const board = b();
    const phase = board.phase === 'day' ? 'Day: place dice in seat order' : board.phase === 'night' ? 'Night: actions resolve A to G' : 'Game over';
    info.textContent = `Round ${board.round} · ${phase} · rows to end ${board.rows_to_end}`;
  }

  function renderTurn() {
    replace(turnBox);
    const board = b();
    const pending = board.pending;
    if (pending) {
      add(turnBox, h('p', { class: ['tm-prompt', pending.seat === me ? 'mine' : null] }, `${ctx.seatName(pending.seat)}: ${pending.prompt}`));
    }
    if (!myTurn()) {
      if (view.status === 'playing' && !pending) add(turnBox, h('p', { class: 'muted' }, `Waiting for ${(board.to_act ?? []).map(ctx.seatName).join(', ')}…`));
      return;
    }
    if (!ready()) {
      add(turnBox, h('p', { class: 'muted' }, 'Your turn…'));
      return;
    }
    const places = legal.filter((a) => a.type === 'place_die');
    const others = legal.filter((a) => a.type !== 'place_die' && a.type !== 'resign');
    if (places.length) {
      const helpers = [...new Set(places.filter((a) => a.die === selected && a.helper !== undefined).map((a) => a.helper))];
      add(turnBox, 
        h('p', {}, selected === null ? 'Your turn: pick one of your dice below, then a highlighted slot.' : `Die ${selected + 1} picked: click a highlighted slot.`),
        helpers.length
          ? h(
              'label',
              { class: 'tm-helper' },
              'helper die: ',
              h(
                'select',
                { on: { change: (e) => ((helper = e.target.value === '' ? null : Number(e.target.value)), render()) } },
                h('option', { value: '' }, 'none'),
                helpers.map((i) => h('option', { value: i, selected: helper === i }, `die ${i + 1} (${b().players[me].dice[i].value})`)),
              ),
            )
          : null,
      );
    }
    if (others.length) {
      add(turnBox, 
        h(
          'div',
          { class: 'tm-choices' },
          others.slice(0, 60).map((a) =>
            h('button', { class: ['small', 'tm-choice', a.type], on: { click: () => ctx.act(a) } }, `${a.type.replace('_', ' ')}${label(a) ? `: ${label(a)}` : ''}`),
          ),
          others.length > 60 ? h('span', { class: 'muted' }, ` … ${others.length - 60} more`) : null,
        ),
      );
    }
  }

  function renderCards(targets) {
    const board = b();
    replace(
      cardsBox,
      h('h3', {}, 'Action cards'),
      Object.entries(board.cards).map(([card, slots]) =>
        h(
          'div',
          { class: 'tm-card', data: { card } },
          h('span', { class: 'tm-card-name' }, card),
          slots.map((die, i) => slotButton(`${card}${i + 1}`, [h('small', {}, String(i + 1)), die ? dieEl(die) : null], targets)),
        ),
      ),
    );
  }

  function renderStakes(targets) {
    const board = b();
    replace(
      stakesBox,
      h('h3', {}, 'Stakes D1–D6'),
      h(
        'div',
        { class: 'tm-stake-grid' },
        board.stakes.map((stake) =>
          h(
            'div',
            { class: 'tm-stake', data: { area: stake.area }, style: { '--colour': CUBE_COLOURS[stake.colour] } },
            h('div', { class: 'tm-stake-head' }, `D${stake.area} ${stake.colour}`, h('span', { class: 'muted' }, ` · ${stake.cubes} cubes`)),
            h(
              'div',
              { class: 'tm-dslots' },
              slotButton(`D${stake.area}t`, ['tunnel ', stake.tunnel.map((d) => dieEl(d))], targets),
              slotButton(`D${stake.area}c`, ['collect ', stake.collect.map((d) => dieEl(d))], targets),
            ),
            h(
              'div',
              { class: 'tm-pyramid' },
              ['1a', '1b', '2a', '2b', '2c'].map((node) => {
                const card = stake.cards[node];
                return h(
                  'span',
                  { class: ['tm-stake-card', card ? 'up' : 'down', `n${node}`], title: node, style: card ? { background: CUBE_COLOURS[card.colour] } : {} },
                  card ? `${card.cubes}` : '?',
                  h('span', { class: 'tm-tunnels' }, Object.entries(stake.tunnels).filter(([edge]) => edge.endsWith(node)).flatMap(([, seats]) => seats.map((s) => h('i', { style: { background: seatColour(s) }, title: `tunnel of ${ctx.seatName(s)}` })))),
                );
              }),
            ),
          ),
        ),
      ),
    );
  }

  function wallEl(rows) {
    // rows are bottom first; draw top first
    return h(
      'div',
      { class: 'tm-wall' },
      [...rows].reverse().map((row) =>
        h('div', { class: 'tm-wall-row' }, [...row].map((c) => h('span', { class: ['tm-wall-cell', c === '.' ? 'empty' : null], style: c === '.' ? {} : { background: CUBE_COLOURS[INITIAL[c]] ?? '#999' }, title: INITIAL[c] ?? '' }))),
      ),
    );
  }

  function playerBoard(seat, targets, full) {
    const player = b().players[seat];
    const mine = seat === me;
    const pickable = mine && ready() ? new Set(legal.filter((a) => a.type === 'place_die').map((a) => a.die)) : new Set();
    return h(
      'div',
      { class: ['tm-board', mine ? 'me' : null, player.resigned ? 'resigned' : null], data: { seat }, style: { '--seat': seatColour(seat) } },
      h('h3', {}, ctx.seatName(seat), h('span', { class: 'muted' }, ` · score ${player.score} · rows ${player.rows} · tunnels left ${player.tunnels_left} · hatched ${player.hatched}`)),
      h(
        'div',
        { class: 'tm-dice' },
        player.dice.map((d, i) =>
          dieEl(
            { ...d, owner: seat },
            {
              index: i,
              placed: d.at !== null,
              selected: mine && selected === i,
              onClick: pickable.has(i) ? () => ((selected = selected === i ? null : i), (helper = null), render()) : null,
            },
          ),
        ),
      ),
      h(
        'div',
        { class: 'tm-rooms' },
        player.rooms.map((room, r) =>
          (mine ? (content) => slotButton(`R${r}`, content, targets) : (content) => h('div', { class: 'tm-slot' }, content))([
            h('small', {}, `room ${r + 1}`),
            room.egg ? h('span', { class: 'tm-egg', title: 'egg' }) : null,
            cubes(room.cubes),
            room.dice.map((d) => (typeof d === 'object' ? dieEl({ ...d, owner: d.owner ?? seat }) : dieEl({ kind: 'worker', value: d, owner: seat }))),
          ]),
        ),
      ),
      full ? wallEl(player.wall) : null,
      h(
        'div',
        { class: 'tm-meta muted' },
        `built: ${player.built.length ? player.built.join(', ') : '—'} · bonus: ${player.bonus.length ? player.bonus.join(', ') : '—'}`,
        player.hand ? ` · blueprints in hand: ${player.hand.join(', ') || '—'}` : ` · blueprints: ${player.hand_count}`,
        player.queens ? ` · queen cards: ${player.queens.join(', ') || '—'}` : ` · queen cards: ${player.queen_count}`,
      ),
      full ? null : wallEl(player.wall),
    );
  }

  function render() {
    if (!view) return;
    const board = b();
    const targets = slotActions();
    renderInfo();
    renderTurn();
    renderCards(targets);
    renderStakes(targets);
    replace(mineBox, me === null ? null : playerBoard(me, targets, true));
    replace(
      othersBox,
      board.players.map((_, seat) => (seat === me ? null : playerBoard(seat, targets, false))),
    );
    replace(
      commonBox,
      `Blueprints face up: ${board.blueprints.face_up.join(', ') || '—'} · deck ${board.blueprints.deck} · queen deck ${board.queen_deck} · eggs ${board.eggs} · goals: ${board.goals.map((g) => g.goal.replaceAll('_', ' ')).join(', ')}`,
    );
  }

  return {
    update(next) {
      const changed = !view || keyOf(view) !== keyOf(next);
      view = next;
      if (changed) {
        selected = null;
        helper = null;
        refreshLegal();
      }
      render();
    },
    destroy() {},
  };
}
