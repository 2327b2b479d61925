// Termite Towers view (docs/games/termite.md): the action cards A/C/E/G (a slot per die value),
// the six stake areas D1-D6 (main stake cubes, tunnel and collect dice, the stake-card
// pyramid, everyone's tunnels), your board (dice, rooms, wall, blueprints, queen cards)
// and the other players' boards.  Day: the turn is asked from the server one field at a
// time (staged legal, protocol/README.md) -- never its thousands of complete actions:
// pick one of your dice, then a highlighted slot, then (when the slot offers them) a
// helper die and the value; queen cards are buttons, their details asked the same way.
// Night: the pending choice's prompt, answered in a few steps (games/steps.js groups
// the few legal answers field by field).
// The view shape is being re-ruled: everything here reads it defensively.

import { CLICK, add, h, replace } from '../dom.js';
import { nextStep } from './steps.js';

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

/** White wood is outlined (class tm-white) so it shows on the white cards. */
const whiteClass = (colour) => (colour === 'white' ? 'tm-white' : null);

function cubes(list) {
  return list.map((c) => h('span', { class: ['tm-cube', whiteClass(c)], style: { background: CUBE_COLOURS[c] ?? '#ccc' }, title: c }));
}

/** Blueprint shapes (tetromino letters) as cells [x, y], y downward. */
const SHAPES = {
  I: [[0, 0], [0, 1], [0, 2], [0, 3]],
  O: [[0, 0], [1, 0], [0, 1], [1, 1]],
  T: [[0, 0], [1, 0], [2, 0], [1, 1]],
  S: [[1, 0], [2, 0], [0, 1], [1, 1]],
  Z: [[0, 0], [1, 0], [1, 1], [2, 1]],
  J: [[1, 0], [1, 1], [0, 2], [1, 2]],
  L: [[0, 0], [0, 1], [0, 2], [1, 2]],
};

/** A blueprint ("green-O") drawn as its piece in its colour. */
function blueprintEl(card) {
  const [colour, letter] = String(card).split('-');
  const cells = SHAPES[letter];
  if (!cells) return h('span', { class: 'tm-bp text' }, String(card));
  const w = Math.max(...cells.map(([x]) => x)) + 1;
  const rows = Math.max(...cells.map(([, y]) => y)) + 1;
  return h(
    'span',
    { class: 'tm-bp', title: `${colour} ${letter} blueprint`, data: { card }, style: { gridTemplateColumns: `repeat(${w}, 0.55em)`, gridTemplateRows: `repeat(${rows}, 0.55em)` } },
    cells.map(([x, y]) => h('i', { class: whiteClass(colour), style: { gridColumn: x + 1, gridRow: y + 1, background: CUBE_COLOURS[colour] ?? '#999' } })),
  );
}

const words = (id) => String(id).replaceAll('_', ' ');
const QUEEN = { royal_jelly: 'royal jelly', swarm: 'swarm', nursery: 'nursery', architect: 'architect', mandibles: 'mandibles' };
const BONUS = { worker: 'a new worker die', soldier: 'a new soldier die', room: 'a new room', blueprint: 'a blueprint', queen: 'a queen card', egg: 'an egg', cubes: 'two cubes of one colour', points: '2 points' };
/** The "do it" answer of an optional night choice (beside "pass"). */
const CHOOSE = { trade: 'trade', move: 'move cubes', build: 'build' };
const PAY = { cubes: 'two cubes from your rooms', egg: 'an egg', queen: 'a queen card', blueprint: 'a blueprint from your hand' };
/** What each action card does, beside its letter. */
export const CARD_WORDS = { A: 'blueprint', C: 'egg', E: 'trade', G: 'queen card' };
/** A stake card's place in the pyramid under its stake, in words. */
const NODE_WORDS = { '1a': 'first row, left', '1b': 'first row, right', '2a': 'second row, left', '2b': 'second row, middle', '2c': 'second row, right' };

/** One of the seat's dice in words, numbered from 1 with what it shows: "die 3 (a 5)". */
function dieWords(index, board) {
  const die = board?.players?.[board?.you]?.dice?.[index];
  return `die ${Number(index) + 1}${die ? ` (${die.kind === 'soldier' ? 'soldier, ' : ''}a ${die.value})` : ''}`;
}

/** Where a slot id points, in words: "A4" -> "card A, space 4", "D3t" -> "tunnel of D3". */
export function slotWords(slot) {
  const m = /^([ACEG])(\d)$/.exec(slot);
  if (m) return `card ${m[1]}, space ${m[2]}`;
  const d = /^D(\d)([tc])$/.exec(slot);
  if (d) return `the ${d[2] === 't' ? 'tunnel' : 'collect'} space of stake D${d[1]}`;
  const r = /^R(\d+)$/.exec(slot);
  if (r) return `room ${Number(r[1]) + 1}`;
  return String(slot);
}

/** One field of a choice as a button's content (pieces where it is a piece); `board`
 * (the view's board, optional) lets a stake show its colour. */
function fieldContent(key, value, board = null) {
  if (value === undefined) return key === 'row' ? 'dropped straight down' : 'none';
  switch (key) {
    case 'type':
      if (value === 'choose') return CHOOSE[board?.pending?.kind] ?? 'choose';
      return { pass: 'pass', play_queen: 'play a queen card', place_die: 'place a die' }[value] ?? words(value);
    case 'room':
      return `room ${Number(value) + 1}`;
    case 'rooms':
      return `rooms ${value.map((r) => Number(r) + 1).join(' and ')}`;
    case 'column':
      return `column ${Number(value) + 1}`;
    case 'row':
      return `row ${Number(value) + 1} from the bottom`;
    case 'rotation':
      return `turned ${Number(value) * 90}°`;
    case 'blueprint':
      return value === 'deck' ? 'top of the deck' : blueprintEl(value);
    case 'source': {
      const m = /^D(\d)(?:\/(\w+))?$/.exec(value);
      if (!m) return words(value);
      const stake = board?.stakes?.[Number(m[1]) - 1];
      const colour = m[2] ? stake?.cards?.[m[2]]?.colour : stake?.colour;
      const where = m[2] ? `the stake card of D${m[1]} (${NODE_WORDS[m[2]] ?? m[2]})` : `stake D${m[1]}`;
      return [colour ? cubes([colour]) : null, ` a ${colour ? `${colour} ` : ''}cube from ${where}`];
    }
    case 'edge':
      return `tunnel ${value.replace('S', 'start').replace('-', ' → ')}`;
    case 'space':
      return BONUS[value] ?? words(value);
    case 'pay':
      return PAY[value] ?? words(value);
    case 'card':
      return QUEEN[value] ?? (/-/.test(value) ? blueprintEl(value) : words(value));
    case 'cubes':
      return Array.isArray(value) ? value.map((c) => (Array.isArray(c) ? [cubes([c[1]]), ` room ${Number(c[0]) + 1} `] : cubes([c]))) : String(value);
    case 'colour':
      return cubes([value]);
    case 'die':
      return dieWords(value, board);
    case 'helper':
      return `${dieWords(value, board)} helps (it sits out this round)`;
    case 'dice':
      return `dice ${value.map((d) => Number(d) + 1).join(', ')}`;
    case 'stake':
      return `stake D${value}`;
    default:
      return Array.isArray(value) ? value.join(', ') : words(value);
  }
}

/** The pending choice in words (the engine's prompt names action fields). */
function promptWords(pending) {
  switch (pending.kind) {
    case 'bumped':
      return `die ${Number(pending.die) + 1} was pushed off its space: place it again now.`;
    case 'blueprint':
      return 'take a blueprint — one of the face-up ones, or the top of the deck.';
    case 'egg':
      return 'put an egg into one of your empty rooms.';
    case 'tunnel':
      return `dig a tunnel at stake D${pending.area}.`;
    case 'cube':
      return `take a cube (${pending.from === 'any main stake' ? 'from any stake' : `from stake ${pending.from}`} or a stake card your tunnels reach) into one of your rooms.`;
    case 'trade':
      return 'trade to build: pay two cubes, an egg, a queen card or a blueprint — or pass.';
    case 'trade_take':
      return 'take the traded cube from a stake and choose the wall column it drops into.';
    case 'move':
      return `move cubes between two of your rooms holding dice that show ${pending.value} — or pass.`;
    case 'build':
      return `build a blueprint from a room holding dice that show ${pending.value} — or pass.`;
    case 'bonus':
      return 'a wall row is complete: choose a bonus.';
    default:
      return pending.prompt ?? 'make your choice.';
  }
}

/** A whole action as a button's content: its fields in words (the type alone if none). */
function actionContent(action) {
  const fields = Object.entries(action).filter(([key]) => key !== 'type');
  if (!fields.length) return fieldContent('type', action.type);
  return fields.map(([key, value], i) => [i ? ', ' : '', fieldContent(key, value)]);
}

const STEP_ORDER = ['type', 'card', 'pay', 'die', 'helper', 'blueprint', 'source', 'stake', 'room', 'rooms', 'rotation', 'column', 'row', 'edge', 'space', 'cubes', 'colour', 'value'];
const STEP_QUESTION = {
  type: 'What do you do?',
  card: 'Which card?',
  pay: 'Pay with',
  die: 'Which die?',
  helper: 'A helper die? One of your other dice sits out this round, and this die counts as the space’s value.',
  blueprint: 'Which blueprint?',
  source: 'From where?',
  stake: 'Which stake?',
  room: 'Which room?',
  rooms: 'Which rooms?',
  dice: 'Which dice to reroll?',
  rotation: 'Which way round?',
  column: 'Which wall column?',
  row: 'Dropped, or set at a row?',
  edge: 'Which tunnel?',
  space: 'Which bonus?',
  cubes: 'Which cubes?',
  value: 'Which value?',
};

export function createView(root, ctx) {
  const me = ctx.seat;
  let view = null;
  let legal = [];
  let legalKey = null;
  let stage = null; // a day turn: {dice: Set of my dice that can go somewhere, cards: the queen-card step or null}
  let selected = null; // index of my die picked for placement
  let slots = new Map(); // slot -> its staged choice {value, complete, more}, for the selected die
  let chain = []; // the day's questions after a slot or a queen card: [{partial, reply, picked}]
  let picks = []; // answers given so far to the pending choice: [{key, value}]
  const roomPicks = new Map(); // room -> answer, while the chooser asks "which room?"
  const columnPicks = new Map(); // wall column -> answer, while it asks "which column?"
  const lastBySeat = new Map(); // seat -> the slot its latest die went to
  let lastSlots = new Set(); // those slots (highlighted)

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
      stage = null;
      legalKey = key;
      return;
    }
    if (b().phase === 'day') {
      const got = await dayStage();
      if (!view || keyOf(view) !== key) return;
      legal = [];
      stage = got;
    } else {
      const actions = (await ctx.legal()) ?? [];
      if (!view || keyOf(view) !== key) return;
      legal = actions;
      stage = null;
    }
    legalKey = key;
    render();
  }

  /** A day turn's first questions, asked from the server: which dice can go somewhere,
   * which queen cards can be played (three small requests, not thousands of actions). */
  async function dayStage() {
    const top = await ctx.legalStep({});
    const types = (top?.choices ?? []).map((c) => c.value);
    const dice = types.includes('place_die') ? await ctx.legalStep({ type: 'place_die' }) : null;
    const cards = types.includes('play_queen') ? await ctx.legalStep({ type: 'play_queen' }) : null;
    return { dice: new Set((dice?.choices ?? []).map((c) => c.value)), cards };
  }

  const ready = () => legalKey === keyOf(view) && myTurn();

  /** The slots the picked die can go to (its staged choices), by slot. */
  function slotActions() {
    return ready() && selected !== null ? slots : new Map();
  }

  async function pickDie(die) {
    chain = [];
    slots = new Map();
    selected = selected === die ? null : die;
    render();
    if (selected === null) return;
    const key = legalKey;
    const reply = await ctx.legalStep({ type: 'place_die', die });
    if (legalKey !== key || selected !== die) return;
    slots = new Map((reply?.choices ?? []).map((c) => [c.value, c]));
    render();
  }

  function slotButton(slot, content, targets) {
    const choice = targets.get(slot);
    // The view's `idle`: where a die of yours would do nothing tonight, and why.
    const idle = choice ? b().idle?.[slot] : undefined;
    const notes = [choice && !choice.complete ? 'needs a helper die' : null, idle ? `does nothing tonight: ${idle}` : null].filter(Boolean);
    return h(
      choice ? 'button' : 'div',
      {
        class: ['tm-slot', choice ? 'target' : null, choice && !choice.complete ? 'needs-helper' : null, idle ? 'idle' : null, lastSlots.has(slot) ? 'last' : null],
        data: { slot },
        title: notes.length ? notes.join('; ') : undefined,
        type: choice ? 'button' : undefined,
        on: choice ? { click: () => ((chain = []), answerStep({ type: 'place_die', die: selected }, 'slot', choice)) } : {},
      },
      idle ? [...[content].flat(), h('small', { class: 'tm-idle' }, ' ✗ nothing tonight')] : content,
    );
  }

  /** Play, or ask the server what follows: `choice` (of `field`) answered on `partial`. */
  async function answerStep(partial, field, choice) {
    const next = { ...partial, [field]: choice.value };
    if (choice.complete && !choice.more) {
      await play(next);
      return;
    }
    const key = legalKey;
    const reply = await ctx.legalStep(next);
    if (legalKey !== key || !reply) return;
    chain = [...chain, { partial: next, reply, picked: chain.length ? [field, choice.value] : null }];
    render();
  }

  async function play(action) {
    if (await ctx.act(action)) {
      selected = null;
      slots = new Map();
      chain = [];
    }
  }

  /** The day's question after a slot or a queen card (a helper die, a value, a room…). */
  function stagedStepper({ onCancel }) {
    const { partial, reply } = chain.at(-1);
    const field = reply.field;
    const chosen = chain.filter((link) => link.picked);
    const buttons = [];
    if (reply.complete) {
      const label = { helper: 'no helper die', dice: 'reroll the dice chosen' }[field] ?? 'as it is';
      buttons.push(h('button', { class: 'small tm-choice as-it-is', data: { key: field ?? '', value: '' }, on: { click: () => play(partial) } }, label));
    }
    for (const choice of reply.choices) {
      const answer = () => answerStep(partial, field, choice);
      if (field === 'room') roomPicks.set(choice.value, answer); // also on the board
      buttons.push(h('button', { class: 'small tm-choice', data: { key: field, value: JSON.stringify(choice.value) }, on: { click: answer } }, fieldContent(field, choice.value, b())));
    }
    return h(
      'div',
      { class: 'tm-steps' },
      chosen.length ? h('p', { class: 'tm-picked' }, 'You chose: ', chosen.map(({ picked: [key, value] }) => h('span', { class: 'tm-pick' }, fieldContent(key, value, b())))) : null,
      field ? h('p', { class: 'tm-question' }, STEP_QUESTION[field] ?? `Choose ${words(field)}`) : null,
      h('div', { class: 'tm-choices' }, buttons),
      h('button', { class: 'small tm-back', on: { click: () => (chain.length > 1 ? chain.pop() : ((chain = []), onCancel?.()), render()) } }, chain.length > 1 ? 'Back' : 'Cancel'),
    );
  }

  /** The stepped chooser over `actions`: the answers so far, then the next question. */
  function stepper(actions, { onCancel } = {}) {
    let left = actions;
    for (const { key, value } of picks) left = left.filter((a) => JSON.stringify(a[key]) === JSON.stringify(value));
    const step = nextStep(left, STEP_ORDER);
    if (!step && left.length === 1 && picks.length) {
      const action = left[0];
      picks = [];
      ctx.act(action).then((ok) => ok && render());
      return h('p', { class: 'muted' }, 'Sending…');
    }
    return h(
      'div',
      { class: 'tm-steps' },
      picks.length ? h('p', { class: 'tm-picked' }, 'You chose: ', picks.map((p) => h('span', { class: 'tm-pick' }, fieldContent(p.key, p.value, b())))) : null,
      step
        ? [
            h('p', { class: 'tm-question' }, STEP_QUESTION[step.key] ?? `Choose ${words(step.key)}`),
            h(
              'div',
              { class: 'tm-choices' },
              step.options.map((o) => {
                const answer = () => (o.actions.length === 1 ? ctx.act(o.actions[0]).then((ok) => ok && (picks = [])) : (picks.push({ key: step.key, value: o.value }), render()));
                if (step.key === 'room') roomPicks.set(o.value, answer); // also on the board
                if (step.key === 'column') columnPicks.set(o.value, answer);
                return h(
                  'button',
                  {
                    class: ['small', 'tm-choice', step.key === 'type' ? o.value : null],
                    data: { key: step.key, count: o.actions.length, value: o.value === undefined ? '' : JSON.stringify(o.value) },
                    on: { click: answer },
                  },
                  fieldContent(step.key, o.value, b()),
                );
              }),
            ),
          ]
        : left.map((a) => h('button', { class: ['small', 'tm-choice', a.type], on: { click: () => ctx.act(a) } }, actionContent(a))),
      picks.length || onCancel ? h('button', { class: 'small tm-back', on: { click: () => (picks.length ? picks.pop() : onCancel?.(), render()) } }, picks.length ? 'Back' : 'Cancel') : null,
    );
  }

  function renderInfo() {
    const board = b();
    const phase = board.phase === 'day' ? 'Day: place dice in seat order' : board.phase === 'night' ? 'Night: actions resolve A to G' : 'Game over';
    info.textContent = `Round ${board.round} · ${phase} · rows to end ${board.rows_to_end}`;
  }

  function renderTurn() {
    replace(turnBox);
    roomPicks.clear();
    columnPicks.clear();
    const board = b();
    const pending = board.pending;
    if (pending) {
      add(turnBox, h('p', { class: ['tm-prompt', pending.seat === me ? 'mine' : null], data: { kind: pending.kind } }, `${ctx.seatName(pending.seat)}: ${promptWords(pending)}`));
    }
    if (!myTurn()) {
      if (view.status === 'playing' && !pending) add(turnBox, h('p', { class: 'muted' }, `Waiting for ${(board.to_act ?? []).map(ctx.seatName).join(', ')}…`));
      return;
    }
    if (!ready()) {
      add(turnBox, h('p', { class: 'muted' }, 'Your turn…'));
      return;
    }
    if (stage) {
      renderDay();
      return;
    }
    const others = legal.filter((a) => a.type !== 'resign');
    if (others.length) add(turnBox, stepper(others));
  }

  function renderDay() {
    const start = chain[0]?.partial;
    if (stage.dice.size && !start) {
      const die = selected === null ? null : b().players[me].dice[selected];
      add(turnBox, h('p', {}, die ? `Die ${selected + 1} (showing ${die.value}) picked: ${CLICK} a highlighted space.` : `Your turn: ${CLICK} one of your dice below, then a highlighted space.`));
      const idle = idleNote(slotActions());
      if (idle) add(turnBox, idle);
      if ([...slotActions().values()].some((choice) => !choice.complete)) {
        add(
          turnBox,
          h(
            'p',
            { class: 'tm-helper-note' },
            h('span', { class: 'tm-dash', 'aria-hidden': 'true' }),
            ' Dashed spaces take this die only with a helper: another of your unplaced dice sits out this round, and this die then counts as the space’s value.',
          ),
        );
      }
    }
    if (start?.type === 'place_die') {
      add(turnBox, h('p', {}, `Die ${start.die + 1} to ${slotWords(start.slot)}:`), stagedStepper({}));
    } else if (start?.type === 'play_queen') {
      add(turnBox, h('p', {}, `The queen card ${fieldContent('card', start.card)}:`), stagedStepper({}));
    } else if (stage.cards?.choices.length) {
      add(
        turnBox,
        h(
          'div',
          { class: 'tm-steps' },
          h('p', { class: 'tm-question' }, 'Or play a queen card:'),
          h('div', { class: 'tm-choices' }, stage.cards.choices.map((choice) => h('button', { class: 'small tm-choice play_queen', data: { key: 'card', value: JSON.stringify(choice.value) }, on: { click: () => answerStep({ type: 'play_queen' }, 'card', choice) } }, fieldContent('card', choice.value)))),
        ),
      );
    }
  }

  /** Where the picked die would do nothing tonight, grouped by reason (the view's
   * `idle`), said before it is placed; null when every space it reaches does something. */
  function idleNote(targets) {
    const byReason = new Map();
    for (const slot of targets.keys()) {
      const reason = b().idle?.[slot];
      if (!reason) continue;
      const m = /^([ACEG])(\d)$/.exec(slot);
      const key = m ? `card ${m[1]}` : slotWords(slot);
      const places = byReason.get(reason) ?? new Map();
      places.set(key, [...(places.get(key) ?? []), ...(m ? [m[2]] : [])]);
      byReason.set(reason, places);
    }
    if (!byReason.size) return null;
    return h(
      'div',
      { class: 'tm-idle-note', role: 'note' },
      h('strong', {}, '✗ Does nothing tonight:'),
      [...byReason].map(([reason, places]) =>
        h('p', {}, [...places].map(([place, spaces]) => (spaces.length ? `${place}, space${spaces.length > 1 ? 's' : ''} ${spaces.join(', ')}` : place)).join('; '), ` — ${reason}.`),
      ),
    );
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
          h('span', { class: 'tm-card-name' }, card, h('small', {}, CARD_WORDS[card] ?? '')),
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
            { class: ['tm-stake', whiteClass(stake.colour)], data: { area: stake.area, colour: stake.colour }, style: { '--colour': CUBE_COLOURS[stake.colour] } },
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
                  { class: ['tm-stake-card', card ? 'up' : 'down', `n${node}`, whiteClass(card?.colour)], title: card ? `${card.cubes} ${card.colour} cube${card.cubes === 1 ? '' : 's'} (${NODE_WORDS[node]})` : `face down (${NODE_WORDS[node]})`, style: card ? { background: CUBE_COLOURS[card.colour] } : {} },
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

  function wallEl(rows, { picks = null } = {}) {
    // rows are bottom first; draw top first.  `picks` (column -> answer): the columns
    // the chooser offers, as buttons above the wall.
    const width = rows[0]?.length ?? 0;
    return h(
      'div',
      { class: 'tm-wall' },
      picks?.size
        ? h('div', { class: 'tm-wall-row tm-wall-picks' }, Array.from({ length: width }, (_, x) => (picks.has(x) ? h('button', { class: 'tm-wall-pick', type: 'button', data: { column: x }, title: `column ${x + 1}`, on: { click: picks.get(x) } }, '▼') : h('span', { class: 'tm-wall-cell empty' }))))
        : null,
      [...rows].reverse().map((row) =>
        h('div', { class: 'tm-wall-row' }, [...row].map((c) => h('span', { class: ['tm-wall-cell', c === '.' ? 'empty' : null, whiteClass(INITIAL[c])], style: c === '.' ? {} : { background: CUBE_COLOURS[INITIAL[c]] ?? '#999' }, title: INITIAL[c] ?? '' }))),
      ),
    );
  }

  function playerBoard(seat, targets, full) {
    const player = b().players[seat];
    const mine = seat === me;
    const pickable = mine && ready() && stage ? stage.dice : new Set();
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
              onClick: pickable.has(i) ? () => pickDie(i) : null,
            },
          ),
        ),
      ),
      h(
        'div',
        { class: 'tm-rooms' },
        player.rooms.map((room, r) =>
          (mine && roomPicks.has(r)
            ? (content) => h('button', { class: 'tm-slot target', type: 'button', data: { room: r }, on: { click: roomPicks.get(r) } }, content)
            : mine
              ? (content) => slotButton(`R${r}`, content, targets)
              : (content) => h('div', { class: 'tm-slot' }, content))([
            h('small', {}, `room ${r + 1}`),
            room.egg ? h('span', { class: 'tm-egg', title: 'egg' }) : null,
            cubes(room.cubes ?? []),
            (player.dice ?? []).map((d, i) => (d.at === `R${r}` ? dieEl({ ...d, owner: seat }, { index: i }) : null)),
          ]),
        ),
      ),
      full ? wallEl(player.wall, { picks: mine ? columnPicks : null }) : null,
      h(
        'div',
        { class: 'tm-meta' },
        h('span', { class: 'tm-meta-item' }, 'Built: ', (player.built ?? []).length ? player.built.map(blueprintEl) : h('span', { class: 'muted' }, 'nothing yet')),
        h('span', { class: 'tm-meta-item' }, 'Bonuses: ', (player.bonus ?? []).length ? player.bonus.map((x) => BONUS[x] ?? words(x)).join(', ') : h('span', { class: 'muted' }, 'none')),
        player.hand
          ? h('span', { class: 'tm-meta-item' }, 'Blueprints in hand: ', player.hand.length ? player.hand.map(blueprintEl) : h('span', { class: 'muted' }, 'none'))
          : h('span', { class: 'tm-meta-item' }, `Blueprints in hand: ${player.hand_count ?? 0}`),
        player.queens
          ? h('span', { class: 'tm-meta-item' }, `Queen cards: ${player.queens.map((q) => QUEEN[q] ?? words(q)).join(', ') || 'none'}`)
          : h('span', { class: 'tm-meta-item' }, `Queen cards: ${player.queen_count ?? 0}`),
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
      h('div', { class: 'tm-legend' }, 'Dice: ', board.players.map((_, seat) => h('span', { class: 'tm-legend-item' }, dieEl({ kind: 'worker', value: '·', owner: seat }), ` ${ctx.seatName(seat)}`)), h('span', { class: 'tm-legend-item' }, dieEl({ kind: 'worker', value: '·', owner: -1 }), ' neutral'), h('span', { class: 'tm-legend-item' }, dieEl({ kind: 'soldier', value: '', owner: -1 }), ' soldier')),
      h('div', {}, 'Blueprints face up: ', (board.blueprints?.face_up ?? []).map(blueprintEl), ` · deck ${board.blueprints?.deck ?? 0}`),
      h('div', { class: 'muted' }, `Queen deck ${board.queen_deck ?? 0} · eggs left ${board.eggs ?? 0} · goals: ${(board.goals ?? []).map((g) => words(g.goal)).join(', ') || 'none'}`),
    );
  }

  return {
    update(next) {
      const changed = !view || keyOf(view) !== keyOf(next);
      view = next;
      if (changed) {
        selected = null;
        slots = new Map();
        chain = [];
        picks = [];
        refreshLegal();
      }
      render();
    },
    events(list) {
      const placed = list.filter((e) => e.type === 'placed' && e.slot);
      if (!placed.length) return;
      for (const e of placed) lastBySeat.set(e.seat, e.slot);
      lastSlots = new Set(lastBySeat.values());
      render();
    },
    destroy() {},
  };
}

// -- words for people: the game log, the end screen ------------------------------

export const optionWords = {
  rows_to_end: { label: 'Wall rows to finish', hint: 'completed rows that end the game (5 or 7)' },
};

/** What a trade cost, in words: {pay, cubes?, room?, card?} (a bare string tolerated). */
function paidWords(paid) {
  const pay = typeof paid === 'object' && paid !== null ? paid : { pay: paid };
  switch (pay.pay) {
    case 'cubes':
      return Array.isArray(pay.cubes) ? `${pay.cubes.map(([, colour]) => colour).join(' and ')} cubes` : 'two cubes';
    case 'egg':
      return pay.room === undefined ? 'an egg' : `the egg in room ${Number(pay.room) + 1}`;
    case 'queen':
      return pay.card ? `the queen card ${QUEEN[pay.card] ?? words(pay.card)}` : 'a queen card';
    case 'blueprint':
      return pay.card ? `the ${String(pay.card).replace('-', ' ')} blueprint` : 'a blueprint';
    default:
      return 'a price';
  }
}

/** A log line for one event, or null for the generic line. */
export function describe(event, name) {
  const who = event.seat !== undefined ? name(event.seat) : '';
  switch (event.type) {
    case 'placed':
      return `${who} put a ${event.value} ${/^R/.test(event.slot) ? 'in' : 'on'} ${slotWords(event.slot)}${event.helper !== null && event.helper !== undefined ? ' with a helper die' : ''}.`;
    case 'bumped':
      return `${who}'s die was pushed off ${slotWords(event.slot)}.`;
    case 'queen_played':
      return `${who} played the queen card ${QUEEN[event.card] ?? words(event.card)}.`;
    case 'resigned':
      return `${who} resigned.`;
    case 'blueprint':
      return event.card ? `${who} took a blueprint (${event.card.replace('-', ' ')}).` : `${who} took a blueprint from the deck.`;
    case 'hatched':
      return `${who} hatched ${event.kind ? `a ${words(event.kind)}` : 'an egg'} in room ${Number(event.room) + 1}.`;
    case 'egg':
      return `${who} laid an egg in room ${Number(event.room) + 1}.`;
    case 'tunnel':
      return `${who} dug a tunnel at stake D${event.area}.`;
    case 'cube':
      return `${who} took a ${event.colour} cube into room ${Number(event.room) + 1}.`;
    case 'queen_drawn':
      return `${who} drew a queen card (${event.left} left).`;
    case 'bonus':
      return `${who} chose the bonus: ${BONUS[event.space] ?? words(event.space)}${event.lost ? ' (the supply has none left, so it is lost)' : ''}.`;
    case 'no_hatch':
      return `${who}'s egg in room ${Number(event.room) + 1} stays an egg: the supply has no ${words(event.kind)} die left.`;
    case 'neutral':
      return 'The neutral dice were rolled and set out on the action cards and stakes.';
    case 'night':
      return `Night ${event.round}: the actions happen.`;
    case 'round':
      return `Round ${event.round} begins; ${name(event.start)} starts.`;
    case 'rolled':
      return `${who} rolled ${(event.values ?? []).join(', ')}.`;
    case 'passed':
      return `${who} passed.`;
    case 'rows': {
      const rows = (Array.isArray(event.rows) ? event.rows : [event.rows]).map((y) => Number(y) + 1);
      return `${who} completed wall row${rows.length === 1 ? '' : 's'} ${rows.join(' and ')}: a bonus to choose for each.`;
    }
    case 'trade':
      return `${who} paid ${paidWords(event.paid)} for a cube.`;
    case 'wall_cube':
      return `${who} put a ${event.colour} cube on the wall, column ${Number(event.column) + 1}.`;
    case 'moved':
      return `${who} moved cubes between rooms ${event.rooms.map((r) => Number(r) + 1).join(' and ')}.`;
    case 'built':
      return `${who} built the ${event.blueprint.replace('-', ' ')} blueprint into the wall.`;
    case 'revealed':
      return `A stake card at D${event.area} was turned up: ${event.cubes} ${event.colour} cube${event.cubes === 1 ? '' : 's'}.`;
    case 'majority':
      return (event.awards ?? []).length
        ? `Stake D${event.area}'s majority: ${event.awards.map(([seat, n]) => `${name(seat)} wins ${n} cube${n === 1 ? '' : 's'}`).join(', ')}.`
        : `Nobody wins cubes at stake D${event.area}: the neutral dice hold the most.`;
    case 'no_cube':
      return `${who} did not get ${event.cubes} cube${event.cubes === 1 ? '' : 's'} won at stake D${event.area}: ${
        event.reason === 'rooms_full' ? 'no room of theirs had space' : 'none were left there or on a stake card their tunnels reach'
      }.`;
    case 'finished':
      return event.reason === 'resignation' ? 'The game is over.' : `The game is over: ${event.reason}.`;
    default:
      return null;
  }
}

/** Points of a built blueprint by its shape (the edition's table, docs/games/termite.md). */
const SHAPE_POINTS = { O: 2, I: 3, L: 3, J: 3, T: 4, S: 5, Z: 5 };

/** The result's reason in words (the engine's end reasons are words already but one). */
export function reason(code) {
  return code === 'resignation' ? 'ended by resignation' : null;
}

/** The end screen's breakdown: blueprint points, goal cards and bonus points (they add up
 * to the score), then the tie-breaks in their order: rows, wall cubes, fewer dice. */
export function breakdown(view) {
  const players = view.board.players ?? [];
  const parts = players.map((p) => {
    const blueprints = (p.built ?? []).reduce((s, card) => s + (SHAPE_POINTS[String(card).split('-')[1]] ?? 0), 0);
    const bonus = p.points ?? 0;
    return [blueprints, (p.score ?? 0) - blueprints - bonus, bonus];
  });
  return {
    columns: ['blueprints', 'goal cards', 'bonus spaces'],
    rows: parts,
    after: {
      columns: ['wall rows', 'wall cubes', 'dice'],
      rows: players.map((p) => [p.rows ?? 0, (p.wall ?? []).join('').replaceAll('.', '').length, (p.dice ?? []).length]),
    },
    note: 'Equal scores are decided by more completed wall rows, then more cubes in the wall, then fewer dice.',
  };
}
