// The replay screen (issue 29) in a real headless Chromium against a real hub: a
// number-row game played to its end by two server bots is replayed from the address
// /?replay=TABLE at desktop width and from the lobby's "Recent finished games" at phone
// width: first, back, forward, last, jump to a round, the view of each seat and of the
// spectators, a narrated line per move in plain words, and the game record downloaded
// and checked with `tablehub replay --verify`; the all-seeing view of the finished game
// (every face-down tile listed per seat).  Any console warning or error fails the run.
// Screenshots go to artifacts/screenshots/ (replay-desktop.png, replay-phone.png,
// replay-all-seeing.png).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import WebSocket from 'ws';

import { Client, loadProtocol } from '../lib/index.js';
import { hubAndBrowser, openUi, screenshot } from '../testing/browser.js';
import { readProtocolFile, tablehubBin, until } from '../testing/hub.js';

const run = hubAndBrowser();
let table;
let newest;

/** A table of two server bots, played to its end: its id. */
async function botGame() {
  const client = await Client.connect(run.hub.ws, { name: 'organiser', protocol: await loadProtocol(readProtocolFile), WebSocket });
  try {
    const id = await client.createTable('completto', 2, { seed: 11 });
    await client.addBot(id, { level: 'easy' });
    await client.addBot(id, { level: 'easy' });
    await client.spectate(id);
    await client.waitFor(id, (m) => m.view?.status === 'finished', 60000);
    newest = client.tables.get(id).version;
    return id;
  } finally {
    client.close();
  }
}

const position = (page) => page.locator('.replay-position').textContent();
const line = (page) => page.locator('.replay-line').textContent();

/** Plain words only: no braces, no null/undefined, no internal field names. */
function assertPlain(text) {
  assert.doesNotMatch(text, /[{}[\]]|\bnull\b|\bundefined\b|\bNaN\b|_/, text);
}

/** A fresh page at `path` (a replay link), past the name form; problems collected as openUi does. */
async function openLink(path, contextOptions) {
  const context = await run.browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.problems = [];
  page.on('pageerror', (err) => page.problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => ['error', 'warning'].includes(msg.type()) && page.problems.push(`console ${msg.type()}: ${msg.text()}`));
  await page.goto(`${run.hub.http}${path}`);
  await page.fill('#name-input', 'ria');
  await page.click('#name-go');
  await page.waitForSelector('#conn[data-state="open"]');
  return page;
}

async function opened(page) {
  await page.waitForSelector('.replay-page .game-root > *');
  await until(async () => (await position(page)).startsWith('move '), 10000, 'the replay to load');
}

describe('replay screen', () => {
  before(async () => {
    table = await botGame(); // inside the suite: after the hub is up
  });

  it('steps through a finished game from /?replay=TABLE at desktop width and downloads a record that verifies', async () => {
    const page = await openLink(`/?replay=${table}`, { acceptDownloads: true });
    await opened(page);
    assert.match(await page.locator('.replay-page h2').textContent(), /Replay: Number row/i);
    const start = await position(page);
    assert.match(start, /^move \d+ of \d+$/);
    assert.equal(Number(start.split(' ').at(-1)), newest);

    await page.click('.replay-first');
    assert.equal(await position(page), `move 0 of ${newest}`);
    assert.ok(await page.locator('.replay-back').isDisabled());
    await page.click('.replay-forward');
    assert.equal(await position(page), `move 1 of ${newest}`);
    assert.match(await line(page), /bot took seat 1/i);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await position(page), `move 3 of ${newest}`);
    const lines = [];
    for (let i = 0; i < 6; i++) {
      await page.click('.replay-forward');
      const said = await line(page);
      assert.ok(said.trim().length > 3, 'every move has a line');
      assertPlain(said);
      lines.push(said);
    }
    await page.click('.replay-back');
    assert.equal(await position(page), `move 8 of ${newest}`);
    assert.equal(await line(page), lines.at(-2));

    const rounds = await page.locator('.replay-round option:not([disabled])').count();
    assert.ok(rounds >= 3, `${rounds} rounds to jump to`);
    const third = await page.locator('.replay-round option:not([disabled])').nth(2).getAttribute('value');
    await page.selectOption('.replay-round', third);
    assert.equal(await position(page), `move ${third} of ${newest}`);

    // every seat's view and the spectators' may be chosen once the game is over
    const options = await page.locator('.replay-seat option').evaluateAll((os) => os.map((o) => ({ value: o.value, disabled: o.disabled })));
    assert.deepEqual(options.map((o) => o.value), ['spectators', '0', '1']);
    assert.ok(options.every((o) => !o.disabled));
    await page.selectOption('.replay-seat', '1');
    await until(async () => (await position(page)) === `move ${third} of ${newest}` && !(await line(page)).startsWith('Loading'), 10000, 'the seat view');
    await page.click('.replay-last');
    assert.equal(await position(page), `move ${newest} of ${newest}`);
    assert.ok(await page.locator('.replay-forward').isDisabled());
    assertPlain(await page.locator('.replay-log').textContent());

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('.replay-download')]);
    const file = await download.path();
    const { stdout } = await promisify(execFile)(tablehubBin(), ['replay', '--verify', file]);
    assert.match(stdout, /The record is genuine\./);
    await screenshot(page, 'replay-desktop');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('shows a finished game all-seeing: every face-down tile, named per seat, beside the seat choice', async () => {
    const page = await openLink(`/?replay=${table}`);
    await opened(page);
    assert.ok(await page.locator('.replay-hidden').isHidden(), 'a seat or spectator view shows nothing hidden');
    assert.equal((await page.locator('.replay-pick span').first().textContent()).trim(), 'Jump to turn');
    const turns = await page.locator('.replay-round option:not([disabled])').allTextContents();
    assert.deepEqual(turns.slice(0, 3), ['Turn 1', 'Turn 2', 'Turn 3']);
    await page.check('.replay-all-seeing');
    await page.locator('.replay-hidden').waitFor();
    assert.ok(await page.locator('.replay-seat').isDisabled());
    await page.selectOption('.replay-round', await page.locator('.replay-round option:not([disabled])').nth(1).getAttribute('value'));
    const hiddenText = await page.locator('.replay-hidden').textContent();
    assert.match(hiddenText, /Hidden from the players at this move/);
    assert.match(hiddenText, /face-down tiles: position \d+ holds \d+/);
    assert.match(hiddenText, /Face-down tiles in the pool: \d+/);
    assertPlain(hiddenText.replace(/face-down/gi, 'facedown'));
    await page.click('.replay-last');
    await screenshot(page, 'replay-all-seeing');
    await page.uncheck('.replay-all-seeing');
    await page.locator('.replay-hidden').waitFor({ state: 'hidden' });
    assert.ok(!(await page.locator('.replay-seat').isDisabled()));
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('opens from the lobby’s recent finished games at phone width and fits the screen', async () => {
    const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
    const page = await openUi(run.browser, run.hub, 'pia', phone);
    const row = page.locator(`.recent-row[data-table="${table}"]`);
    await row.waitFor();
    assertPlain(await row.locator('.recent-result').textContent());
    assert.match(await row.locator('.recent-result').textContent(), /won|nobody won/);
    await row.locator('.replay-link').tap();
    await opened(page);
    await page.locator('.replay-first').tap();
    for (let i = 0; i < 5; i++) await page.locator('.replay-forward').tap();
    assert.equal(await position(page), `move 5 of ${newest}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    const controls = await page.locator('.replay-controls').boundingBox();
    assert.ok(controls.x >= 0 && controls.x + controls.width <= 390, JSON.stringify(controls));
    await page.locator('.replay-last').tap();
    await screenshot(page, 'replay-phone');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
