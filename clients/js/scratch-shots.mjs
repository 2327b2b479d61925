// Scratch (not committed): before/after screenshots. TABLEHUB_BIN picks the hub (and its UI).
import { mkdirSync } from 'node:fs';
import { launch } from './testing/browser.js';
import { startHub } from './testing/hub.js';
const out = process.argv[2];
mkdirSync(out, { recursive: true });
const [hub, browser] = await Promise.all([startHub(), launch()]);

async function page(name, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 820 }, ...opts });
  const p = await context.newPage();
  p.setDefaultTimeout(20000);
  p.on('dialog', (d) => d.accept());
  await p.goto(`${hub.http}/`);
  await p.fill('#name-input', name);
  await p.click('#name-go');
  await p.waitForSelector('.lobby .game-card');
  await p.waitForTimeout(500);
  return p;
}

async function create(p, game, seats, seed) {
  const form = p.locator(`.new-table[data-game="${game}"]`);
  await form.locator('select[name="seats"]').selectOption(String(seats));
  const adv = form.locator('details.advanced summary');
  if (await adv.count()) await adv.click();
  await form.locator('[name="seed"]').fill(String(seed)).catch(() => {});
  await form.locator('button[type="submit"]').click();
  await p.waitForSelector('.table-page');
  await p.waitForTimeout(800);
  return p.evaluate(() => document.querySelector('.table-page')?.dataset.table ?? location.hash.split('/').pop());
}

/** Act legal actions (first non-resign, or `pick`) `n` times or to the end. */
async function play(p, table, n, pick = 0) {
  for (let i = 0; i < n; i++) {
    const done = await p.evaluate(async ({ t, pick }) => {
      const { client } = window.tablehub;
      const m = client.tables.get(t);
      if (!m || m.view.status === 'finished') return true;
      let actions = [];
      try { actions = (await client.legal(t)).actions.filter((x) => x.type !== 'resign'); } catch { return false; }
      if (actions.length) { try { await client.act(t, actions[Math.min(pick, actions.length - 1)]); } catch {} }
      await new Promise((r) => setTimeout(r, 60));
      return false;
    }, { t: table, pick });
    if (done) return;
  }
}

try {
  // Tables in the lobby list, then the phone lobby.
  const host = await page('host');
  for (const g of ['nmbr9', 'brix', 'completto', 'termite', 'nmbr9']) {
    await create(host, g, 2, 1);
    await host.goto(`${hub.http}/`);
    await host.waitForSelector('.lobby .game-card');
  }
  const phone = await page('pia', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await phone.waitForTimeout(1000);
  await phone.screenshot({ path: `${out}/lobby-phone.png` });

  // Termite: a few day placements in a 2-player game with a bot.
  const tm = await page('tom');
  const tmTable = await create(tm, 'termite', 2, 3);
  await tm.evaluate((t) => window.tablehub.client.addBot(t).catch(() => {}), tmTable);
  await tm.waitForTimeout(1000);
  await play(tm, tmTable, 4);
  await tm.waitForTimeout(1000);
  await tm.screenshot({ path: `${out}/termite-table.png` });
  for (let i = 0; i < 80; i++) {
    const night = await tm.evaluate((t) => {
      const b = window.tablehub.client.tables.get(t).view.board;
      return b.phase === 'night' && b.pending?.seat === 0 && !['blueprint'].includes(b.pending.kind);
    }, tmTable);
    if (night) break;
    await play(tm, tmTable, 1);
  }
  await tm.waitForTimeout(1500);
  await tm.evaluate(() => { document.querySelector('.tm-info, .tm-turn, .tm-prompt')?.scrollIntoView(); window.scrollBy(0, -70); });
  await tm.screenshot({ path: `${out}/termite-night.png` });

  // 9-tower against a bot to the end: the log and the end.
  const n9 = await page('nia');
  const n9Table = await create(n9, 'nmbr9', 2, 11);
  await n9.evaluate((t) => window.tablehub.client.addBot(t).catch(() => {}), n9Table);
  await n9.waitForTimeout(1000);
  await play(n9, n9Table, 400, 5);
  await n9.waitForTimeout(1500);
  const box = await n9.evaluate(() => {
    const d = [...document.querySelectorAll('details')].find((x) => /log/i.test(x.querySelector('summary')?.textContent ?? ''));
    d.open = true;
    d.scrollIntoView();
    const r = d.getBoundingClientRect();
    return { x: r.x, y: r.y, width: Math.min(r.width, 900), height: Math.min(r.height, 330) };
  });
  await n9.screenshot({ path: `${out}/nmbr9-log.png`, clip: box });
  const end = await n9.$('.end-screen:not([hidden])');
  if (end) await end.screenshot({ path: `${out}/nmbr9-end.png` });
  else await n9.screenshot({ path: `${out}/nmbr9-end.png` });
} finally {
  await browser.close();
  await hub.stop();
}
