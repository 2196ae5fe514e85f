/**
 * The step-through viewer in real headless Chromium (Debian's `chromium`, driven by
 * playwright-core): a two-turn session recorded by really running the loop with a scripted model
 * and the real bash tool, stepped forward and back with the buttons and the arrow keys.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/model.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { startSession } from '../../src/transcript/recorder.js';
import { runAgent } from '../../src/run/runAgent.js';
import { createBashTool } from '../../src/tools/bash/bashTool.js';
import { startViewer, type Viewer } from '../../src/view/server.js';
import { cut, paused, SIX_CALLS } from '../support/sixCalls.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const SCREENSHOTS = join(process.cwd(), 'test-results');

let dir: string;
let viewer: Viewer;
let browser: Browser;
let page: Page;
let sessionId: string;
const timings: Record<string, number> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-viewer-'));
  const work = join(dir, 'project');
  mkdirSync(work);
  writeFileSync(join(work, 'README.md'), '# demo\n');
  writeFileSync(join(work, 'main.py'), 'print("hi")\n');
  const home = join(dir, 'home');
  const model = scriptedModel([
    {
      ...reply.toolUse([{ id: 'toolu_01', name: 'bash', input: { command: 'ls' } }], "I'll list the files."),
      usage: { input_tokens: 20, output_tokens: 10, cache_creation_input_tokens: 900 },
    },
    (request) => {
      const last = request.messages.at(-1);
      const result = Array.isArray(last?.content) ? last.content.find((b) => b.type === 'tool_result') : undefined;
      const text = result && result.type === 'tool_result' ? String(result.content) : '';
      return reply.text(`There are ${text.split('\n').length} files: ${text.replace('\n', ', ')}.`, {
        input_tokens: 25,
        output_tokens: 12,
        cache_read_input_tokens: 900,
      });
    },
  ]);
  const recorder = startSession(home, { cwd: work, model: 'scripted' });
  sessionId = recorder.id;
  recorder.prompt('List the files.');
  const result = await runAgent('List the files.', {
    model: 'scripted',
    modelCall: model.call,
    tools: [createBashTool({ cwd: work })],
    cwd: work,
    onEvent: recorder.onEvent,
  });
  recorder.finish(result);
  recorder.close();
  expect(result.context.exitReason).toBe('completed');

  viewer = await startViewer({ home, sessionId });
  let t = Date.now();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  timings.launch = Date.now() - t;
  page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const offsite: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(`http://127.0.0.1:${viewer.port}/`)) offsite.push(r.url());
  });
  t = Date.now();
  await page.goto(viewer.url);
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 10_000 });
  timings.load = Date.now() - t;
  expect(errors).toEqual([]);
  expect(offsite).toEqual([]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  console.log(`viewer browser test: chromium launch ${timings.launch} ms, page load ${timings.load} ms`);
});

async function shown() {
  const text = (testid: string) => page.getByTestId(testid).textContent();
  return {
    step: await text('step-label'),
    state: await text('state'),
    turnCount: await text('turnCount'),
    transitionReason: await text('transitionReason'),
    highlighted: await page.locator('.diagram .node.current').getAttribute('data-key'),
    highlightedCount: await page.locator('.diagram .node.current').count(),
    messages: await page.locator('[data-testid="messages"] .msg').count(),
  };
}

const steps = [
  { step: 'step 1 / 5', state: 'callingModel', turnCount: '1', transitionReason: 'null', messages: 1 },
  { step: 'step 2 / 5', state: 'executingTools', turnCount: '1', transitionReason: 'null', messages: 2 },
  { step: 'step 3 / 5', state: 'appendingResults', turnCount: '1', transitionReason: 'tool_result', messages: 3 },
  { step: 'step 4 / 5', state: 'callingModel', turnCount: '2', transitionReason: 'tool_result', messages: 3 },
  { step: 'step 5 / 5', state: 'done', turnCount: '2', transitionReason: 'null', messages: 4 },
];
const expectStep = async (i: number) => {
  const want = steps[i] as (typeof steps)[number];
  expect(await shown()).toEqual({ ...want, highlighted: want.state, highlightedCount: 1 });
};

describe('agentloop view, in Chromium', () => {
  it('steps forward and back through a two-turn session with the buttons and the arrow keys', async () => {
    await expectStep(0);
    expect(await page.getByTestId('prev').isDisabled()).toBe(true);
    await page.getByTestId('next').click();
    await expectStep(1);
    expect(await page.getByTestId('usage').textContent()).toBe('in 20 · out 10 · cache read 0 · cache write 900');
    await page.keyboard.press('ArrowRight');
    await expectStep(2);
    // The tools are done: their results are written as one user message.
    expect(await page.locator('.diagram .edge-label.taken .label').allTextContents()).toEqual(['TOOLS_DONE']);
    await page.keyboard.press('ArrowRight');
    await expectStep(3);

    // Turn 2: from appendingResults back into the turn.
    const taken = await page.locator('.diagram .edge-label.taken .label').allTextContents();
    expect(taken).toEqual(['[else]']);
    expect(await page.locator('.diagram path.edge.taken').count()).toBe(1);
    expect(await page.getByTestId('sentence').textContent()).toBe(
      'The tool results are in messages, so the loop calls the model again with 3 messages (turn 2, transitionReason tool_result).',
    );
    // tool_use and tool_result shown paired by id.
    await expect(page.locator('[data-tool-use="toolu_01"] .status').textContent()).resolves.toContain('messages[2]');
    await expect(page.locator('[data-tool-result="toolu_01"] pre').textContent()).resolves.toBe('README.md\nmain.py');
    // The request of this turn; the loop's own fields are not in it and are marked as never sent.
    const body = JSON.parse((await page.getByTestId('request').textContent()) as string);
    expect(Object.keys(body)).toEqual(['model', 'max_tokens', 'system', 'tools', 'messages']);
    expect(body.messages).toHaveLength(3);
    expect(body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01' });
    expect(JSON.stringify(body)).not.toMatch(/turnCount|transitionReason/);
    expect(await page.getByTestId('unsent').textContent()).toContain('"turnCount":2');
    expect(await page.getByTestId('unsent').textContent()).toContain('never sent');
    // Messages first, in the open; system prompt and tools folded.
    expect(JSON.parse((await page.getByTestId('request-messages').textContent()) as string)).toHaveLength(3);
    expect(await page.locator('.request details').evaluateAll((ds) => ds.map((d) => [(d as HTMLDetailsElement).open, d.querySelector('summary')?.textContent]))).toEqual([
      [false, expect.stringMatching(/^system \(\d+ characters\)$/)],
      [false, 'tools (1: bash)'],
      [false, 'the whole body, as sent'],
    ]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-step-3.png') });

    await page.keyboard.press('ArrowRight');
    await expectStep(4);
    // The reply ended the run: done: model, then checkingReply's completed branch (not the longer
    // path through appendingResults that also leads to done).
    const end = await page.locator('.diagram .edge-label.taken').allTextContents();
    expect(end.sort()).toEqual(['[else]/ exit(completed)', 'done: model [else]/ appendReply  recordReply']);
    expect(await page.getByTestId('sentence').textContent()).toBe(
      'The reply holds no tool_use block, so needsFollowUp is false and the loop stops (exitReason completed).',
    );
    expect(await page.getByTestId('next').isDisabled()).toBe(true);
    await page.keyboard.press('ArrowRight'); // at the end: stays
    await expectStep(4);
    expect(await page.getByTestId('usageTotal').textContent()).toBe('in 45 · out 22 · cache read 900 · cache write 900');
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-step-4.png') });

    await page.keyboard.press('ArrowLeft');
    await expectStep(3);
    await page.getByTestId('prev').click();
    await expectStep(2);
    await page.keyboard.press('ArrowLeft');
    await expectStep(1);
    await page.keyboard.press('End');
    await expectStep(4);
    await page.keyboard.press('Home');
    await expectStep(0);
  });

  it('draws the machine with no label over a node or another label, each label’s text inside its box', async () => {
    const boxes = await page.evaluate(() => {
      const rect = (e: Element) => {
        const r = e.getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height };
      };
      const svg = document.querySelector('.diagram svg') as SVGSVGElement;
      return {
        nodes: [...svg.querySelectorAll('.node:not(.kind-machine):not(.kind-compound)')].map((n) => ({
          id: (n as SVGGElement).dataset.id,
          box: rect(n.querySelector('.box, .dot') as Element),
        })),
        labels: [...svg.querySelectorAll('.edge-label')].map((l) => ({
          id: (l as SVGGElement).dataset.edge,
          box: rect(l.querySelector('.label-bg') as Element),
          texts: [...l.querySelectorAll('text')].map(rect),
        })),
      };
    });
    const overlap = (a: { x: number; y: number; w: number; h: number }, b: typeof a) =>
      Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 0.5 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5;
    expect(boxes.nodes.length).toBeGreaterThan(8);
    expect(boxes.labels.length).toBeGreaterThan(15);
    for (const label of boxes.labels) {
      for (const node of boxes.nodes) expect(overlap(label.box, node.box), `label ${label.id} over ${node.id}`).toBe(false);
      for (const other of boxes.labels) if (other !== label) expect(overlap(label.box, other.box), `label ${label.id} over ${other.id}`).toBe(false);
      for (const text of label.texts) expect(text.x + text.w, `label ${label.id}'s text fits its box`).toBeLessThanOrEqual(label.box.x + label.box.w + 0.5);
    }
    await page.locator('.diagram').screenshot({ path: join(SCREENSHOTS, 'viewer-diagram.png') });
  });

  it('lists the session in the picker', async () => {
    const options = await page.locator('#sessions option').allTextContents();
    expect(options).toHaveLength(1);
    expect(options[0]).toContain('List the files.');
    expect(await page.locator('#sessions').inputValue()).toBe(sessionId);
  });
});

describe('every model call is a step in the page', () => {
  it('shows three continuations, a pause_turn and a retry each as its own callingModel step, the retry with its error and delay', async () => {
    const home = join(dir, 'home');
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
    const url = new URL(viewer.url);
    url.searchParams.set('session', run.sessionId);
    await page.goto(url.toString());
    await page.waitForSelector('body[data-loaded="true"]', { timeout: 10_000 });
    await page.keyboard.press('Home');
    const seen: Array<{ state: string | null; turnCount: string | null; transitionReason: string | null; retry: string | null }> = [];
    for (let i = 0; i < 30; i++) {
      const now = await shown();
      seen.push({
        state: now.state,
        turnCount: now.turnCount,
        transitionReason: now.transitionReason,
        retry: now.state === 'waitingToRetry' ? await page.getByTestId('sentence').textContent() : null,
      });
      if (await page.getByTestId('next').isDisabled()) break;
      await page.keyboard.press('ArrowRight');
    }
    // The page shows each field as text: null as "null".
    const asShown = SIX_CALLS.map(([turnCount, reason]) => [String(turnCount), String(reason)]);
    expect(seen.filter((s) => s.state === 'callingModel').map((s) => [s.turnCount, s.transitionReason])).toEqual(asShown);
    const waiting = seen.find((s) => s.state === 'waitingToRetry');
    expect(waiting?.retry).toMatch(/Overloaded/);
    expect(waiting?.retry).toMatch(/7 ms/);
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-retry.png') });
  });
});
