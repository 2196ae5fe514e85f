/**
 * The simulator page (issue 39): dist/view/simulator.html, opened from file:// in Chromium with every request
 * refused, runs the real machine on an edited script and draws the run as the viewer draws a transcript. One page
 * load: the demo as it opens, then the first reply's stop_reason made to lie (end_turn beside its tool_use).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../support/browser.js';

const PAGE = fileURLToPath(new URL('../../../dist/view/simulator.html', import.meta.url));

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const text = (page: Page, id: string) => page.getByTestId(id).first().innerText();

/** Every step's sentence, tool card and messages count, from the first step to the last. */
async function walk(page: Page): Promise<Array<{ sentence: string; tool: string; messages: string; reply: string }>> {
  // Run shows the new run from its first step.
  const label = await text(page, 'step-label');
  const count = Number(/\/ (\d+)/.exec(label)?.[1]);
  const steps = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await page.getByTestId('next').first().click();
    const card = page.getByTestId('tool-card').first();
    const reply = page.getByTestId('reply-card').first();
    steps.push({
      sentence: await text(page, 'sentence'),
      tool: (await card.isVisible()) ? await card.innerText() : '',
      reply: (await reply.isVisible()) ? await reply.innerText() : '',
      messages: await text(page, 'msg-count'),
    });
  }
  return steps;
}

describe('the simulator page', () => {
  it('runs the machine offline on an edited script: a lying stop_reason still runs the tool, and no request leaves', async () => {
    expect(existsSync(PAGE)).toBe(true);
    const context = await browser.newContext({ viewport: { width: 1366, height: 850 }, locale: 'en-US' });
    const left: string[] = [];
    // The page's own file is let through; anything else it asks for is refused and noted.
    await context.route('**/*', (route) => {
      if (route.request().url() === `file://${PAGE}`) return route.continue();
      left.push(route.request().url());
      return route.abort();
    });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(`file://${PAGE}`);
      await page.waitForSelector('body[data-loaded="true"]');
      // As it opens: the demo's two turns, played on the machine.
      expect(await text(page, 'sim-status')).toContain('2 requests, ended done (completed)');

      // The learner edits the script: the first reply says end_turn while it holds a tool_use.
      const script = JSON.parse(await page.getByTestId('script').inputValue()) as { replies: Array<{ stop_reason: string; content: Array<{ type: string }> }> };
      expect(script.replies[0]?.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
      (script.replies[0] as { stop_reason: string }).stop_reason = 'end_turn';
      await page.getByTestId('script').fill(JSON.stringify(script, null, 2));
      await page.getByTestId('run').click();
      await page.waitForSelector('body[data-runs="2"]');
      // needsFollowUp follows the tool_use blocks: the tool ran and a second request carried its result.
      expect(await text(page, 'sim-status')).toContain('2 requests, ended done (completed)');
      const steps = await walk(page);
      const first = steps.find((s) => s.reply !== '');
      expect(first?.sentence).toContain('stop_reason end_turn and 1 tool_use block ($ ls -A)');
      expect(first?.reply).toMatch(/needsFollowUp\s*true/);
      expect(steps.some((s) => s.tool.includes('README.md') && s.tool.includes('toolu_demo_01'))).toBe(true);
      expect(steps.filter((s) => /sends request \d/.test(s.sentence))).toHaveLength(2);
      // The walk ends at the last step. The final messages[]: the prompt, the reply with its tool_use, the tool_result, the answer.
      expect(steps.at(-1)?.messages).toContain('4');
      const messages = await text(page, 'messages');
      expect(messages).toContain('toolu_demo_01');
      expect(messages).toContain('The working directory has 4 entries');

      // The script as run is in the address: the link opens it again and plays it (the lie included).
      const link = page.url();
      expect(link).toMatch(/#script=[\w-]+$/);
      const again = await context.newPage();
      again.on('request', (request) => requested.push(request.url()));
      await again.goto(link);
      await again.waitForSelector('body[data-loaded="true"]');
      expect(JSON.parse(await again.getByTestId('script').inputValue())).toEqual(script);
      const replay = await walk(again);
      expect(replay.find((s) => s.reply !== '')?.sentence).toContain('stop_reason end_turn and 1 tool_use block ($ ls -A)');
      await again.close();

      // A script the page cannot play says why in one line and runs nothing.
      await page.getByTestId('script').fill('{"prompt": "hi", "replies": [{"content": [], "stop_reason": "later"}]}');
      await page.getByTestId('run').click();
      expect(await text(page, 'sim-status')).toMatch(/^The script cannot be played: replies\[0\]\.stop_reason must be one of/);
      expect(await page.evaluate(() => document.body.dataset.runs)).toBe('2');

      expect(errors).toEqual([]);
      expect(left).toEqual([]);
      expect(requested.filter((url) => !url.startsWith('file://'))).toEqual([]);
      expect(requested).toEqual([`file://${PAGE}`, `file://${PAGE}`]); // the link's fragment is never sent
    } finally {
      await context.close();
    }
  }, 120_000);
});
