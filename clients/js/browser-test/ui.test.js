// The browser UI in a real headless Chromium against a real hub: two players play
// 9-tower by clicking (one with a mouse at desktop width, one by tapping at phone
// width), a third browser spectates from the live lobby and sees the same boards; an
// illegal drop shows the rule it breaks; a whole 9-tower game against a bot reaches the
// end screen; the timer's move gets a notice; the phone lobby puts "Start a game"
// first; wall duel, number row and Termite Towers tables render and accept moves, and
// Termite's night choices are answered in steps; a room in the page address reaches the
// socket and the links, and on a hub sharing its tables (Redis) creating a table takes
// the page into a room of its own.  Every page fails the run on any
// console warning or error.  Screenshots go to artifacts/screenshots/.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { cellPoint, hubAndBrowser, openUi, screenshot, tableId } from '../testing/browser.js';
import { startHub, startRedis } from '../testing/hub.js';
import { termitePath } from '../testing/termite.js';
import { checkPlacement, placedCells, shapeSize } from '../ui/games/nmbr9-rules.js';

const ROUNDS = 5;

const run = hubAndBrowser();
const pages = [];


async function open(name, options, path) {
  const page = await openUi(run.browser, run.hub, name, options, path);
  pages.push(page);
  return page;
}

async function createTable(page, game, { seats, bots, options = {} } = {}) {
  const form = page.locator(`.new-table[data-game="${game}"]`);
  if (seats) await form.locator('select[name="seats"]').selectOption(String(seats));
  if ('seed' in options) await form.locator('details.advanced summary').click();
  for (const [name, value] of Object.entries(options)) await form.locator(`[name="${name}"]`).fill(String(value));
  await form.locator('input[name="bots"]').setChecked(Boolean(bots));
  await form.locator('button[type="submit"]').click();
  await page.waitForSelector('.table-page');
  return tableId(page);
}

/** Tiles of every board on a page: {seat: ["digit x y rot level", ...]} (first board per seat). */
function boards(page) {
  return page.evaluate(() => {
    const out = {};
    for (const svgEl of document.querySelectorAll('.n9-board[data-seat]')) {
      const seat = svgEl.dataset.seat;
      if (seat in out) continue;
      out[seat] = [...svgEl.querySelectorAll('.n9-tile')]
        .map((t) => `${t.dataset.digit} ${t.dataset.x} ${t.dataset.y} ${t.dataset.rot} ${t.dataset.level}`)
        .sort();
    }
    return out;
  });
}

function leaderboard(page) {
  return page.$$eval('.n9-leader', (rows) => rows.map((r) => `${r.dataset.seat}:${r.dataset.score}`).sort());
}

const roundIs = (page, round) =>
  page.waitForFunction((r) => document.querySelector('.n9-round-line')?.textContent.startsWith(`Round ${r} `), round);

/** The highest, most compact placement (a layout that grows levels, for the screenshots). */
function best(actions, digit, tiles) {
  const cells = tiles.flatMap((t) => t.cells);
  const mid = (i) => (cells.length ? cells.reduce((s, c) => s + c[i], 0) / cells.length : 0);
  const [mx, my] = [mid(0), mid(1)];
  const value = (a) => {
    const placed = placedCells(digit, a.x, a.y, a.rot);
    const far = placed.reduce((s, [x, y]) => s + Math.abs(x - mx) + Math.abs(y - my), 0) / placed.length;
    return checkPlacement(tiles, digit, a.x, a.y, a.rot).level * 100 - far;
  };
  return actions.reduce((a, b) => (value(b) > value(a) ? b : a));
}

/**
 * Drop the current tile at a legal placement by pointing and clicking (or tapping):
 * point at the placement's centre cell, rotate with the button until the ghost has
 * the placement's rotation, check it says legal, then confirm by clicking again.
 */
async function placeByClicking(page, table, { tap = false, highest = false } = {}) {
  const { actions, digit, tiles } = await page.evaluate(async (t) => {
    const { client } = window.tablehub;
    const { board } = client.tables.get(t).view;
    return { actions: (await client.legal(t)).actions, digit: board.card, tiles: board.players[client.tables.get(t).seat].tiles };
  }, table);
  const target = highest ? best(actions, digit, tiles) : actions[Math.floor(actions.length / 3)];
  const { w, h } = shapeSize(digit, target.rot);
  const centre = { x: target.x + Math.floor((w - 1) / 2), y: target.y + Math.floor((h - 1) / 2) };
  const point = await cellPoint(page, '.n9-big', centre.x, centre.y);
  if (tap) await page.touchscreen.tap(point.x, point.y);
  else {
    await page.mouse.move(point.x, point.y);
    await page.waitForSelector('.n9-ghost:not(.pinned)');
    await page.mouse.click(point.x, point.y);
  }
  await page.waitForSelector('.n9-ghost.pinned');
  for (let i = 0; i < 4; i++) {
    const rot = await page.$eval('.n9-ghost', (g) => Number(g.dataset.rot));
    if (rot === target.rot) break;
    if (tap) await page.tap('.n9-rotr');
    else await page.keyboard.press('e');
  }
  const ghost = await page.$eval('.n9-ghost', (g) => ({ ...g.dataset, cls: g.getAttribute('class') }));
  assert.deepEqual([Number(ghost.x), Number(ghost.y), Number(ghost.rot)], [target.x, target.y, target.rot]);
  assert.match(ghost.cls, /legal/);
  assert.match(await page.textContent('.n9-status'), /^Level \d/);
  const after = await page.evaluate((t) => window.tablehub.client.tables.get(t).version, table);
  // Tapping the rotate button may have scrolled the page: find the cell again.
  const again = await cellPoint(page, '.n9-big', centre.x, centre.y);
  if (tap) await page.touchscreen.tap(again.x, again.y);
  else await page.mouse.click(again.x, again.y);
  await page.waitForFunction(
    ({ t, v }) => window.tablehub.client.tables.get(t).version > v,
    { t: table, v: after },
  );
  await page.waitForSelector('.n9-status:text-matches("^Placed|^Place the|^The game is over")');
}

describe('9-tower in the browser', () => {
  it('two players play by clicking and a spectator sees the same boards', async () => {
    const alice = await open('alice');
    const bob = await open('bob', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const carol = await open('carol');
    await screenshot(alice, 'lobby');
    await screenshot(bob, 'lobby-phone');
    assert.ok(await alice.evaluate(() => window.tablehub.protocol !== null), 'the protocol schemas loaded');

    const table = await createTable(alice, 'nmbr9', { seats: 2, bots: false });
    assert.match(table, /^[0-9a-f]+$/);
    await alice.waitForSelector('.banner.waiting');

    // The table appears in the others' live lobby lists; bob joins, carol watches.
    const bobRow = bob.locator(`.table-row[data-table="${table}"]`);
    await bobRow.locator('button.join').tap();
    await bob.waitForSelector(`.table-page[data-table="${table}"] .n9-big`);
    await carol.locator(`.table-row[data-table="${table}"] button.watch`).click();
    await carol.waitForSelector(`.table-page[data-table="${table}"] .n9.spectating`);
    await alice.waitForSelector('.pill.playing');

    for (let round = 1; round <= ROUNDS; round++) {
      await Promise.all([roundIs(alice, round), roundIs(bob, round)]);
      if (round === 2) {
        // An illegal drop: far from the layout the ghost turns red and says why.
        const box = await alice.$eval('.n9-big', (el) => { const v = el.viewBox.baseVal; return { x: v.x, y: v.y, width: v.width, height: v.height }; });
        const point = await cellPoint(alice, '.n9-big', box.x, box.y);
        await alice.mouse.click(point.x, point.y);
        await alice.waitForSelector('.n9-ghost.pinned.illegal');
        assert.match(await alice.textContent('.n9-status.illegal'), /must touch your layout along an edge/);
        assert.equal(await alice.isDisabled('.n9-confirm'), true);
        await screenshot(alice, 'nmbr9-illegal-drop');
        await alice.keyboard.press('Escape');
      }
      if (round === 3) {
        // A reload gives alice her seat back (token kept in localStorage) ...
        await alice.reload();
        await alice.waitForSelector(`.table-page[data-table="${table}"] .n9.playing .n9-big`);
        await alice.waitForSelector('.seat.me');
        // ... and a dropped connection reconnects and resumes by itself.
        await bob.evaluate(() => window.tablehub.client.dropConnection());
        await bob.waitForFunction(() => window.tablehub.client.reconnects === 1 && window.tablehub.client.state === 'open');
        await bob.waitForSelector('#conn[data-state="open"]');
      }
      await placeByClicking(alice, table, { highest: true });
      await placeByClicking(bob, table, { tap: true });
    }
    await Promise.all([alice, bob, carol].map((p) => roundIs(p, ROUNDS + 1)));

    // Everyone sees the same boards and scores.
    const [a, b, c] = await Promise.all([alice, bob, carol].map(boards));
    assert.equal(a[0].length, ROUNDS);
    assert.equal(a[1].length, ROUNDS);
    assert.deepEqual(b, a);
    assert.deepEqual(c, a);
    const scores = await leaderboard(alice);
    assert.deepEqual(await leaderboard(bob), scores);
    assert.deepEqual(await leaderboard(carol), scores);
    assert.equal(await carol.$$eval('.n9-controls, .n9-ghost', (els) => els.length), 0, 'spectators get no controls');

    // The tracker counts the cards played.
    const left = await alice.$$eval('.n9-rem', (els) => els.reduce((s, e) => s + Number(e.dataset.count), 0));
    assert.equal(left, 20 - ROUNDS - 1);

    // A mouse hover shows the ghost following the pointer, for the screenshot.
    const box = await alice.$eval('.n9-big', (el) => { const v = el.viewBox.baseVal; return { x: v.x, y: v.y, width: v.width, height: v.height }; });
    const hover = await cellPoint(alice, '.n9-big', box.x + Math.floor(box.width / 2), box.y + Math.floor(box.height / 2));
    await alice.mouse.move(hover.x, hover.y);
    await alice.waitForSelector('.n9-ghost');
    await screenshot(alice, 'nmbr9-player');
    await screenshot(bob, 'nmbr9-phone');
    await screenshot(carol, 'nmbr9-spectator');

    // The lobby row shows the table playing with both seats taken.
    await alice.click('a.back');
    const row = alice.locator(`.table-row[data-table="${table}"]`);
    await row.locator('.pill.playing').waitFor();
    assert.match(await row.textContent(), /alice[\s\S]*bob/);
    await screenshot(alice, 'lobby-with-tables');
  });
});

/** Every log line, newest first. */
const logLines = (page) => page.$$eval('.event-log li', (els) => els.map((e) => e.textContent));

/** Log lines are sentences for people: no field dumps, codes, null or bare event names. */
function assertReadable(lines) {
  assert.ok(lines.length > 0, 'the log has lines');
  for (const line of lines) {
    assert.doesNotMatch(line, /[{}[\]_]|\bnull\b|\bundefined\b|NaN|\(\w+ \w+,/, line);
    assert.ok(line.split(' ').length >= 3, `a sentence, not a bare event name: ${line}`);
  }
}

describe('9-tower to the end', () => {
  it('a whole game against a bot ends on a score breakdown; drag from the preview works', async () => {
    const page = await open('hal');
    const table = await createTable(page, 'nmbr9', { seats: 2, bots: true, options: { seed: 11 } });
    await roundIs(page, 1);
    // Drag the preview onto the board: the ghost lands pinned where it was let go.
    const box = await page.$eval('.n9-big', (el) => { const v = el.viewBox.baseVal; return { x: v.x, y: v.y, w: v.width, h: v.height }; });
    const cell = { x: box.x + Math.floor(box.w / 2), y: box.y + Math.floor(box.h / 2) };
    const from = await page.$eval('.n9-preview', (el) => { const r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    const to = await cellPoint(page, '.n9-big', cell.x, cell.y);
    await page.mouse.move(to.x, to.y, { steps: 5 });
    await page.mouse.up();
    await page.waitForSelector('.n9-ghost.pinned.legal');
    await page.keyboard.press('Escape');

    for (let round = 1; round <= 20; round++) {
      await roundIs(page, round);
      // The board keeps its frame while the tiles fit: no jump after Confirm.
      if (round === 12) await screenshot(page, 'nmbr9-round12');
      const before = await page.$eval('.n9-big', (el) => el.getAttribute('viewBox'));
      await placeByClicking(page, table, { highest: true });
      if (round < 20) {
        await roundIs(page, round + 1);
        const after = await page.$eval('.n9-big', (el) => el.getAttribute('viewBox'));
        const [bx, by] = before.split(' ').map(Number);
        const [ax, ay] = after.split(' ').map(Number);
        assert.ok(ax <= bx && ay <= by, `the frame only grows: ${before} -> ${after}`);
      }
    }
    await page.waitForSelector('.end-screen:not([hidden]) .end-table');
    const rows = await page.$$eval('.end-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    const head = await page.$$eval('.end-table thead th', (ths) => ths.map((th) => th.textContent));
    assert.equal(rows.length, 2);
    assert.deepEqual(head.slice(0, 2), ['Place', 'Player']);
    assert.deepEqual(head.slice(-2), ['Score', 'tiles placed']);
    for (const row of rows) {
      const levels = row.slice(2, -2).map(Number);
      assert.equal(levels.reduce((a, b) => a + b, 0), Number(row.at(-2)), `levels add up to the score: ${row}`);
      assert.equal(row.at(-1), '20', 'twenty tiles each');
    }
    assert.match(await page.textContent('.end-screen h2'), /^Game over — (You win|bot 2 wins|You share the win)/);
    assert.match(await page.textContent('.end-reason'), /^All 20 cards were played\.$/);
    assertReadable(await logLines(page));
    await screenshot(page, 'nmbr9-end');
    assert.deepEqual(page.problems, []);
  });

  it('says when the timer played a move for you', async () => {
    const page = await open('ivy');
    await createTable(page, 'nmbr9', { seats: 2, bots: true, options: { turn_seconds: 1 } });
    await page.waitForSelector('.timer-notice:not([hidden])', { timeout: 15000 });
    assert.equal(await page.textContent('.timer-notice'), 'Time ran out: the bot played your move.');
    // It stays up while the game goes on without you (the bot's next move, the next round).
    const round = Number((await page.textContent('.n9-round-line')).split(' ')[1]);
    await roundIs(page, round + 1);
    assert.ok(await page.isVisible('.timer-notice'), 'the notice is still shown a round later');
    assert.ok((await logLines(page)).includes('Time ran out: the bot played your move.'));
    assert.equal(page.sockets.length, 1, 'one hub on its own store: creating a table takes no room');
    assert.deepEqual(page.problems, []);
  });
});

describe('a room named in the address', () => {
  it('is named by the socket (a balancer keeps a room on one hub) and kept in the watch link', async () => {
    const page = await open('rae', { permissions: ['clipboard-read', 'clipboard-write'] }, '/?room=friends%201');
    assert.deepEqual(page.sockets.map((u) => new URL(u).searchParams.get('room')), ['friends 1']);
    const table = await createTable(page, 'brix', { seats: 2, bots: true });
    await page.click('.table-foot .share');
    const link = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(link, `${run.hub.http}/?room=friends%201#/table/${table}?watch`);
    assert.deepEqual(page.problems, []);
  });
});

describe('a hub that shares its tables with other hubs (Redis)', () => {
  let redis;
  let sharing;
  before(async () => {
    redis = await startRedis();
    sharing = await startHub({ store: redis.url });
  });
  after(async () => {
    await sharing?.stop();
    await redis?.stop();
  });

  it('creating a table takes the page into a room of its own, kept in its links', async () => {
    const page = await openUi(run.browser, sharing, 'uma', { permissions: ['clipboard-read', 'clipboard-write'] });
    const table = await createTable(page, 'brix', { seats: 2, bots: true });
    const room = new URL(page.url()).searchParams.get('room');
    assert.match(room ?? '', /^[a-z0-9]{10}$/, 'the address names a room');
    assert.deepEqual(page.sockets.map((u) => new URL(u).searchParams.get('room')), [null, room], 'the socket moved there');
    await page.waitForSelector('#conn[data-state="open"]');
    await page.click('.table-foot .share');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${sharing.http}/?room=${room}#/table/${table}?watch`);
    // A second table: the page is in its room already.
    await page.click('a[href="#/"]');
    await createTable(page, 'brix', { seats: 2, bots: true });
    assert.equal(page.sockets.length, 2, 'no second move');
    assert.deepEqual(page.problems, []);
    await page.context().close(); // before its hub stops (it would try to reconnect)
  });
});

describe('the lobby on a phone', () => {
  it('puts "Start a game" first, in words, and opens the table at its top', async () => {
    const page = await open('gil', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const games = await page.$eval('.lobby .games', (el) => el.getBoundingClientRect().top);
    const tables = await page.$eval('.lobby .tables', (el) => el.getBoundingClientRect().top);
    assert.ok(games < tables, 'the create form comes before the table list');
    const text = await page.textContent('.lobby');
    for (const raw of ['symbols_vs_colors', 'move_limit', 'turn_seconds', 'rows_to_end', 'move limit', '{"type"']) assert.ok(!text.includes(raw), `no raw "${raw}" in the lobby`);
    assert.match(text, /symbols against colours/);
    await page.locator('.game-card[data-game="brix"] .howto-open').tap();
    assert.match(await page.textContent('dialog.howto[open]'), /Four in a straight line/);
    await screenshot(page, 'lobby-phone-rules');
    await page.locator('dialog.howto .howto-close').tap();
    await createTable(page, 'nmbr9', { seats: 2, bots: true });
    await page.waitForSelector('.n9-big');
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the table page opens at its top');
    assert.match(await page.textContent('.n9-status'), /tap your board/);
    await screenshot(page, 'table-phone');
    assert.deepEqual(page.problems, []);
  });
});

describe('a game without its own view', () => {
  it('shows the board and the moves in words, chosen in steps', async () => {
    const page = await open('lee');
    const out = await page.evaluate(async () => {
      const { createView } = await import('/ui/games/generic.js');
      const root = document.createElement('div');
      document.body.append(root);
      const acted = [];
      const legal = [{ type: 'place', x: 1, y: 2 }, { type: 'place', x: 1, y: 3 }, { type: 'pass' }];
      const ctx = { seat: 0, seatName: (s) => `seat ${s + 1}`, act: async (a) => (acted.push(a), true), legal: async () => legal };
      const view = createView(root, ctx);
      await view.update({ status: 'playing', to_act: [0], board: { round: 2, open_cards: [3, 4], last_player: null } });
      const buttons = () => [...root.querySelectorAll('button.legal-action')];
      const texts = [buttons().map((b) => b.textContent)];
      buttons().find((b) => b.textContent === 'place').click();
      texts.push(buttons().map((b) => b.textContent));
      buttons().find((b) => b.textContent === '3').click(); // act() records synchronously
      const board = root.querySelector('.generic-board').textContent;
      root.remove();
      return { texts, acted, board };
    });
    assert.deepEqual(out.texts, [['place', 'pass'], ['2', '3']]);
    assert.deepEqual(out.acted, [{ type: 'place', x: 1, y: 3 }]);
    assert.equal(out.board, 'round2open cards3, 4last player—');
    assert.deepEqual(page.problems, []);
  });
});

describe('bot levels', () => {
  it('are offered when the server lists them, and not otherwise', async () => {
    const page = await open('kim');
    const games = await page.evaluate(() => window.tablehub.games.length);
    assert.equal(await page.$$eval('select[name="bot_level"]', (els) => els.length), games, 'the server lists levels for every game');
    await page.evaluate(() => {
      for (const other of window.tablehub.games.filter((g) => g.id !== 'brix')) {
        delete other.bot_levels;
        delete other.default_bot_level;
      }
      const game = window.tablehub.games.find((g) => g.id === 'brix');
      game.bot_levels = [
        { id: 'easy', name: 'Easy', description: 'plays the first legal move' },
        { id: 'fair', name: 'Fair', description: 'looks one move ahead' },
      ];
      game.default_bot_level = 'fair';
      window.tablehub.go('#/');
    });
    const select = page.locator('.new-table[data-game="brix"] select[name="bot_level"]');
    assert.equal(await select.inputValue(), 'fair', 'the default level is chosen');
    assert.deepEqual(await select.locator('option').allTextContents(), ['Easy', 'Fair']);
    assert.equal(await page.$$eval('select[name="bot_level"]', (els) => els.length), 1, 'only where listed');
    assert.deepEqual(page.problems, []);
  });
});

describe('the other games', () => {
  it('wall duel: place bricks by clicking targets, then move one', async () => {
    const page = await open('dora');
    // Four bricks: two placements each, then the move phase.
    await createTable(page, 'brix', { bots: true, options: { bricks: 4, seed: 3 } });
    await page.waitForSelector('.bx-wall');
    for (let placed = 0; placed < 2; placed++) {
      const target = await page.waitForSelector('.bx-target');
      const cell = await target.evaluate((el) => `${el.dataset.x},${el.dataset.y}`);
      const box = await target.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.waitForSelector('.bx-ghost');
      if (placed === 0) await screenshot(page, 'brix-ghost');
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      // Our brick and then the bot's: ours covers the target.
      await page.waitForSelector(`.bx-wall[data-bricks="${2 * placed + 2}"]`);
      const ours = await page.$$eval('.bx-brick[data-by="0"] .bx-cube', (els) => els.map((e) => `${e.dataset.x},${e.dataset.y}`));
      assert.ok(ours.includes(cell), `our brick covers ${cell}: ${ours}`);
    }
    // Move phase: pick a movable brick up, put it back at a marked cell.
    await page.waitForSelector('.bx-info:text-matches("moving bricks")');
    const brick = await page.waitForSelector('.bx-brick.pickable');
    const id = await brick.evaluate((el) => el.dataset.brick);
    await brick.click();
    await page.waitForSelector(`.bx-brick.selected[data-brick="${id}"]`);
    const target = await page.waitForSelector('.bx-target');
    const box = await target.boundingBox();
    const before = await page.evaluate(() => document.querySelector('.bx-info').textContent);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction((b) => document.querySelector('.bx-info').textContent !== b, before);
    const log = await page.$$eval('.event-log li', (els) => els.map((e) => e.textContent));
    assert.ok(log.some((line) => /dora \(you\) moved a brick, now (lying|standing) on (the ground|row \d+)\./.test(line)), log.join('\n'));
    assertReadable(log);
    await screenshot(page, 'brix');
    assert.deepEqual(page.problems, []);
  });

  it('number row: setup insertions, then draw and place a tile', async () => {
    const page = await open('eve');
    await createTable(page, 'completto', { seats: 2, bots: true, options: { seed: 4 } });
    await page.waitForSelector('.cp-mine .cp-row');
    for (let left = 5; left >= 1; left--) {
      await page.waitForSelector('.cp-gap.target');
      const before = await page.$$eval('.cp-mine .cp-slot.up', (els) => els.length);
      // A locator, not an element handle: the bot's own insertions re-render the row
      // while we click, and a locator finds the gap again.
      const gaps = page.locator('.cp-gap.target');
      await gaps.nth(Math.floor((await gaps.count()) / 2)).click(); // spread them out
      await page.waitForFunction((n) => document.querySelectorAll('.cp-mine .cp-slot.up').length === n + 1, before);
    }
    const row = await page.$$eval('.cp-mine .cp-slot', (els) => els.map((e) => e.dataset.n));
    assert.equal(row.length, 22);
    const up = row.filter((n) => n !== '').map(Number);
    assert.equal(up.length, 5);
    assert.deepEqual([...up].sort((x, y) => x - y), up, 'face-up numbers ascend');
    // Play: draw a face-down tile, then place it where it fits (or put it in the pool).
    await page.click('.cp-draw');
    await page.waitForSelector('.cp-mine .cp-slot.target, .cp-discard');
    const next = page.locator('.cp-mine .cp-slot.target, .cp-discard').first();
    await screenshot(page, 'completto-hand');
    const downBefore = await page.$$eval('.cp-mine .cp-slot.down', (els) => els.length);
    const placing = await next.evaluate((el) => el.classList.contains('cp-slot'));
    await next.click();
    await page.waitForFunction(() => !document.querySelector('.cp-hand .cp-discard, .cp-mine .cp-slot.target'));
    if (placing) {
      await page.waitForFunction((n) => document.querySelectorAll('.cp-mine .cp-slot.down').length === n - 1, downBefore);
    }
    const log = await page.$$eval('.event-log li', (els) => els.map((e) => e.textContent));
    assert.ok(log.some((line) => /eve \(you\) took \d+ from the face-down pool/.test(line)), log.join('\n'));
    assertReadable(log);
    await screenshot(page, 'completto');
    assert.deepEqual(page.problems, []);
  });

  it('Termite Towers renders and accepts a die placement', async () => {
    const page = await open('fay');
    await createTable(page, 'termite', { seats: 2, bots: true, options: { turn_seconds: 600 } });
    assert.match(await page.textContent('.deadline:not([hidden])'), /^(9|10) min \d+ s left$/);
    await page.waitForSelector('.tm-cards .tm-slot');
    await page.waitForSelector('.tm-mine button.tm-die');
    const before = await page.$$eval('.tm-mine .tm-die.placed', (els) => els.length);
    await page.click('.tm-mine button.tm-die');
    await page.waitForSelector('.tm-slot.target');
    await page.click('.tm-slot.target:not(.needs-helper)');
    // A space that also takes a helper die asks for one next: "no helper die".
    const placed = await page.waitForFunction((n) => (document.querySelectorAll('.tm-mine .tm-die.placed').length > n ? 'placed' : document.querySelector('.tm-choice.as-it-is') ? 'asked' : false), before);
    if ((await placed.jsonValue()) === 'asked') await page.click('.tm-choice.as-it-is');
    await page.waitForFunction((n) => document.querySelectorAll('.tm-mine .tm-die.placed').length > n, before);
    await screenshot(page, 'termite');
    assert.deepEqual(page.problems, []);
  });
});

/** Slot patterns a solo Termite player cycles through by day (to meet every kind of night). */
const TERMITE_SLOTS = [/^R/, /^D\dc/, /^E/, /^R/, /^A/, /^D\dc/, /^C/, /^G/, /^D\dt/];
const NIGHT_KINDS = ['blueprint', 'egg', 'cube', 'trade', 'trade_take', 'tunnel'];

describe('Termite Towers in steps', () => {
  it('a solo game: dice by clicking, each night choice answered in a few steps', async () => {
    const page = await open('jo');
    const table = await createTable(page, 'termite', { seats: 1, bots: false, options: { seed: 2 } });
    await page.waitForSelector('.tm-cards .tm-slot');
    const seen = new Map(); // night kind -> the questions its answer took
    let day = 0;
    let roomQuestions = 0;
    let columnQuestions = 0;
    for (let step = 0; step < 120 && NIGHT_KINDS.some((k) => !seen.has(k)); step++) {
      const state = await page.evaluate(async (t) => {
        const { client } = window.tablehub;
        const { view, version } = client.tables.get(t);
        return { version, status: view.status, pending: view.board.pending, legal: view.status === 'playing' ? (await client.legal(t)).actions : [] };
      }, table);
      if (state.status !== 'playing') break;
      // Wait until the page shows this version's choices.
      await page.waitForSelector('.tm-mine button.tm-die, .tm-steps .tm-choice');
      if (state.pending && state.pending.kind !== 'bumped') {
        // Night: the stepped chooser -- first real option at every question.
        let questions = 0;
        for (;;) {
          questions += 1;
          const picks = await page.$$eval('.tm-pick', (els) => els.length);
          if ((await page.textContent('.tm-question')) === 'Which room?') {
            // The rooms to choose from are marked on the board too.
            const offered = await page.$$eval('.tm-steps .tm-choice', (els) => els.map((e) => e.textContent));
            const marked = await page.$$eval('.tm-mine .tm-rooms .tm-slot.target[data-room]', (els) => els.map((e) => `room ${Number(e.dataset.room) + 1}`));
            assert.deepEqual(marked, offered);
            roomQuestions += 1;
          }
          if ((await page.textContent('.tm-question')) === 'Which wall column?') {
            // ... and so are the wall columns, above the wall.
            const offered = await page.$$eval('.tm-steps .tm-choice', (els) => els.map((e) => e.textContent));
            const marked = await page.$$eval('.tm-mine .tm-wall-pick', (els) => els.map((e) => `column ${Number(e.dataset.column) + 1}`));
            assert.deepEqual(marked, offered);
            columnQuestions += 1;
            if (columnQuestions === 1) await screenshot(page, 'termite-column');
          }
          await page.click('.tm-steps .tm-choice:not(.pass)');
          const moved = await page.waitForFunction(
            ({ t, v, n }) => window.tablehub.client.tables.get(t).version > v ? 'acted' : document.querySelectorAll('.tm-pick').length > n ? 'next' : false,
            { t: table, v: state.version, n: picks },
          );
          if ((await moved.jsonValue()) === 'acted') break;
        }
        if (!seen.has(state.pending.kind)) {
          seen.set(state.pending.kind, questions);
          if (seen.size === 1) await screenshot(page, 'termite-night');
        }
        continue;
      }
      // Day: a die, then a highlighted space (then its value when it has a choice).
      const places = state.legal.filter((a) => a.type === 'place_die' && a.helper === undefined);
      let action = null;
      for (let k = 0; k < TERMITE_SLOTS.length && !action; k++) {
        const matching = places.filter((a) => TERMITE_SLOTS[(day + k) % TERMITE_SLOTS.length].test(a.slot));
        if (matching.length) action = TERMITE_SLOTS[(day + k) % TERMITE_SLOTS.length].source === '^R' ? matching.at(-1) : matching[0];
      }
      day += 1;
      assert.ok(action, 'a die can be placed');
      await placeOnPage(page, table, state.version, action);
    }
    assert.deepEqual([...seen.keys()].filter((k) => NIGHT_KINDS.includes(k)).sort(), [...NIGHT_KINDS].sort(), `night choices met: ${[...seen.keys()]}`);
    for (const [kind, questions] of seen) assert.ok(questions <= 5, `${kind} took ${questions} questions`);
    assert.ok(roomQuestions > 0, 'a room was chosen on the board');
    assert.ok(columnQuestions > 0, 'a wall column was chosen on the board');
    // Rooms are numbered from 1 everywhere; the prompt is in words, not field syntax.
    assert.deepEqual(await page.$$eval('.tm-mine .tm-rooms small', (els) => els.map((e) => e.textContent)), ['room 1', 'room 2', 'room 3', 'room 4', 'room 5', 'room 6']);
    assertReadable(await logLines(page));
    await screenshot(page, 'termite-solo');
    assert.deepEqual(page.problems, []);
  });
});

/**
 * Place a die by clicking: the die, a highlighted space, then -- when the space also takes
 * a helper die -- "no helper die", or the value the die counts as in a room.
 */
async function placeOnPage(page, table, version, action) {
  await page.click(`.tm-mine button.tm-die[data-die="${action.die}"]`);
  await page.click(`.tm-slot.target[data-slot="${action.slot}"]`);
  const answered = new Set();
  for (;;) {
    const next = await page.waitForFunction(
      ({ t, v, done }) => {
        if (window.tablehub.client.tables.get(t).version > v) return 'acted';
        const asked = document.querySelector('.tm-steps .tm-choice[data-key="helper"], .tm-steps .tm-choice[data-key="value"]')?.dataset.key;
        return asked && !done.includes(asked) ? asked : false;
      },
      { t: table, v: version, done: [...answered] },
    );
    const key = await next.jsonValue();
    if (key === 'acted') return;
    answered.add(key);
    await page.click(key in action ? `.tm-steps .tm-choice[data-key="${key}"][data-value="${action[key]}"]` : `.tm-steps .tm-choice.as-it-is[data-key="${key}"]`);
  }
}

/** The page's view of its seat in a table: {version, board player}. */
const mySide = (page, table) =>
  page.evaluate((t) => {
    const { view, version, seat } = window.tablehub.client.tables.get(t);
    return { version, player: view.board.players[seat] };
  }, table);

/**
 * Make `action` (planned for the pending choice shown) by clicking the page: a bumped die
 * by its die and a highlighted space; a night choice one question at a time, rooms and wall
 * columns on the board.  Resolves with the number of questions asked.
 */
async function answerOnPage(page, table, action) {
  const { version } = await mySide(page, table);
  if (action.type === 'place_die') {
    await placeOnPage(page, table, version, action);
    return 1;
  }
  for (let questions = 1; ; questions++) {
    const key = await page.$eval('.tm-steps .tm-choice', (el) => el.dataset.key);
    const value = action[key] === undefined ? '' : JSON.stringify(action[key]);
    const onBoard = { room: `.tm-mine .tm-rooms .tm-slot.target[data-room="${action.room}"]`, column: `.tm-mine .tm-wall-pick[data-column="${action.column}"]` }[key];
    const picks = await page.$$eval('.tm-pick', (els) => els.length);
    await page.click(onBoard ?? `.tm-steps .tm-choice[data-key="${key}"][data-value='${value}']`);
    const next = await page.waitForFunction(
      ({ t, v, n }) => (window.tablehub.client.tables.get(t).version > v ? 'acted' : document.querySelectorAll('.tm-pick').length > n ? 'next' : false),
      { t: table, v: version, n: picks },
    );
    if ((await next.jsonValue()) === 'acted') return questions;
  }
}

describe('Termite Towers: a day turn asked step by step', () => {
  it('a die, a space, a helper die: a few small staged requests, never the full legal list', async () => {
    const page = await open('vic');
    await page.evaluate(() => {
      const { client } = window.tablehub;
      const request = client.request.bind(client);
      window.sentLegal = []; // every `legal` request the page makes: staged (with `partial`) or full
      client.request = (kind, fields) => {
        if (kind === 'legal') window.sentLegal.push(fields.partial ?? null);
        return request(kind, fields);
      };
    });
    const table = await createTable(page, 'termite', { seats: 2, bots: true, options: { turn_seconds: 600, seed: 7 } });
    await page.waitForSelector('.tm-mine button.tm-die');
    const die = Number(await page.$eval('.tm-mine button.tm-die', (el) => el.dataset.die));
    await page.click(`.tm-mine button.tm-die[data-die="${die}"]`);
    await page.waitForSelector('.tm-slot.target');
    const targets = await page.$$eval('.tm-slot.target', (els) => els.map((el) => el.dataset.slot));
    // A space the die fits as rolled that also takes a helper die (asked as the page asks).
    const slot = await page.evaluate(async ({ t, d, slots }) => {
      for (const s of slots) {
        const step = await window.tablehub.client.legalStep(t, { type: 'place_die', die: d, slot: s });
        if (step.field === 'helper' && step.complete && step.choices.length) return s;
      }
      return null;
    }, { t: table, d: die, slots: targets });
    assert.ok(slot, `a space of ${targets.join(' ')} takes a helper die`);
    const { version } = await mySide(page, table);
    await page.click(`.tm-slot.target[data-slot="${slot}"]`);
    await page.waitForSelector('.tm-steps .tm-choice[data-key="helper"]:not(.as-it-is)');
    assert.match(await page.textContent('.tm-question'), /^A helper die\? One of your other dice sits out this round/);
    assert.equal(await page.textContent('.tm-choice.as-it-is'), 'no helper die');
    const helper = JSON.parse(await page.$eval('.tm-steps .tm-choice[data-key="helper"]:not(.as-it-is)', (el) => el.dataset.value));
    await screenshot(page, 'termite-helper');
    await page.click('.tm-steps .tm-choice[data-key="helper"]:not(.as-it-is)');
    const next = await page.waitForFunction(
      ({ t, v }) => (window.tablehub.client.tables.get(t).version > v ? 'acted' : document.querySelector('.tm-steps .tm-choice[data-key="value"]') ? 'value' : false),
      { t: table, v: version },
    );
    if ((await next.jsonValue()) === 'value') {
      assert.equal(await page.textContent('.tm-question'), 'Which value?');
      assert.match(await page.textContent('.tm-pick'), new RegExp(`^die ${helper + 1} \\(`), 'the helper chosen is shown');
      await page.click('.tm-steps .tm-choice[data-key="value"]');
      await page.waitForFunction(({ t, v }) => window.tablehub.client.tables.get(t).version > v, { t: table, v: version });
    }
    const after = await mySide(page, table);
    assert.equal(after.player.dice[die].at, slot);
    const log = await logLines(page);
    assert.ok(log.some((line) => line.startsWith('vic (you) put a ') && line.endsWith(' with a helper die.')), log.join('\n'));
    const sent = await page.evaluate(() => window.sentLegal);
    assert.ok(sent.length >= 4, `staged requests: ${JSON.stringify(sent)}`);
    assert.ok(sent.every((partial) => partial !== null), `the full legal list was asked for: ${JSON.stringify(sent)}`);
    assert.deepEqual(page.problems, []);
  });
});

describe('Termite Towers: the rarer choices', () => {
  it('a bumped die, moving cubes, building and a wall-row bonus, each answered on the page', async () => {
    const path = termitePath(2, ['bumped', 'move', 'build', 'bonus']);
    const answers = new Map(Object.entries(path.met).map(([kind, index]) => [index, kind]));
    const page = await open('uma');
    const table = await createTable(page, 'termite', { seats: 1, bots: false, options: { seed: path.seed } });
    await page.waitForSelector('.tm-cards .tm-slot');
    for (const [index, action] of path.actions.entries()) {
      const kind = answers.get(index);
      if (!kind) {
        // The way there: played through the page's own client, not clicked.
        await page.evaluate(async ({ t, a }) => {
          const { client } = window.tablehub;
          const version = await client.act(t, a);
          await client.waitFor(t, (m) => m.version >= version);
        }, { t: table, a: action });
        continue;
      }
      await page.waitForSelector(`.tm-prompt.mine[data-kind="${kind}"]`);
      const prompt = await page.textContent('.tm-prompt.mine');
      const before = await mySide(page, table);
      await screenshot(page, `termite-${kind}`);
      const questions = await answerOnPage(page, table, action);
      assert.ok(questions <= 5, `${kind} took ${questions} questions`);
      const after = await mySide(page, table);
      const log = await logLines(page);
      const cubesIn = (player, rooms) => rooms.map((r) => player.rooms[r].cubes.join(' '));
      const wallCubes = (player) => player.wall.join('').replaceAll('.', '').length;
      switch (kind) {
        case 'bumped':
          assert.match(prompt, /^uma \(you\): die \d+ was pushed off its space: place it again now\.$/);
          assert.equal(after.player.dice[action.die].at, action.slot);
          assert.ok(log.some((line) => /^uma \(you\)'s die was pushed off card [ACEG], space \d\.$/.test(line)), log.join('\n'));
          break;
        case 'move':
          assert.match(prompt, /^uma \(you\): move cubes between two of your rooms holding dice that show \d — or pass\.$/);
          assert.equal(cubesIn(after.player, action.rooms)[0], action.cubes.join(' '));
          assert.notDeepEqual(cubesIn(after.player, action.rooms), cubesIn(before.player, action.rooms));
          assert.ok(log.includes(`uma (you) moved cubes between rooms ${action.rooms.map((r) => r + 1).join(' and ')}.`), log.join('\n'));
          break;
        case 'build':
          assert.equal(wallCubes(after.player), wallCubes(before.player) + 4);
          assert.deepEqual(after.player.built, [...before.player.built, action.blueprint]);
          assert.ok(log.includes(`uma (you) built the ${action.blueprint.replace('-', ' ')} blueprint into the wall.`), log.join('\n'));
          break;
        case 'bonus':
          assert.match(prompt, /^uma \(you\): a wall row is complete: choose a bonus\.$/);
          assert.deepEqual(after.player.bonus, [...before.player.bonus, action.space]);
          assert.ok(log.some((line) => /^uma \(you\) completed wall rows? [\d and]+: a bonus to choose for each\.$/.test(line)), log.join('\n'));
          assert.ok(log.some((line) => line.startsWith('uma (you) chose the bonus: ')), log.join('\n'));
          break;
        default:
          assert.fail(`unexpected kind ${kind}`);
      }
    }
    assertReadable(await logLines(page));

    // Resigning ends the solo game on the score broken down: its parts add up to it.
    const { player } = await mySide(page, table);
    page.once('dialog', (dialog) => dialog.accept());
    await page.click('button.resign');
    await page.waitForSelector('.end-screen:not([hidden]) .end-table');
    assert.equal(await page.textContent('.end-screen h2'), 'Game over — Nobody wins');
    assert.equal(await page.textContent('.end-reason'), 'Ended by resignation.');
    const head = await page.$$eval('.end-table thead th', (ths) => ths.map((th) => th.textContent));
    assert.deepEqual(head, ['Place', 'Player', 'blueprints', 'goal cards', 'bonus spaces', 'Score', 'wall rows', 'wall cubes', 'dice']);
    const [row] = await page.$$eval('.end-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    const [blueprints, goals, bonus, score, rows, cubes, dice] = row.slice(2).map(Number);
    const SHAPE_POINTS = { O: 2, I: 3, L: 3, J: 3, T: 4, S: 5, Z: 5 }; // docs/games/termite.md
    assert.equal(blueprints, player.built.reduce((sum, card) => sum + SHAPE_POINTS[card.split('-')[1]], 0));
    assert.ok(blueprints > 0, 'a blueprint was built');
    assert.equal(bonus, path.actions[path.met.bonus].space === 'points' ? 2 : 0, 'the +2 bonus space, when chosen');
    assert.ok([0, 2, 4].includes(goals), `goal cards give 2 each: ${goals}`);
    assert.equal(blueprints + goals + bonus, score);
    assert.equal(score, player.score);
    assert.deepEqual([rows, cubes, dice], [player.rows, player.wall.join('').replaceAll('.', '').length, player.dice.length]);
    await screenshot(page, 'termite-end');
    assert.deepEqual(page.problems, []);
  });
});

describe('a server that restarts without its tables', () => {
  it('the table page says the table is gone, instead of waiting forever', async () => {
    const own = await startHub();
    let again = null;
    try {
      const page = await openUi(run.browser, own, 'max');
      pages.push(page);
      await createTable(page, 'nmbr9', { seats: 2, bots: true });
      await page.waitForSelector('.n9-big');
      await own.stop(); // a memory:// hub forgets every table
      again = await startHub({ port: own.port });
      await page.waitForSelector('.closed-table', { timeout: 20000 });
      assert.equal(await page.textContent('.closed-table h3'), 'This table is gone');
      assert.equal(await page.evaluate(() => Object.keys(window.tablehub.seats.all()).length), 0, 'its seat is forgotten');
      await screenshot(page, 'table-gone');
      // Chromium itself logs each refused reconnect while the hub is down: expected here.
      const refused = /^console error: WebSocket connection to '\S+' failed: Error in connection establishment: net::ERR_CONNECTION_REFUSED$/;
      assert.deepEqual(page.problems.filter((p) => !refused.test(p)), []);
      page.problems.length = 0;
    } finally {
      await again?.stop();
      await own.stop();
    }
  });
});

describe('no page errors', () => {
  it('logged no script errors in any page', () => {
    for (const page of pages) assert.deepEqual(page.problems, []);
  });
});
