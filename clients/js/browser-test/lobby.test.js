// The lobby in a real headless Chromium against a real hub (issue 30, point 10): a game
// still on whose players have all left is not shown as "playing" -- its row says
// "everyone left" (the server lists it last) and keeps its Resume button for a way back.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { hubAndBrowser, openUi, screenshot, tableId } from '../testing/browser.js';

const run = hubAndBrowser();


describe('the lobby', () => {
  it('says when everyone has left a game that is still on', async () => {
    const ann = await openUi(run.browser, run.hub, 'ann');
    const lou = await openUi(run.browser, run.hub, 'lou');
    const form = ann.locator('.new-table[data-game="nmbr9"]');
    await form.locator('input[name="bots"]').setChecked(true);
    await form.locator('button[type="submit"]').click();
    await ann.waitForSelector('.table-page');
    const table = await tableId(ann);
    const row = (page) => page.locator(`.table-row[data-table="${table}"]`);
    await row(lou).locator('.pill.playing').waitFor();
    assert.equal(await row(lou).locator('.pill').textContent(), 'playing', 'ann is at it');

    await ann.goto(`${run.hub.http}/#/`); // back to the lobby: ann leaves the table
    for (const page of [lou, ann]) {
      await row(page).locator('.pill.left').waitFor();
      assert.equal(await row(page).locator('.pill').textContent(), 'everyone left');
    }
    assert.equal(await row(ann).locator('button.resume').count(), 1, 'a way back for ann');
    await screenshot(lou, 'lobby-everyone-left');
    assert.deepEqual([...ann.problems, ...lou.problems], []);
    await ann.context().close();
    await lou.context().close();
  });
});
