/**
 * `agentloop view --compare A B` (the CLI as a process) in real headless Chromium: a mistaken
 * demo run beside the correct one, stepped together, the first diverging request marked.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISTAKE_NAMES, type MistakeName } from '../../src/mistakes/names.js';
import { runMistake, type MistakeRun } from '../../src/mistakes/run.js';
import { findSession } from '../../src/transcript/store.js';
import { cliEnv, startCli } from '../support/cli.js';
import { launchChromium } from '../support/browser.js';

const SCREENSHOTS = join(process.cwd(), 'test-results');

let dir: string;
let browser: Browser;
let page: Page;
let viewer: ReturnType<typeof startCli>;
let url: URL;
let dropped: MistakeRun;
let stopped: MistakeRun;
let home: string;
const others = {} as Record<MistakeName, MistakeRun>;
const errors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-compare-'));
  const work = join(dir, 'project');
  mkdirSync(work);
  writeFileSync(join(work, 'notes.txt'), 'n');
  home = join(dir, 'home');
  dropped = await runMistake('drop-message', { cwd: work, home });
  stopped = await runMistake('stop-reason-only', { cwd: work, home });
  for (const name of MISTAKE_NAMES) others[name] = name === 'drop-message' ? dropped : name === 'stop-reason-only' ? stopped : await runMistake(name, { cwd: work, home });
  // Prefixes of the ids are enough on the command line.
  viewer = startCli(['view', '--compare', dropped.mistaken.sessionId.slice(0, 8), dropped.correct.sessionId.slice(0, 8)], {
    cwd: work,
    env: cliEnv({ AGENTLOOP_HOME: home }),
  });
  const started = Date.now();
  while (!/^http:\/\/127\.0\.0\.1:\d+\/\S+$/m.test(viewer.output().stdout)) {
    if (Date.now() - started > 15_000) throw new Error(`the viewer did not start: ${viewer.output().stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  url = new URL(viewer.output().stdout.trim().split('\n')[0] as string);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1700, height: 1000 } });
  page.on('pageerror', (e) => errors.push(e.message));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  viewer?.child.kill('SIGINT');
  await viewer?.done;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const view = (i: 0 | 1) => page.locator(`[data-view="${i}"]`);
const label = (i: 0 | 1) => view(i).getByTestId('step-label').textContent();
/**
 * The requests of a session as its transcript file has them, every line read here (a line the store's reader skips as
 * damaged, like unbound-result's tool_result without its id, is still a message the loop wrote and sent).
 */
function requestsOf(id: string): Array<{ body: unknown; messages: unknown[] }> {
  let history: unknown[] = [];
  const requests: Array<{ body: unknown; messages: unknown[] }> = [];
  for (const line of readFileSync(findSession(home, id), 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line) as { type: string; index: number; message: unknown; messageCount: number; body: unknown };
    if (r.type === 'message') history = [...history.slice(0, r.index), r.message];
    if (r.type === 'request') requests.push({ body: r.body, messages: history.slice(0, r.messageCount) });
  }
  return requests;
}

/** The banner for two sessions, from their transcripts: the first request that differs, the messages each sends, the first that differs. */
function bannerOf(a: string, b: string): string {
  const [ra, rb] = [requestsOf(a), requestsOf(b)];
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const n = Array.from({ length: Math.max(ra.length, rb.length) }, (_, i) => i).find((i) => !same(ra[i], rb[i]));
  if (n === undefined) return 'The two runs send the same requests.';
  const sends = (r: (typeof ra)[number] | undefined, who: string) => (r ? `${who} sends ${r.messages.length} message${r.messages.length === 1 ? '' : 's'}` : `${who} sends no request ${n + 1}`);
  const [x, y] = [ra[n], rb[n]];
  const k = x && y ? Array.from({ length: Math.max(x.messages.length, y.messages.length) }, (_, i) => i).find((i) => !same(x.messages[i], y.messages[i])) : undefined;
  return `The runs first differ at request ${n + 1}: ${sends(x, 'A')}, ${sends(y, 'B')}${k === undefined ? '' : `; they differ from messages[${k}] on`}.`;
}

const sentMessages = async (i: 0 | 1) => (JSON.parse((await view(i).getByTestId('request-messages').textContent()) as string) as unknown[]).length;

async function open(search: URL): Promise<void> {
  await page.goto(search.toString());
  // Generous: the diagram's layout (ELK) takes seconds on a loaded machine.
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 45_000 });
}

describe('agentloop view --compare, in Chromium', () => {
  it('shows the mistaken run (A) beside the correct one (B), and says where they first differ', { timeout: 60_000 }, async () => {
    await open(url);
    expect(url.searchParams.get('compare')).toBe(`${dropped.mistaken.sessionId},${dropped.correct.sessionId}`);
    expect(await view(0).getByTestId('view-title').textContent()).toBe(`A · mistake drop-message · session ${dropped.mistaken.sessionId.slice(0, 8)}`);
    expect(await view(1).getByTestId('view-title').textContent()).toBe(`B · correct run (for mistake drop-message) · session ${dropped.correct.sessionId.slice(0, 8)}`);
    expect(await page.getByTestId('compare-text').textContent()).toBe(
      'The runs first differ at request 2: A sends 1 message, B sends 3 messages; they differ from messages[1] on.',
    );
    // Step 1 sends the same first request in both: nothing marked.
    expect([await label(0), await label(1)]).toEqual([expect.stringMatching(/^step 1 \//), expect.stringMatching(/^step 1 \//)]);
    expect(await page.locator('.card.diverging').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('steps both runs with the keys, and jumps both to the first diverging request, marked in each', async () => {
    await page.keyboard.press('ArrowRight');
    expect([await label(0), await label(1)]).toEqual([expect.stringMatching(/^step 2 \//), expect.stringMatching(/^step 2 \//)]);
    await page.getByTestId('compare-go').click();
    for (const i of [0, 1] as const) {
      expect(await view(i).getByTestId('state').textContent()).toBe('callingModel');
      expect(await view(i).getByTestId('turnCount').textContent()).toBe('2');
      expect(await view(i).locator('.card.diverging').count()).toBe(1);
      expect(await view(i).getByTestId('diverging').textContent()).toBe('≠ request 2: the first request that differs from the other run’s (from messages[1])');
    }
    // The mistaken run sends the bare question again; the correct one the tool call and its result.
    expect([await sentMessages(0), await sentMessages(1)]).toEqual([1, 3]);
    // The deleted messages are gone from A's history, drawn as deleted, not shown as if still there.
    expect(await view(0).locator('[data-testid="messages"] .msg:not(.ghost)').count()).toBe(1);
    expect(await view(0).getByTestId('deleted').count()).toBe(2);
    // Each side keeps its own sentence and state.
    const sentences = [await view(0).getByTestId('sentence').textContent(), await view(1).getByTestId('sentence').textContent()];
    expect(sentences[0]).toMatch(/^Before the call the loop deleted messages\[1\], messages\[2\] from state\.messages/);
    expect(sentences[1]).toMatch(/request 2 = request 1 \+ messages\[1\], messages\[2\]/);
    expect(await view(0).getByTestId('state-code').textContent()).toMatch(/messages: \[0 user1 ✂2 ✂\] \(1\)/);
    expect(await view(1).locator('[data-testid="messages"] .msg.differs').getAttribute('data-index')).toBe('1');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'compare-drop-message.png') });
    // One step back, both show their first request again, which is the same: nothing marked.
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('.card.diverging').count()).toBe(0);
  });

  it('says, for every mistake beside its correct run, where the requests first differ as the two transcripts have them', { timeout: 90_000 }, async () => {
    for (const name of MISTAKE_NAMES) {
      const { mistaken, correct } = others[name];
      const other = new URL(url);
      other.searchParams.set('compare', `${mistaken.sessionId},${correct.sessionId}`);
      await open(other);
      const banner = bannerOf(mistaken.sessionId, correct.sessionId);
      expect(await page.getByTestId('compare-text').textContent(), name).toBe(banner);
      // Each side, moved to that request, shows the body it sent: as many messages as the banner says.
      await page.getByTestId('compare-go').click();
      const counts = [...banner.matchAll(/[AB] sends (\d+) messages?/g)].map((m) => Number(m[1]));
      if (counts.length === 2) expect([await sentMessages(0), await sentMessages(1)], name).toEqual(counts);
    }
    expect(errors).toEqual([]);
  });

  it('marks the last step of a run that never sends the diverging request (stop-reason-only)', { timeout: 60_000 }, async () => {
    const other = new URL(url);
    other.searchParams.set('compare', `${stopped.mistaken.sessionId},${stopped.correct.sessionId}`);
    await open(other);
    expect(await page.getByTestId('compare-text').textContent()).toBe('The runs first differ at request 2: A sends no request 2, B sends 3 messages.');
    await page.getByTestId('compare-go').click();
    expect(await view(0).getByTestId('state').textContent()).toBe('done');
    // The final states are drawn whole, at both sizes, with each side's sentence.
    // On a phone, one tap on A's Next steps both sides (Step both is on).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.keyboard.press('Home');
    await view(0).getByTestId('next').click();
    expect([await label(0), await label(1)]).toEqual([expect.stringMatching(/^step 2 \//), expect.stringMatching(/^step 2 \//)]);
    for (const size of [{ width: 1700, height: 1000 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(size);
      await page.keyboard.press('End');
      for (const i of [0, 1] as const) {
        const done = view(i).locator('.lesson-svg [data-node="done"]');
        const box = (await done.boundingBox()) as { x: number; width: number };
        const frame = (await view(i).boundingBox()) as { x: number; width: number };
        expect(box.x).toBeGreaterThanOrEqual(frame.x);
        expect(box.x + box.width).toBeLessThanOrEqual(frame.x + frame.width);
        expect(await done.getAttribute('class')).toContain('current');
        expect(await view(i).getByTestId('sentence').textContent()).toMatch(/^The run ends in done/);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1700, height: 1000 });
    await page.getByTestId('compare-go').click();
    expect(await view(0).getByTestId('diverging').textContent()).toBe('≠ this run sends no request 2: it stopped here');
    expect(await view(1).getByTestId('diverging').textContent()).toMatch(/^≠ request 2: /);
    expect(await sentMessages(1)).toBe(3);
    expect(errors).toEqual([]);
  });
});
