// The UI as a player on the internet gets it: `tablehub cluster` (redis-server with a
// password, two hubs, nginx terminating TLS with a throwaway certificate) opened at the
// https address the command prints last.  Chromium trusts that one certificate (its key
// pinned with --ignore-certificate-errors-spki-list; any other error still fails), the
// pages come with the hub's Content-Security-Policy (no inline script or style) and
// nginx's Strict-Transport-Security, and a whole 9-tower game against a bot is played
// by clicking, over wss:// through nginx, with no console error or warning (a blocked
// script, style or socket would be one).
// A page of another origin cannot open the game socket.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import { cellPoint, launch, openUi, screenshot, tableId } from '../testing/browser.js';
import { REPO_ROOT, tablehubBin } from '../testing/hub.js';
import { shapeSize } from '../ui/games/nmbr9-rules.js';

let cluster;
let browser;

/** `tablehub cluster --hubs 2` until it prints "Ctrl-C": {page, cert, lines, stop}. */
function startCluster() {
  const proc = spawn(tablehubBin(), ['cluster', '--hubs', '2'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
    return err;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tablehub cluster did not start:\n${out}\n${err}`)), 60000);
    proc.once('exit', () => reject(new Error(`tablehub cluster stopped:\n${out}\n${err}`)));
    proc.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('Ctrl-C')) return;
      clearTimeout(timer);
      const lines = out.split('\n');
      const page = lines.find((l) => l.includes('Open this in your browser')).trim().split(/\s+/).at(-1);
      const cert = out.match(/certificate \(throwaway, self-signed\): (\S+)/)[1];
      resolve({ page, cert, lines, stop });
    });
  });
}

/** base64(sha256(SubjectPublicKeyInfo)): what Chromium's SPKI list names a key by. */
function spkiHash(certFile) {
  const key = new X509Certificate(readFileSync(certFile)).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(key).digest('base64');
}

before(async () => {
  cluster = await startCluster();
  browser = await launch([`--ignore-certificate-errors-spki-list=${spkiHash(cluster.cert)}`]);
});

after(async () => {
  await browser?.close();
  const errors = (await cluster?.stop()) ?? '';
  assert.doesNotMatch(errors, /\[(alert|emerg)\]|Traceback/, errors);
});

const roundIs = (page, round) =>
  page.waitForFunction((r) => document.querySelector('.n9-round-line')?.textContent.startsWith(`Round ${r} `), round);

/** Place the current tile by clicking: point at a legal placement, rotate to it, click again. */
async function place(page, table) {
  const { actions, digit } = await page.evaluate(async (t) => {
    const { client } = window.tablehub;
    return { actions: (await client.legal(t)).actions, digit: client.tables.get(t).view.board.card };
  }, table);
  const target = actions[Math.floor(actions.length / 2)];
  const { w, h } = shapeSize(digit, target.rot);
  const centre = { x: target.x + Math.floor((w - 1) / 2), y: target.y + Math.floor((h - 1) / 2) };
  const point = await cellPoint(page, '.n9-big', centre.x, centre.y);
  await page.mouse.move(point.x, point.y);
  await page.waitForSelector('.n9-ghost:not(.pinned)');
  await page.mouse.click(point.x, point.y);
  await page.waitForSelector('.n9-ghost.pinned');
  for (let i = 0; i < 4 && Number(await page.$eval('.n9-ghost', (g) => g.dataset.rot)) !== target.rot; i++) {
    await page.keyboard.press('e');
  }
  assert.match(await page.$eval('.n9-ghost', (g) => g.getAttribute('class')), /legal/);
  const version = await page.evaluate((t) => window.tablehub.client.tables.get(t).version, table);
  const again = await cellPoint(page, '.n9-big', centre.x, centre.y);
  await page.mouse.click(again.x, again.y);
  await page.waitForFunction(({ t, v }) => window.tablehub.client.tables.get(t).version > v, { t: table, v: version });
}

describe('over TLS behind nginx (tablehub cluster)', () => {
  it('prints the https address to open last, and a whole game is played there over wss://', async () => {
    assert.match(cluster.page, /^https:\/\/127\.0\.0\.1:\d+\/$/);
    const hub = { http: cluster.page.replace(/\/$/, '') };
    const page = await openUi(browser, hub, 'tess');
    // fetched again, not taken from Chromium's cache (which keeps no Strict-Transport-Security)
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const response = await page.goto(cluster.page);
    const headers = response.headers();
    assert.match(headers['content-security-policy'], /script-src 'self'/);
    assert.doesNotMatch(headers['content-security-policy'], /unsafe-inline/);
    assert.equal(headers['x-content-type-options'], 'nosniff');
    assert.equal(headers['referrer-policy'], 'no-referrer');
    assert.equal(headers['strict-transport-security'], 'max-age=31536000'); // nginx: https only from now on
    await page.waitForSelector('#conn[data-state="open"]');

    const form = page.locator('.new-table[data-game="nmbr9"]');
    await form.locator('input[name="bots"]').setChecked(true);
    await form.locator('button[type="submit"]').click();
    await page.waitForSelector('.table-page');
    const table = await tableId(page);
    for (let round = 1; round <= 20; round++) {
      await roundIs(page, round);
      await place(page, table);
    }
    await page.waitForSelector('.end-screen:not([hidden]) .end-table');
    assert.match(await page.textContent('.end-screen h2'), /^Game over — /);
    const rows = await page.$$eval('.end-table tbody tr', (trs) => trs.map((tr) => tr.lastElementChild.textContent));
    assert.deepEqual(rows, ['20', '20'], 'twenty tiles each');
    await screenshot(page, 'tls-game-end');

    assert.ok(page.url().startsWith(cluster.page), page.url()); // a room of its own: ?room=…
    assert.ok(page.sockets.length >= 1);
    for (const url of page.sockets) assert.match(url, new RegExp(`^wss://127\\.0\\.0\\.1:${new URL(cluster.page).port}/ws`));
    assert.deepEqual(page.problems, []);
  });

  it('a page of another origin cannot open the game socket', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto('about:blank');
    const outcome = await page.evaluate(
      (url) =>
        new Promise((resolve) => {
          const ws = new WebSocket(url, ['tablehub.v1.json']);
          ws.onopen = () => resolve('open');
          ws.onerror = () => resolve('refused');
        }),
      cluster.page.replace('https:', 'wss:') + 'ws',
    );
    assert.equal(outcome, 'refused');
    await context.close();
  });
});
