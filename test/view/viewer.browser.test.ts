/**
 * The step-through viewer in real headless Chromium (Debian's `chromium`, driven by
 * playwright-core) at 1440×900 and at 390×844: the demo (the real machine, the real bash tool, a
 * scripted model) and every mistake of src/mistakes/, recorded by really running them. At both
 * sizes: the lesson's smallest text is at least 12 px, nothing scrolls sideways, the step controls
 * are in sight and take a click, a tap and the keyboard, stop_reason is on every reply step, and
 * every sentence the page shows is what its step's records show (test/support/narration.ts).
 * Every step of the demo is kept as a screenshot in test-results/viewer-steps/ (git-ignored).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/model.js';
import { MISTAKE_NAMES, type MistakeName } from '../../src/mistakes/names.js';
import { runMistake } from '../../src/mistakes/run.js';
import { chapterTools } from '../../src/run/defaultTools.js';
import { runAgent } from '../../src/run/runAgent.js';
import { DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from '../../src/scripted/demo.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { readOrder } from '../../src/view/timeline/read.js';
import { startViewer, type Viewer } from '../../src/view/server/server.js';
import type { Timeline } from '../../src/view/timeline/build.js';
import { checkShown } from '../support/lessonCheck.js';
import { checkStep, liveBefore } from '../support/narration.js';
import { pageShown } from '../support/pageShown.js';
import { shownSteps } from '../support/lessonShown.js';
import { cut, paused, SIX_CALLS } from '../support/sixCalls.js';
import { launchChromium, showViewer } from '../support/browser.js';

/** Where the screenshots of every step of the demo are kept (git-ignored; docs/view.md names it). */
const SHOTS = join(process.cwd(), 'test-results', 'viewer-steps');
const SIZES = [
  { name: 'laptop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

let dir: string;
let home: string;
let viewer: Viewer;
let browser: Browser;
let demoId: string;
const mistaken = {} as Record<MistakeName, string>;
const errors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-viewer-'));
  const work = join(dir, 'project');
  mkdirSync(work);
  writeFileSync(join(work, 'README.md'), '# demo\n');
  writeFileSync(join(work, 'main.py'), 'print("hi")\n');
  home = join(dir, 'home');
  demoId = (await runAgent(DEMO_PROMPT, { model: DEMO_MODEL_ID, modelCall: demoModel().call, cwd: work, tools: chapterTools({ cwd: work }), session: { home, label: 'demo' } })).sessionId;
  for (const name of MISTAKE_NAMES) mistaken[name] = (await runMistake(name, { cwd: work, home })).mistaken.sessionId;
  viewer = await startViewer({ home });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(page: Page, id: string): Promise<void> {
  await showViewer(page, viewer.url, { session: id });
  await page.keyboard.press('Home');
}

const text = (page: Page, testid: string) => page.getByTestId(testid).first().textContent();

/** The lesson's smallest text in CSS pixels: font size times the drawing's scale, over the texts shown. */
const smallestLessonText = (page: Page) =>
  page.evaluate(() => {
    const svg = document.querySelector('.lesson-svg') as SVGSVGElement;
    const scale = svg.getScreenCTM()?.a ?? 0;
    const shown = [...svg.querySelectorAll('text')].filter((t) => t.getBoundingClientRect().width > 0);
    return { min: Math.min(...shown.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)), count: shown.length };
  });

/** The messages pane's "new/changed at this step" badges: the message's index and what the badge says. */
const freshBadges = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll('[data-testid="messages"] .msg')].flatMap((m) => {
    const badge = m.querySelector('[data-testid="fresh"]');
    return badge ? [{ index: Number((m as HTMLElement).dataset.index), text: badge.textContent ?? '' }] : [];
  }));

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** The button is inside the viewport, and a click at its middle lands on it (nothing covers it). */
const reachable = (page: Page, testid: string) =>
  page.evaluate((id) => {
    const button = document.querySelector(`[data-testid="${id}"]`) as HTMLElement;
    const r = button.getBoundingClientRect();
    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.width >= 40 && r.height >= 36;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return inside && hit !== null && button.contains(hit);
  }, testid);

async function timelineOf(id: string): Promise<Timeline> {
  const response = await fetch(new URL(`/api/sessions/${id}?token=${viewer.token}`, viewer.url));
  return (await response.json()) as Timeline;
}

describe.each(SIZES)('the viewer at $width×$height', (size) => {
  let page: Page;
  beforeAll(async () => {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, hasTouch: true });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
  });

  it('steps through the demo as the chapter’s ① to ⑧: lesson text ≥ 12 px, no sideways scroll, controls in sight, a screenshot of every step', async () => {
    await open(page, demoId);
    const shots = join(SHOTS, `${size.width}x${size.height}`);
    mkdirSync(shots, { recursive: true });
    const seen: Array<[string | null, string | null, string | null]> = [];
    for (let i = 0; ; i++) {
      const lesson = await smallestLessonText(page);
      expect(lesson.count).toBeGreaterThan(10);
      expect(lesson.min, `step ${i + 1}`).toBeGreaterThanOrEqual(12);
      expect(await overflow(page), `step ${i + 1}`).toBeLessThanOrEqual(0);
      expect(await reachable(page, 'prev')).toBe(true);
      seen.push([await text(page, 'chapter-mark'), await text(page, 'turnCount'), await text(page, 'transitionReason')]);
      await page.screenshot({ path: join(shots, `demo-step-${i + 1}.png`) });
      if (await page.getByTestId('next').isDisabled()) break;
      expect(await reachable(page, 'next')).toBe(true);
      await page.getByTestId('next').click();
      expect(await text(page, 'step-label')).toMatch(new RegExp(`^step ${i + 2} / 7$`));
    }
    expect(seen).toEqual([
      ['①②③', '1', 'null'],
      ['④', '1', 'null'],
      ['⑤', '1', 'null'],
      ['⑥', '1', '"tool_result"'], // marked as the results are written
      ['⑦', '2', '"tool_result"'],
      ['⑦', '2', '"tool_result"'],
      ['⑧', '2', 'null'],
    ]);
    expect(errors).toEqual([]);
  });

  it('shows the reply card on every reply step: stop_reason as received, the tool_use blocks, needsFollowUp, the teaching check', async () => {
    await open(page, demoId);
    const t = await timelineOf(demoId);
    for (const [i, step] of t.steps.entries()) {
      const card = page.getByTestId('reply-card');
      expect(await card.isVisible()).toBe(step.kind === 'reply');
      if (step.kind === 'reply') {
        expect(await text(page, 'stop-reason')).toBe(JSON.stringify(step.reply?.stopReason));
        expect(await text(page, 'tool-uses')).toBe(String(step.reply?.toolUses.length));
        expect(await text(page, 'needs-follow-up')).toBe(String(step.reply?.needsFollowUp));
        expect(await text(page, 'teaching')).toMatch(/the same as the tool_use blocks say/);
      }
      // The tool is never shown as returned before the step it returns in; from then on, in its turn, it is.
      // (A hidden card holds nothing: the next turn's steps have no tool card.)
      const result = t.tools.find((x) => x.kind === 'result');
      const status = (await page.getByTestId('tool-status').allTextContents()).join(' ');
      const shown = await page.getByTestId('tool-card').isVisible();
      if (!shown) expect(status).toBe('');
      if (result && i < result.step) expect(status).not.toContain('✓');
      if (result && i >= result.step && step.state !== 'callingModel' && shown) expect(status).toContain('✓ returned');
      await page.keyboard.press('ArrowRight');
    }
    // ⑤: the output wrapped into a tool_result bound to its tool_use_id, and when it started.
    await page.keyboard.press('Home');
    for (let k = 0; k < 2; k++) await page.keyboard.press('ArrowRight');
    expect(await text(page, 'chapter-mark')).toBe('⑤');
    expect(await page.getByTestId('tool-card').textContent()).toMatch(/started \d\d:\d\d:\d\d\.\d{3}, while the reply still streamed.*bound to tool_use_id toolu_demo_01/);
    // The call as the bash tool's contract shows it (its tool_start record's display line), as the terminal does.
    expect(await page.getByTestId('tool-head').first().textContent()).toMatch(/^\$ ls -A/);
  });

  it('shows, for the demo and every mistake, only lines its step’s records show: sentence, reason, cards, the drawing', async () => {
    const contradictions: string[] = [];
    for (const id of [demoId, ...MISTAKE_NAMES.map((n) => mistaken[n])]) {
      const t = await timelineOf(id);
      const transcript = readTranscript(findSession(home, id));
      const order = readOrder(transcript.records, transcript.damaged);
      await open(page, id);
      for (const [i, step] of t.steps.entries()) {
        // Every line as the page shows it (test/support/lessonCheck.ts), in English (the browser's language here).
        const shown = await pageShown(page);
        contradictions.push(...checkShown(shown, { order, ranges: t.steps.map((s) => s.records) }, i, `${t.header?.label}`));
        // The page draws the very lines the registered cards say (what the checker reads without a browser).
        expect(shown.cards, `${t.header?.label} step ${i + 1}`).toEqual(shownSteps(t)[i]?.cards);
        const sentence = (await text(page, 'sentence')) ?? '';
        expect(sentence).toBe(step.sentence);
        try {
          checkStep(sentence, order, step.records);
        } catch (error) {
          throw new Error(`${t.header?.label} step ${i + 1}: ${sentence}\n${(error as Error).message}`);
        }
        if (step.kind === 'reply') expect(await text(page, 'stop-reason')).toBe(JSON.stringify(step.reply?.stopReason));
        // A message written at this step is new only at a place the history did not hold (else it was written over).
        const held = liveBefore(order, step.records[0]).length;
        for (const fresh of await freshBadges(page)) expect(fresh.text, `${t.header?.label} step ${i + 1}, messages[${fresh.index}]`).toMatch(fresh.index < held ? /^changed at this step/ : /^new at this step$/);
        // Once the run has ended, no tool is shown running: one without a result says the run ended without it.
        if (['done', 'failed', 'aborted'].includes(step.state)) expect(await page.evaluate(() => document.body.innerText), `${t.header?.label} step ${i + 1}`).not.toContain('running');
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        await page.keyboard.press('ArrowRight');
      }
    }
    expect(contradictions).toEqual([]);
  });

  it('draws what each mistake broke, and counts in the request header what the body holds', async () => {
    const at = async (id: string, mark: RegExp) => {
      await open(page, id);
      for (let i = 0; i < 20 && !mark.test((await text(page, 'chapter-title')) ?? ''); i++) await page.keyboard.press('ArrowRight');
    };
    // The transcript's unreadable line (the unbound result) is noted at the step its record is in, not from step 1.
    await open(page, mistaken['unbound-result']);
    const skipped: number[] = [];
    for (let i = 0; i < 8; i++) {
      if ((await text(page, 'notes'))?.includes('skipped')) skipped.push(i + 1);
      if (await page.getByTestId('next').isDisabled()) break;
      await page.keyboard.press('ArrowRight');
    }
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped).not.toContain(1);
    await at(mistaken['unbound-result'], /Results go back/);
    expect(await page.getByTestId('unbound').count()).toBe(1);
    await page.keyboard.press('ArrowRight');
    const body = JSON.parse((await text(page, 'request-messages')) ?? '[]') as unknown[];
    expect(await text(page, 'req-label')).toBe(`request 2 · turn 2 · ${body.length} messages · sent at this step`);
    expect(body).toHaveLength(3);
    await at(mistaken['forget-assistant'], /The model asks for a tool/);
    expect(await text(page, 'missing-reply')).toMatch(/the reply of turn 1 \(stop_reason tool_use, tool_use \$ ls -A\) was never appended/);
    await at(mistaken['forget-assistant'], /Results go back/);
    expect(await freshBadges(page)).toEqual([{ index: 0, text: 'changed at this step: written over the message already here' }]);
    await at(mistaken['forget-tool-result'], /Results go back/);
    expect(await text(page, 'missing-result')).toMatch(/the tool_result for toolu_demo_01 was never written/);
    await at(mistaken['drop-message'], /calls the model again/);
    expect(await page.getByTestId('deleted').allTextContents()).toEqual([expect.stringMatching(/^✂ messages\[1\] \(assistant\)/), expect.stringMatching(/^✂ messages\[2\] \(user\)/)]);
    await at(mistaken['stop-reason-only'], /The model asks for a tool/);
    expect(await text(page, 'teaching')).toMatch(/would stop here: ⚠ not what the tool_use blocks say/);
    await page.keyboard.press('End');
    expect(await text(page, 'state')).toBe('done');
    expect(await text(page, 'tool-status')).toBe('⚠ no result recorded: the run ended (done) without it');
  });

  it('takes the keyboard and a tap, and keeps the controls in sight when the page is scrolled', async () => {
    await open(page, demoId);
    await page.getByTestId('next').focus();
    await page.keyboard.press('Enter');
    expect(await text(page, 'step-label')).toBe('step 2 / 7');
    await page.keyboard.press('Tab'); // to Last
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Space');
    expect(await text(page, 'step-label')).toBe('step 3 / 7');
    await page.getByTestId('next').tap();
    expect(await text(page, 'step-label')).toBe('step 4 / 7');
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(200);
    expect(await reachable(page, 'next')).toBe(true);
    await page.getByTestId('prev').tap();
    expect(await text(page, 'step-label')).toBe('step 3 / 7');
  });

  it('turns on the production paths in the lesson, and zooms the whole machine inside its own box', async () => {
    await open(page, demoId);
    await page.getByTestId('production').check();
    expect((await smallestLessonText(page)).min).toBeGreaterThanOrEqual(12);
    expect(await page.locator('.lesson-svg [data-node="waitingToRetry"]').isVisible()).toBe(true);
    await page.locator('details.machine summary').click();
    const width = () => page.locator('[data-testid="diagram"] svg').evaluate((svg) => svg.getBoundingClientRect().width);
    const fitted = await width();
    await page.getByTestId('zoom-in').click();
    await page.getByTestId('zoom-in').click();
    expect(await width()).toBeGreaterThan(fitted * 1.4);
    expect(await overflow(page)).toBeLessThanOrEqual(0); // the box scrolls, not the page
    await page.getByTestId('zoom-fit').click();
    expect(await width()).toBeCloseTo(fitted, 0);
  });
});

describe('the viewer at 1440×900, the rest', () => {
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });

  it('draws the whole machine with no label over a node or another label, each label’s text inside its box', async () => {
    await open(page, demoId);
    await page.locator('details.machine summary').click();
    await page.getByTestId('zoom-in').click();
    const boxes = await page.evaluate(() => {
      const rect = (e: Element) => {
        const r = e.getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height };
      };
      const svg = document.querySelector('.diagram svg') as SVGSVGElement;
      return {
        nodes: [...svg.querySelectorAll('.node:not(.kind-machine):not(.kind-compound)')].map((n) => ({ id: (n as SVGGElement).dataset.id, box: rect(n.querySelector('.box, .dot') as Element) })),
        labels: [...svg.querySelectorAll('.edge-label')].map((l) => ({ id: (l as SVGGElement).dataset.edge, box: rect(l.querySelector('.label-bg') as Element), texts: [...l.querySelectorAll('text')].map(rect) })),
      };
    });
    const overlap = (a: { x: number; y: number; w: number; h: number }, b: typeof a) =>
      Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 0.5 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5;
    expect(boxes.nodes.length).toBeGreaterThan(8);
    expect(boxes.labels.length).toBeGreaterThan(15);
    for (const label of boxes.labels) {
      for (const node of boxes.nodes) expect(overlap(label.box, node.box), `label ${label.id} over ${node.id}`).toBe(false);
      for (const other of boxes.labels) if (other !== label) expect(overlap(label.box, other.box), `label ${label.id} over ${other.id}`).toBe(false);
      for (const t of label.texts) expect(t.x + t.w, `label ${label.id}'s text fits its box`).toBeLessThanOrEqual(label.box.x + label.box.w + 0.5);
    }
  });

  it('names each session in the picker by time, label, turns and how it ended', async () => {
    await open(page, demoId);
    await page.waitForSelector('body[data-sessions="true"]'); // the picker is filled once the session is shown
    const options = await page.locator('#sessions option').allTextContents();
    expect(options).toHaveLength(1 + 2 * MISTAKE_NAMES.length);
    expect(options).toContainEqual(expect.stringMatching(/ · demo · 2 turns · completed · List the files/));
    expect(options).toContainEqual(expect.stringMatching(/ · mistake forget-tool-result · 2 turns · model_error · /));
    expect(options).toContainEqual(expect.stringMatching(/ · correct run \(for mistake drop-message\) · 2 turns · completed · /));
    expect(await page.locator('#sessions').inputValue()).toBe(demoId);
  });

  it('shows three continuations, a pause_turn and a retry each as its own callingModel step, the retry with its error and delay', async () => {
    const model = scriptedModel([
      cut('one'),
      cut('two'),
      cut('three'),
      paused,
      { error: new ModelError('overloaded', 'Overloaded', { status: 529, apiType: 'overloaded_error', retryAfterMs: 7 }) },
      reply.text('the end'),
    ]);
    const run = await runAgent('a long story', { model: 'scripted', modelCall: model.call, tools: [], session: { home } });
    expect(run.context.exitReason).toBe('completed');
    await open(page, run.sessionId);
    const seen: Array<{ state: string | null; turnCount: string | null; transitionReason: string | null; sentence: string | null }> = [];
    for (let i = 0; i < 40; i++) {
      seen.push({ state: await text(page, 'state'), turnCount: await text(page, 'turnCount'), transitionReason: await text(page, 'transitionReason'), sentence: await text(page, 'sentence') });
      if (await page.getByTestId('next').isDisabled()) break;
      await page.keyboard.press('ArrowRight');
    }
    const asShown = SIX_CALLS.map(([turnCount, reason]) => [String(turnCount), JSON.stringify(reason)]);
    expect(seen.filter((s) => s.state === 'callingModel').map((s) => [s.turnCount, s.transitionReason])).toEqual(asShown);
    const waiting = seen.find((s) => s.state === 'waitingToRetry');
    expect(waiting?.sentence).toMatch(/Overloaded.*7 ms/);
    expect(errors).toEqual([]);
  });
});
