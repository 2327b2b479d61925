// "How to play" and the Termite Towers table in words, in a real headless Chromium
// against a real hub: every game's panel opens from the lobby with the server's own
// text (list_games howto), the termite panel opens from the table page too; on a
// termite table the action cards say what they do, the white stake and blueprints are
// outlined, a picked die's dashed spaces are explained, the helper choices show each
// die's number and value, and a space where the die would do nothing tonight says so
// before the die is placed -- at desktop and phone size.  Screenshots go to
// artifacts/screenshots/ (howto-*, termite-dead-move-*).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { hubAndBrowser, openUi, screenshot } from '../testing/browser.js';

/** Seed 3: a solo game whose face-up blueprints include white ones. */
const SEED = 3;
const OUTLINE = 'rgb(111, 103, 92)';
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

const run = hubAndBrowser();


async function createSoloTermite(page) {
  const form = page.locator('.new-table[data-game="termite"]');
  await form.locator('select[name="seats"]').selectOption('1');
  await form.locator('details.advanced summary').click();
  await form.locator('[name="seed"]').fill(String(SEED));
  await form.locator('input[name="bots"]').setChecked(false);
  await form.locator('button[type="submit"]').click();
  await page.waitForSelector('.tm-board.me button.tm-die');
}

/** The open panel's title, section titles and paragraphs. */
function panelText(page) {
  return page.$eval('dialog.howto[open]', (d) => ({
    title: d.querySelector('h2').textContent,
    sections: [...d.querySelectorAll('.howto-section')].map((s) => ({
      title: s.querySelector('h3').textContent,
      paragraphs: [...s.querySelectorAll('p')].map((p) => p.textContent),
    })),
  }));
}

const served = (page, id) => page.evaluate((g) => window.tablehub.gameInfo(g), id);

describe('How to play', () => {
  it('opens from the lobby for every game with the text the server gives', async () => {
    const page = await openUi(run.browser, run.hub, 'ada');
    const games = await page.evaluate(() => window.tablehub.games.map((g) => g.id));
    assert.deepEqual([...games].sort(), ['brix', 'completto', 'nmbr9', 'termite']);
    for (const id of games) {
      const game = await served(page, id);
      assert.ok(game.howto.length >= 3, `${id} has a how-to`);
      await page.click(`.game-card[data-game="${id}"] .howto-open`);
      const shown = await panelText(page);
      assert.equal(shown.title, `How to play ${game.name}`);
      assert.deepEqual(shown.sections, game.howto);
      if (id === 'termite') await screenshot(page, 'howto-termite-lobby');
      await page.click('dialog.howto .howto-close');
      await page.waitForSelector('dialog.howto:not([open])', { state: 'attached' });
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('opens from a termite table, and the table reads in words at desktop size', async () => {
    const page = await openUi(run.browser, run.hub, 'bea');
    await createSoloTermite(page);
    await page.click('.table-head .howto-open');
    const shown = await panelText(page);
    assert.equal(shown.title, 'How to play Termite Towers');
    assert.deepEqual(
      shown.sections.map((s) => s.title),
      ['The aim', 'Set-up', 'A day', 'The night', 'Scoring', 'How it ends'],
    );
    assert.deepEqual(shown.sections, (await served(page, 'termite')).howto);
    assert.match(shown.sections[1].paragraphs.join(' '), /Each stake starts with 6 cubes/);
    await screenshot(page, 'howto-termite-desktop');
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog.howto:not([open])', { state: 'attached' });

    // Action cards say what they do (issue 30, point 9), as the terminal does.
    const names = await page.$$eval('.tm-card', (cards) => Object.fromEntries(cards.map((c) => [c.dataset.card, c.querySelector('.tm-card-name small').textContent])));
    assert.deepEqual(names, { A: 'blueprint', C: 'egg', E: 'trade', G: 'queen card' });

    // White wood is outlined on the white cards: the stake and the white blueprints.
    const stake = await page.$eval('.tm-stake[data-colour="white"]', (el) => getComputedStyle(el).boxShadow);
    assert.ok(stake.includes(OUTLINE), stake);
    const cells = await page.$$eval('.tm-common .tm-bp[data-card^="white"] i', (els) => els.map((el) => getComputedStyle(el).boxShadow));
    assert.ok(cells.length >= 4, 'seed 3 shows white blueprints face up');
    for (const shadow of cells) assert.ok(shadow.includes(OUTLINE), shadow);

    await deadMoveWarning(page, { tap: false });
    await screenshot(page, 'termite-dead-move-desktop');
    await helperChoices(page);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('works on a phone: the panel from the lobby and the warning on the table', async () => {
    const page = await openUi(run.browser, run.hub, 'cid', PHONE);
    await page.locator('.game-card[data-game="termite"] .howto-open').tap();
    const shown = await panelText(page);
    assert.deepEqual(shown.sections, (await served(page, 'termite')).howto);
    const box = await page.$eval('dialog.howto[open]', (d) => d.getBoundingClientRect().toJSON());
    assert.ok(box.left >= 0 && box.right <= 390, `the panel fits the phone: ${JSON.stringify(box)}`);
    await screenshot(page, 'howto-termite-phone');
    await page.locator('dialog.howto .howto-close').tap();
    await createSoloTermite(page);
    await deadMoveWarning(page, { tap: true });
    await screenshot(page, 'termite-dead-move-phone');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});

/**
 * Pick a die: the spaces it can go to light up; on the first day no stake card is face
 * up, so every E space it reaches says it does nothing tonight -- before anything is
 * placed -- and the dashed (helper) spaces are explained.
 */
async function deadMoveWarning(page, { tap }) {
  const die = page.locator('.tm-board.me button.tm-die').first();
  if (tap) await die.tap();
  else await die.click();
  await page.waitForSelector('button.tm-slot.target');
  const warned = await page.$$eval('button.tm-slot.target[data-slot^="E"]', (els) => els.map((el) => ({ idle: el.classList.contains('idle'), text: el.textContent, title: el.title })));
  assert.ok(warned.length, 'the die reaches an E space');
  for (const slot of warned) {
    assert.ok(slot.idle, JSON.stringify(slot));
    assert.match(slot.text, /✗ nothing tonight/);
    assert.match(slot.title, /does nothing tonight: no face-up stake card has a cube to trade for/);
  }
  const said = await page.textContent('.tm-idle-note');
  assert.match(said, /Does nothing tonight:.*card E, spaces? [1-6](, [1-6])* — no face-up stake card has a cube to trade for\./);
  const note = await page.textContent('.tm-helper-note');
  assert.match(note, /Dashed spaces take this die only with a helper: another of your unplaced dice sits out this round/);
  const placed = await page.evaluate(() => {
    const [table] = window.tablehub.client.tables.values();
    return table.view.board.players[0].dice.filter((d) => d.at !== null).length;
  });
  assert.equal(placed, 0, 'nothing is placed yet: the warning comes first');
  await page.locator('button.tm-slot.target[data-slot^="E"]').first().scrollIntoViewIfNeeded();
}

/** A space the die takes with a helper: the helper choices name each die by its number
 * from 1 and its value, and say the helper sits out this round. */
async function helperChoices(page) {
  await page.click('button.tm-slot.target.needs-helper');
  await page.waitForSelector('.tm-choice[data-key="helper"]');
  assert.match(await page.textContent('.tm-question'), /One of your other dice sits out this round/);
  const labels = await page.$$eval('.tm-choice[data-key="helper"]', (els) => els.map((el) => el.textContent));
  for (const label of labels) assert.match(label, /^die [1-9]\d* \((soldier, )?a [1-6]\) helps \(it sits out this round\)$/);
  await page.click('.tm-back');
}
