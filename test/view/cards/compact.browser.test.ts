/**
 * The viewer in Chromium shows a compaction boundary (issue 42): the `compacting` step's card says why, what stays in
 * the loop's state (the transcript) and what is sent from then on, with the summary; the lesson names the step. On a
 * phone (one column) the card comes after the lesson, not above it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/core/model.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import type { Viewer } from '../../../src/view/server/server.js';
import { echoTool } from '../../support/drive.js';
import { showViewer, viewerInChromium } from '../../support/browser.js';

let home: string;
let viewer: Viewer;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let sessionId: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-viewcompact-'));
  const tooLong = { error: new ModelError('prompt_too_long', 'prompt is too long: 9000 tokens > 8000 maximum', { status: 400 }) };
  const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'echo', input: { text: 'x' } }]), tooLong, reply.text('done')], { summary: '<summary>echoed x</summary>' });
  sessionId = (await runAgent('echo x', { model: 'scripted', modelCall: model.call, tools: [echoTool()], session: { home } })).sessionId;
  ({ viewer, browser, close } = await viewerInChromium({ home }));
}, 60_000);

afterAll(() => close?.());

describe('the viewer: a compaction boundary', () => {
  it('is a step with its card: why, kept in state vs sent, the summary', async () => {
    const page = await showViewer(await browser.newPage(), viewer.url, { session: sessionId, lang: 'en' });
    await page.keyboard.press('Home');
    const card = page.getByTestId('compact-card');
    for (let i = 0; i < 20 && !(await card.isVisible()); i++) await page.keyboard.press('ArrowRight');
    expect(await card.isVisible()).toBe(true);
    expect(await page.getByTestId('compact-why').textContent()).toContain('refused the request as too long');
    expect(await page.getByTestId('compact-kept').textContent()).toBe('kept in state (the transcript): all 3 messages, unchanged');
    expect(await page.getByTestId('compact-sent').textContent()).toMatch(/^sent from the next step on: \d+ messages \(a summary of \d+/);
    expect(await page.getByTestId('compact-summary').textContent()).toBe('echoed x');
    expect(await page.getByTestId('chapter-title').first().textContent()).toContain('compact the history');
    await page.keyboard.press('ArrowRight');
    expect(await card.isVisible()).toBe(false);
  }, 60_000);

  it('on a phone, in one column, comes after the lesson and the state card, not above them', async () => {
    const page = await showViewer(await browser.newPage({ viewport: { width: 390, height: 844 } }), viewer.url, { session: sessionId, lang: 'en' });
    await page.keyboard.press('Home');
    const card = page.getByTestId('compact-card');
    for (let i = 0; i < 20 && !(await card.isVisible()); i++) await page.keyboard.press('ArrowRight');
    const top = async (selector: string) => (await page.locator(selector).first().boundingBox())?.y ?? Number.NaN;
    expect(await top('[data-testid="compact-card"]')).toBeGreaterThan(await top('.card.lesson'));
    expect(await top('[data-testid="compact-card"]')).toBeGreaterThan(await top('[data-testid="state-card"]'));
    await page.close();
  }, 60_000);
});
