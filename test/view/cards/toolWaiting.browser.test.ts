/**
 * The viewer in Chromium, as `view --restate` serves a durable run parked on Restate: the tool card of the call that
 * waits for an approval says so and names `agentloop approvals` (English and Chinese, a desktop and a phone-sized
 * window), every card line the page shows agrees with the records (test/support/lessonCheck.ts), and once the feed
 * no longer lists the call as waiting, the card says it runs.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalFeed, type WaitingCallView } from '../../../src/view/server/approvals.js';
import type { Viewer } from '../../../src/view/server/server.js';
import { readOrder } from '../../../src/view/timeline/read.js';
import { cardSamples, type CardSample } from '../../support/cardSamples.js';
import { checkShown } from '../../support/lessonCheck.js';
import { pageShown } from '../../support/pageShown.js';
import { showViewer, viewerInChromium } from '../../support/browser.js';

let home: string;
let viewer: Viewer;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let sample: CardSample;
const feed = approvalFeed();

const waitingCall = (id: string, state: WaitingCallView['state']): WaitingCallView => ({
  toolUseId: id, tool: 'bash', call: '$ ls -A', reason: 'not allowed in permission mode default', since: new Date().toISOString(),
  approve: `agentloop approve S ${id} --restate http://127.0.0.1:8080`, deny: `agentloop deny S ${id} --restate http://127.0.0.1:8080 --reason TEXT`, state,
});

beforeAll(async () => {
  sample = (await cardSamples()).find((s) => s.label === 'waiting for approval') as CardSample;
  home = mkdtempSync(join(tmpdir(), 'agentloop-viewwaiting-'));
  mkdirSync(join(home, 'sessions'));
  const id = sample.timeline.header?.id as string;
  writeFileSync(join(home, 'sessions', `${id}.jsonl`), `${sample.records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  feed.set([waitingCall([...sample.context.waiting][0] as string, 'waiting')]);
  ({ viewer, browser, close } = await viewerInChromium({ home, sessionId: id, live: true, approvals: feed }));
}, 60_000);

afterAll(() => close?.());

async function open(lang: 'en' | 'zh', size: { width: number; height: number }): Promise<Page> {
  const page = await showViewer(await browser.newPage({ viewport: size }), viewer.url, { lang });
  await page.getByTestId('approval').first().waitFor({ timeout: 10_000 });
  return page;
}

const status = (page: Page) => page.getByTestId('tool-card').getByTestId('tool-status').first().textContent();

describe('the tool card of a call that waits for an approval, in the page', () => {
  for (const [label, size] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
    it(`says it waits and who lists it, checked against the records (${label})`, async () => {
      const page = await open('en', size);
      await page.keyboard.press('End');
      expect(await page.getByTestId('tool-card').isVisible()).toBe(true);
      await expect.poll(() => status(page)).toMatch(/^⏸ waiting for approval: .*`agentloop approvals` lists it/);
      const run = { order: readOrder(sample.records as never, []), ranges: sample.timeline.steps.map((s) => s.records) };
      const last = sample.timeline.steps.length - 1;
      const shown = await pageShown(page);
      expect(shown.cards.tool?.[0]?.lines.some((l) => l.startsWith('⏸'))).toBe(true);
      expect(checkShown(shown, run, last, 'waiting')).toEqual([]);
      await page.close();
    }, 60_000);
  }

  it('says it in Chinese, and "running" once the feed no longer has it waiting', async () => {
    const page = await open('zh', { width: 1280, height: 900 });
    await page.keyboard.press('End');
    await expect.poll(() => status(page)).toMatch(/^⏸ 等待批准：.*`agentloop approvals`/);
    feed.set([waitingCall([...sample.context.waiting][0] as string, 'answered')]);
    await expect.poll(() => status(page)).toBe('… 运行中：这一步还没有结果');
    await page.close();
  }, 60_000);
});
