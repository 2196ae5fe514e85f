/**
 * `/compact [instructions]` in the REPL and the context in use as Claude Code shows it (issue 42): the real CLI in a
 * pseudo-terminal (tmux), against the local Messages API server through the real SDK.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { isSummaryBody } from '../support/compaction.js';
import { openCliProject, type CliProject } from '../support/project.js';
import { openTmux, shellQuote, type TmuxPane } from '../support/tmux.js';

const TIMEOUT = 45_000;
const PROMPT = 'agentloop >>';
let project: CliProject;
let pane: TmuxPane | undefined;

beforeEach(async () => {
  project = await openCliProject('replcompact');
});
afterEach(async () => {
  await pane?.close();
  pane = undefined;
  await project.close();
});

async function startRepl(env: Record<string, string> = {}): Promise<TmuxPane> {
  const cli = [process.execPath, CLI].map(shellQuote).join(' ');
  pane = await openTmux(`${cli}; echo "[exit $?]"`, { cwd: project.dir, env: { ...project.env, ...env } });
  await pane.waitFor((s) => s.split('\n').at(-1) === PROMPT);
  return pane;
}

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const settled = (p: TmuxPane, marker: string) => p.waitFor((s) => s.includes(marker) && s.split('\n').at(-1) === PROMPT);

describe('the REPL: /compact', () => {
  it('summarizes the conversation with the instructions given; the next question goes on from the summary', async () => {
    project.server.enqueue(answer('1, 2, 3'), answer('<analysis>a</analysis><summary>We counted 1, 2, 3.</summary>'), answer('and then four'));
    const p = await startRepl();
    await p.line('count to three');
    await settled(p, '1, 2, 3');
    await p.line('/compact keep the numbers');
    await settled(p, 'Compacted:');
    const summary = project.server.requests[1]?.body;
    expect(isSummaryBody(summary)).toBe(true);
    expect(JSON.stringify(summary?.messages.at(-1))).toContain('Additional Instructions:\\nkeep the numbers');
    await p.line('and then?');
    // A marker no earlier screen holds ('4' could match the screen before the question went out).
    await settled(p, 'and then four');
    expect(project.server.requests).toHaveLength(3);
    const next = project.server.requests[2]?.body;
    expect(JSON.stringify(next?.messages[0])).toContain('We counted 1, 2, 3.');
    expect(JSON.stringify(next?.messages.at(-1))).toContain('and then?');
  }, TIMEOUT);

  it('shows the context left until auto-compact once the context in use nears the threshold', async () => {
    project.server.enqueue(answer('short'));
    const p = await startRepl({ AGENTLOOP_CONTEXT_WINDOW: '1500' });
    await p.line('hello');
    const screen = await settled(p, 'short');
    expect(screen).toMatch(/Context left until auto-compact: \d+%/);
  }, TIMEOUT);
});
