/**
 * Stepping into a subagent in the viewer (issue 38), in real headless Chromium: the transcript is made by a real run of
 * runAgent with a scripted model and one agent (`agents`, its `modelCall` scripting the child), the child running the
 * real bash tool's `ls`. The Agent call's tool card steps into the child's own timeline (its steps, request, messages),
 * whose sentence names its call by the call's display line; the hash keeps where the page is across a reload; the bar
 * steps back to the parent's step it came from; the texts are in English and Chinese.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../../src/run/runAgent.js';
import { defaultTools } from '../../../src/run/defaultTools.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { agentRecords, agentStarts } from '../../../src/transcript/agentRecords.js';
import { findSession, readTranscript } from '../../../src/transcript/store.js';
import type { Viewer } from '../../../src/view/server/server.js';
import { showViewer, stepUntil, testIdText, viewerInChromium } from '../../support/browser.js';

let home: string;
let viewer: Viewer;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let sessionId: string;
/** The child's bash call as its contract shows it (recorded on its tool_start). */
let display: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-viewagents-'));
  const cwd = join(home, 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'notes.md'), 'notes\n');
  const parent = scriptedModel([
    reply.toolUse([{ id: 'toolu_agent', name: 'Agent', input: { description: 'List files', prompt: 'List the files here', subagent_type: 'lister' } }]),
    reply.text('It holds notes.md.'),
  ]);
  const child = scriptedModel([reply.toolUse([{ id: 'toolu_ls', name: 'bash', input: { command: 'ls' } }]), reply.text('notes.md')]);
  const run = await runAgent('What is in this folder?', {
    model: 'scripted',
    modelCall: parent.call,
    tools: defaultTools({ cwd }),
    cwd,
    session: { home },
    agents: { lister: { description: 'Lists files', prompt: 'You list files.', modelCall: child.call } },
  });
  expect(run.state).toBe('done');
  sessionId = run.sessionId;
  const records = readTranscript(findSession(home, sessionId)).records;
  const start = agentRecords(records, agentStarts(records)[0]!.agentId).find((r) => r.type === 'tool_start');
  display = (start as { display?: string } | undefined)?.display ?? '';
  expect(display).toContain('ls');
  ({ viewer, browser, close } = await viewerInChromium({ home }));
}, 60_000);

afterAll(() => close?.());

const text = testIdText;

describe('the viewer: a subagent', () => {
  it("steps into the child's run from the Agent call's card and back to the parent's step, the hash keeping where it is", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await showViewer(page, viewer.url, { session: sessionId, lang: 'en' });
    await page.keyboard.press('Home');
    const into = page.getByTestId('step-into');
    expect(await stepUntil(page, () => into.isVisible())).toBe(true);
    expect(await into.textContent()).toBe('Step into lister ›');
    const parentStep = await text(page, 'step-label');
    const parentMessages = await text(page, 'messages');
    expect(parentMessages).toContain('What is in this folder?');
    expect(await page.getByTestId('agent-bar').isVisible()).toBe(false);

    await into.click();
    await page.waitForFunction(() => location.hash.includes('agent=toolu_agent'));
    expect(await page.getByTestId('agent-bar').isVisible()).toBe(true);
    expect(await text(page, 'agent-where')).toBe('main › lister: the run of subagent lister (List files), started by the Agent call toolu_agent; it ended done');
    expect(await text(page, 'step-label')).toMatch(/^step 1 \/ \d+$/);
    // The child's own run: its sentence names its bash call by its display line; its messages and request are its own.
    expect(await stepUntil(page, async () => (await text(page, 'sentence')).includes(display))).toBe(true);
    expect(await text(page, 'messages')).toContain('List the files here');
    expect(await text(page, 'messages')).not.toContain('What is in this folder?');
    expect(await text(page, 'request')).toContain('You list files.');
    const childStep = await text(page, 'step-label');
    expect(new URL(page.url()).hash).toMatch(/^#agent=toolu_agent&from=\d+&step=\d+$/);

    // A reload shows the same step of the same child.
    await page.reload();
    await page.waitForSelector('body[data-loaded="true"]', { timeout: 30_000 });
    expect(await page.getByTestId('agent-bar').isVisible()).toBe(true);
    expect(await text(page, 'step-label')).toBe(childStep);
    expect(await text(page, 'sentence')).toContain(display);

    // In Chinese too.
    await page.getByTestId('lang').click();
    expect(await text(page, 'step-back')).toContain('回到父运行的第');
    await page.getByTestId('lang').click();

    await page.getByTestId('step-back').click();
    await page.waitForFunction(() => !location.hash.includes('agent='));
    expect(await page.getByTestId('agent-bar').isVisible()).toBe(false);
    expect(await text(page, 'step-label')).toBe(parentStep);
    expect(await text(page, 'messages')).toBe(parentMessages);
    expect(await page.getByTestId('step-into').isVisible()).toBe(true);
    expect(errors).toEqual([]);
  }, 90_000);
});
