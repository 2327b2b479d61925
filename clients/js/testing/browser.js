// Test support: the system Chromium (Debian's /usr/bin/chromium, never a downloaded
// browser) driven by playwright-core, and small page helpers for the UI tests.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

import { REPO_ROOT, startHub } from './hub.js';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(REPO_ROOT, 'artifacts', 'screenshots');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launch(extraArgs = []) {
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs] });
}

/**
 * A hub and a Chromium for the tests of one file: both started before its first test,
 * both stopped after its last.  Read `.hub` and `.browser` inside the tests (they are
 * set once the `before` hook has run).
 */
export function hubAndBrowser() {
  const run = { hub: null, browser: null };
  before(async () => {
    [run.hub, run.browser] = await Promise.all([startHub(), launch()]);
  });
  after(async () => {
    await run.browser?.close();
    await run.hub?.stop();
  });
  return run;
}

export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0)); // the sticky header belongs at the top
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * A fresh browser context (own localStorage) on the hub's UI, past the name form.
 * Page errors and console errors and warnings are collected in page.problems (the tests
 * fail on any).
 */
export async function openUi(browser, hub, name, contextOptions = {}, path = '/') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.problems = [];
  page.sockets = [];
  page.on('pageerror', (err) => page.problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => ['error', 'warning'].includes(msg.type()) && page.problems.push(`console ${msg.type()}: ${msg.text()}`));
  page.on('websocket', (ws) => page.sockets.push(ws.url()));
  await page.goto(`${hub.http}${path}`);
  await page.fill('#name-input', name);
  await page.click('#name-go');
  await page.waitForSelector('.lobby .game-card');
  await page.waitForSelector('#conn[data-state="open"]');
  return page;
}

/** Screen point of the centre of cell (x, y) of an SVG board (cells are user units). */
export function cellPoint(page, svgSelector, x, y) {
  return page.evaluate(
    ({ sel, x, y }) => {
      const el = document.querySelector(sel);
      el.scrollIntoView({ block: 'center' });
      const p = new DOMPoint(x + 0.5, y + 0.5).matrixTransform(el.getScreenCTM());
      return { x: p.x, y: p.y };
    },
    { sel: svgSelector, x, y },
  );
}

/** The table id of the table page shown. */
export function tableId(page) {
  return page.evaluate(() => document.querySelector('.table-page')?.dataset.table);
}
