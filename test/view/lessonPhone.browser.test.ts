/**
 * The lesson as a learner in China meets it on a phone: Chromium with the locale zh-CN at 390×844
 * (touch). One page load of the demo serves every assertion (browser tests are slow on 2 cores): the
 * lesson is in Chinese with the chapter's terms, the reason is said at ④, messages[] is within a
 * screen of the loop's drawing, every target is at least 24 px, the switch turns it to English.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent } from '../../src/run/runAgent.js';
import { DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from '../../src/scripted/demo.js';
import { startViewer, type Viewer } from '../../src/view/server/server.js';
import { launchChromium, showViewer } from '../support/browser.js';


let dir: string;
let viewer: Viewer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-phone-'));
  const cwd = join(dir, 'project');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'main.py'), 'print("hi")\n');
  const home = join(dir, 'home');
  const { sessionId } = await runAgent(DEMO_PROMPT, { model: DEMO_MODEL_ID, modelCall: demoModel().call, cwd, tools: defaultTools({ cwd }), session: { home, label: 'demo' } });
  viewer = await startViewer({ home });
  browser = await launchChromium();
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await showViewer(page, viewer.url, { session: sessionId });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const text = (testid: string) => page.getByTestId(testid).first().textContent();

/** Every visible control smaller than 24 px on a side, by what it says. */
const smallTargets = () =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button, summary, select, input, label, a')]
      .filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')
      .map((e) => ({ what: `${e.tagName} ${(e.textContent ?? e.getAttribute('aria-label') ?? '').trim().slice(0, 30)}`, r: e.getBoundingClientRect() }))
      .filter(({ r }) => r.width < 24 || r.height < 24)
      .map(({ what, r }) => `${what}: ${Math.round(r.width)}×${Math.round(r.height)}`),
  );

describe('the lesson in a zh-CN browser on a phone', () => {
  it('is in Chinese with the chapter’s terms, says why at ④, keeps messages[] near the loop, has no target under 24 px, and switches to English', { timeout: 90_000 }, async () => {
    await page.keyboard.press('Home');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await text('step-label')).toBe('第 1 / 7 步');
    expect(await text('sentence')).toMatch(/^Prompt 被写进 state，成为 messages\[0\]。循环把请求 1 发给模型：state\.messages（1 条消息）加上工具定义（第 1 轮）。\$ ls -A 在回复还在流式输出时就开始运行。$/);
    expect(await page.locator('.lesson h2').textContent()).toContain('循环（第 s01 章）');
    expect(await text('why')).toMatch(/^为什么：state 比请求大/);
    await page.getByTestId('next').tap();
    expect(await text('chapter-title')).toBe('LLM 说“我要调工具”');
    expect(await text('why')).toBe('为什么：模型只负责提出。tool_use 块只是它的意图，它自己什么也不运行；执行工具、写回 tool_result 是 Harness 的事。');
    expect(await page.getByTestId('reply-card').textContent()).toContain('API 返回的原样');

    // messages[] starts within one screen below the bottom of the loop's drawing, on every step.
    await page.keyboard.press('Home');
    for (let i = 0; i < 7; i++) {
      const gap = await page.evaluate(() => {
        const drawing = (document.querySelector('.lesson-svg') as SVGSVGElement).getBoundingClientRect();
        const messages = (document.querySelector('.messages-card') as HTMLElement).getBoundingClientRect();
        return messages.top - drawing.bottom;
      });
      expect(gap, `step ${i + 1}`).toBeLessThanOrEqual(844);
      expect(await smallTargets(), `step ${i + 1}`).toEqual([]);
      if (i < 6) await page.getByTestId('next').tap();
    }
    await page.locator('.request-card details').first().evaluate((d) => ((d as HTMLDetailsElement).open = true));
    expect(await smallTargets()).toEqual([]);

    await page.getByTestId('lang').tap();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await text('step-label')).toBe('step 7 / 7');
    expect(await text('why')).toBe('Why: this loop plus one bash tool is the whole agent. Later chapters add to the loop; the loop stays.');
    expect(await page.getByTestId('lang').textContent()).toBe('中文');
    expect(errors).toEqual([]);
  });
});
