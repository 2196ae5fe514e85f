/**
 * The command the REPL prints at `/clear` for the session it leaves, run AS PRINTED after the README's install (as
 * test/cli/hints.browser.test.ts does for the others): a user's shell in a real terminal (tmux), no `agentloop` on the PATH,
 * the REPL started as the README writes it (`node dist/cli/main.js`, in the checkout); after `/clear` and `/exit`, the
 * user goes to another directory and types the "(… --resume ID)" it printed: the REPL that starts goes on with that
 * session (the model's next request holds its first question and answer).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripMessages } from '../../src/anthropic/cache.js';
import { startCheckedServer } from '../support/agentServer.js';
import { hint, hintUser, README, ROOT } from '../support/hints.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { openTmux, shellQuote, type TmuxPane } from '../support/tmux.js';

const PROMPT = 'agentloop >>'; // as the screen shows it (TmuxPane.screen drops spaces at line ends)
const SHELL = 'user$';
/** A wait on the screen never hangs, and is generous: it ends as soon as the screen shows what it waits for. */
const WAIT_MS = 60_000;

let server: MessagesServer;
let user: ReturnType<typeof hintUser>;
let pane: TmuxPane | undefined;

beforeAll(async () => {
  server = await startCheckedServer();
  user = hintUser('hints-repl');
});
afterAll(async () => {
  await pane?.close();
  await server?.close();
  rmSync(user.dir, { recursive: true, force: true });
});

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const lastLine = (screen: string) => screen.split('\n').at(-1);

describe('the command the REPL prints, run as printed after the README’s install', () => {
  it('"(… --resume ID)" at /clear, typed from another directory, goes on with the session it names', { timeout: 180_000 }, async () => {
    server.enqueue(answer('first answer'), answer('second answer'));
    const env = { ...user.env, PS1: `${SHELL} `, ANTHROPIC_API_KEY: 'sk-ant-hints-repl', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test' };
    pane = await openTmux('sh', { cwd: ROOT, env, width: 200, height: 50 });
    const at = (prompt: string) => (pane as TmuxPane).waitFor((s) => lastLine(s) === prompt, WAIT_MS);
    await at(SHELL);
    await pane.line(README);
    await at(PROMPT);
    await pane.line('first question');
    await pane.waitFor((s) => s.includes('first answer') && lastLine(s) === PROMPT, WAIT_MS);
    await pane.line('/clear');
    const cleared = await pane.waitFor((s) => s.includes('New session') && lastLine(s) === PROMPT, WAIT_MS);
    const resume = hint(cleared, /stays saved \((.+ --resume \S+)\)\.$/m);
    await pane.line('/exit');
    await at(SHELL);

    await pane.line(`cd ${shellQuote(user.elsewhere)}`);
    await at(SHELL);
    await pane.line(resume);
    // The REPL's prompt, or the shell's again (the command failed): the screen says which.
    const resumed = await pane.waitFor((s) => [PROMPT, SHELL].includes(lastLine(s) ?? ''), WAIT_MS);
    expect(lastLine(resumed), resumed).toBe(PROMPT);
    await pane.line('second question');
    await pane.waitFor((s) => s.includes('second answer') && lastLine(s) === PROMPT, WAIT_MS);
    const sent = stripMessages(server.requests[1]?.body?.messages ?? []);
    expect(sent.map((m) => [m.role, m.content])).toEqual([
      ['user', [{ type: 'text', text: 'first question' }]],
      ['assistant', [{ type: 'text', text: 'first answer' }]],
      ['user', [{ type: 'text', text: 'second question' }]],
    ]);
    expect(server.violations).toEqual([]);
    // The REPL ended before its folders are removed (killed with the terminal, it could write its session after).
    await pane.line('/exit');
    await at(SHELL);
  });
});
