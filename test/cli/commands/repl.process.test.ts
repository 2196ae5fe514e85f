/**
 * The REPL as a person meets it: the real CLI in a pseudo-terminal (tmux), against the local Messages API server
 * through the real SDK. One tmux server per test, killed after it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stripMessages } from '../../../src/anthropic/cache.js';
import { costOf } from '../../../src/core/pricing.js';
import { listSessions } from '../../../src/transcript/store.js';
import { answerFromResults, bashUse } from '../../support/agentServer.js';
import { CLI } from '../../support/cli.js';
import { openCliProject, type CliProject } from '../../support/project.js';
import { openTmux, shellQuote, type TmuxPane } from '../../support/tmux.js';

// Each wait polls for at most 15 s (TmuxPane.waitFor); a test gets 45 s in all, its tmux server killed after it.
const TIMEOUT = 45_000;
const PROMPT = 'agentloop >>'; // as the screen shows it (TmuxPane.screen drops spaces at line ends)
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|thinking/;

let project: CliProject;
let pane: TmuxPane | undefined;

beforeEach(async () => {
  project = await openCliProject('repl', { files: { 'notes.txt': 'n' } });
});
afterEach(async () => {
  await pane?.close();
  pane = undefined;
  await project.close();
});

/**
 * The CLI in a pane; when it ends, the shell prints `[exit CODE]`, whether the terminal is back in its usual modes,
 * and then echoes what it reads (`cat -v` shows bracketed paste markers left on as `^[[200~`).
 */
async function startRepl(args: string[] = [], env: Record<string, string> = {}): Promise<TmuxPane> {
  const cli = [process.execPath, CLI, ...args].map(shellQuote).join(' ');
  const modes = `stty -a | tr ' ;' '\\n\\n' | grep -E -x -- '-?(icanon|echo)' | tr '\\n' ' '`;
  const command = `${cli}; echo "[exit $?]"; echo "[modes $(${modes})]"; exec cat -v`;
  pane = await openTmux(command, { cwd: project.dir, env: { ...project.env, ...env } });
  await pane.waitFor((s) => s.split('\n').at(-1) === PROMPT);
  return pane;
}

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const userTexts = (i: number) =>
  stripMessages(project.server.requests[i]?.body?.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content);
const lastLine = (screen: string) => screen.split('\n').at(-1);
/** Waits until the REPL is back at its prompt after `marker` showed. */
const settled = (p: TmuxPane, marker: string) => p.waitFor((s) => s.includes(marker) && lastLine(s) === PROMPT);

describe('the REPL: input', () => {
  it('a paste of several lines is one message: one request with the whole text, sent by the Enter after it', async () => {
    project.server.enqueue(answer('got all three'));
    const p = await startRepl();
    await p.paste('line one\nline two\nline three\n');
    // Not sent by its newlines, its last one included: the REPL waits for more.
    await p.waitFor((s) => s.includes('line three') && lastLine(s) === '...');
    expect(project.server.requests).toHaveLength(0);
    await p.keys(['Enter']);
    await settled(p, 'got all three');
    expect(project.server.requests).toHaveLength(1);
    expect(userTexts(0)).toEqual([[{ type: 'text', text: 'line one\nline two\nline three' }]]);
  }, TIMEOUT);

  it('a terminal without bracketed paste: lines that arrive at once are one message too', async () => {
    project.server.enqueue(answer('one message'));
    const p = await startRepl();
    await p.paste('alpha\nbeta\ngamma', { bracketed: false }); // ends without a newline: it waits for Enter
    await p.waitFor('gamma');
    await p.keys(['Enter']);
    await settled(p, 'one message');
    expect(project.server.requests).toHaveLength(1);
    expect(userTexts(0)).toEqual([[{ type: 'text', text: 'alpha\nbeta\ngamma' }]]);
  }, TIMEOUT);

  it('a terminal without bracketed paste: one line and the start of the next, at once, are a paste too', async () => {
    project.server.enqueue(answer('both lines'));
    const p = await startRepl();
    await p.paste('first\nsecond', { bracketed: false });
    await p.waitFor((s) => lastLine(s) === '... second');
    await p.keys(['Enter']);
    await settled(p, 'both lines');
    expect(userTexts(0)).toEqual([[{ type: 'text', text: 'first\nsecond' }]]);
  }, TIMEOUT);

  it('a line that ends with \\ goes on on the next line', async () => {
    project.server.enqueue(answer('joined'));
    const p = await startRepl();
    await p.line('first part\\');
    await p.waitFor((s) => lastLine(s) === '...');
    await p.line('second part');
    await settled(p, 'joined');
    expect(userTexts(0)).toEqual([[{ type: 'text', text: 'first part\nsecond part' }]]);
  }, TIMEOUT);

  it('an empty line sends nothing and the REPL stays', async () => {
    project.server.enqueue(answer('still here'));
    const p = await startRepl();
    const prompts = (n: number) => (s: string) => s.split('\n').filter((l) => l === PROMPT).length === n;
    // One line at a time: two lines read in one chunk are a paste (one message), whatever the machine's load.
    await p.line('');
    await p.waitFor(prompts(2));
    await p.line('   ');
    await p.waitFor(prompts(3));
    expect(project.server.requests).toHaveLength(0);
    await p.line('hello');
    await settled(p, 'still here');
    expect(project.server.requests).toHaveLength(1);
  }, TIMEOUT);
});

describe('the REPL: a first question on the command line', () => {
  it('agentloop "q" asks q at once, then stays for the next question in the same conversation', async () => {
    project.server.enqueue(answer('first answer'), answer('second answer'));
    const p = await startRepl(['what is here?']);
    expect(await p.screen()).toContain(`${PROMPT} what is here?\nfirst answer`);
    expect(userTexts(0)).toEqual([[{ type: 'text', text: 'what is here?' }]]);
    await p.line('and then?');
    await settled(p, 'second answer');
    expect(userTexts(1).map((c) => (c as { text: string }[])[0]?.text)).toEqual(['what is here?', 'and then?']);
  }, TIMEOUT);
});

describe('the REPL: slash commands', () => {
  it('/help lists the commands; an unknown one gets one line; neither asks the model', async () => {
    const p = await startRepl();
    await p.line('/help');
    const help = await settled(p, 'twice quits'); // the help's last line
    for (const command of ['/help', '/clear', '/cost', '/state', '/exit']) expect(help).toContain(command);
    await p.line('/nope');
    const screen = await settled(p, 'unknown command');
    const after = screen.slice(screen.lastIndexOf(`${PROMPT} /nope`)).split('\n');
    expect(after).toEqual([`${PROMPT} /nope`, 'unknown command /nope: /help lists the commands', PROMPT]);
    expect(project.server.requests).toHaveLength(0);
  }, TIMEOUT);

  it("/cost prints the session's tokens and its cost from the price table", async () => {
    const model = 'claude-sonnet-4-5';
    const usage = { input_tokens: 1200, output_tokens: 345, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    project.server.enqueue({ ...answer('answer one'), usage }, { ...answer('answer two'), usage });
    const p = await startRepl([], { MODEL_ID: model });
    await p.line('/cost');
    await settled(p, '0 questions');
    await p.line('first');
    await settled(p, 'answer one');
    await p.line('second');
    await settled(p, 'answer two');
    await p.line('/cost');
    const screen = await p.waitFor((s) => s.includes('2 questions') && lastLine(s) === PROMPT);
    const cost = screen.slice(screen.lastIndexOf(`${PROMPT} /cost`));
    expect(cost).toContain('2 questions, 2 model calls');
    expect(cost).toContain('input   2,400 tokens');
    expect(cost).toContain('output  690 tokens');
    const expected = 2 * costOf({ ...usage }, model);
    expect(expected).toBeGreaterThan(0);
    expect(cost).toContain(`cost    $${expected.toFixed(4)}`);
    expect(project.server.requests).toHaveLength(2);
  }, TIMEOUT);

  it('/state shows the loop state of the last run next to the next request body', async () => {
    project.server.enqueue({ content: [bashUse('toolu_1', 'ls')], stop_reason: 'tool_use' }, answerFromResults);
    const p = await startRepl();
    await p.line('/state');
    await settled(p, 'no run yet');
    await p.line('list the files');
    await settled(p, 'Results:');
    await p.line('/state');
    const screen = await settled(p, 'next request body');
    const state = screen.slice(screen.lastIndexOf(`${PROMPT} /state`));
    expect(state).toMatch(/state +done/);
    expect(state).toMatch(/turnCount +2/);
    expect(state).toMatch(/exitReason +completed/);
    expect(state).toMatch(/stopReason +end_turn/);
    expect(state).toMatch(/messages +4\b/);
    expect(state).toMatch(/model +claude-test/);
    expect(state).toMatch(/tools +bash/);
    expect(state).toContain('messages    4 + 1: user, assistant, user(tool_result), assistant, user');
    // What it says the body holds is what the last request held, less the next question.
    const body = project.server.requests[1]?.body;
    expect(body?.tools?.map((t) => ('name' in t ? t.name : t.type))).toEqual(['bash', 'Read', 'Write', 'Edit']);
    expect(state).toMatch(new RegExp(`max_tokens +${body?.max_tokens}`));
    expect(project.server.requests).toHaveLength(2);
  }, TIMEOUT);

  it('/clear starts a new session: the next question is asked alone, in a new transcript', async () => {
    project.server.enqueue(answer('first answer'), answer('second answer'));
    const p = await startRepl();
    await p.line('first question');
    await settled(p, 'first answer');
    const [first] = listSessions(project.home);
    expect(first).toBeDefined();
    await p.line('/clear');
    await settled(p, 'New session');
    await p.line('second question');
    await settled(p, 'second answer');
    const sessions = listSessions(project.home);
    expect(sessions).toHaveLength(2);
    expect(new Set(sessions.map((s) => s.id)).size).toBe(2);
    expect(sessions.map((s) => s.id)).toContain(first?.id);
    expect(userTexts(1)).toEqual([[{ type: 'text', text: 'second question' }]]);
  }, TIMEOUT);
});

describe('the REPL: output', () => {
  it('a thinking line shows while the model is silent and is gone before the answer', async () => {
    // A model slow to its first byte: the whole reply comes 2.5 s after the request.
    await project.close();
    project = await openCliProject('repl', { server: { framePause: (_frame, i) => (i === 0 ? 2500 : 0) } });
    project.server.enqueue(answer('a slow answer'));
    const p = await startRepl();
    await p.line('take your time');
    await p.waitFor((s) => /thinking \d+\.\ds$/.test(lastLine(s) ?? ''));
    const screen = await settled(p, 'a slow answer');
    expect(screen).not.toMatch(SPINNER);
  }, TIMEOUT);

  it("the model's text of a tool-calling turn is shown, before the tool call", async () => {
    project.server.enqueue(
      { content: [{ type: 'text', text: 'Let me look at the files.' }, bashUse('toolu_1', 'ls')], stop_reason: 'tool_use' },
      answerFromResults,
    );
    const p = await startRepl();
    await p.line('what is here?');
    const screen = await settled(p, 'Results:');
    const lines = screen.split('\n');
    const said = lines.indexOf('Let me look at the files.');
    expect(said).toBeGreaterThan(0);
    expect(lines.findIndex((l) => l.includes('$ ls'))).toBeGreaterThan(said);
    expect(screen).not.toMatch(SPINNER);
  }, TIMEOUT);
});

describe('the REPL: quitting', () => {
  it('/exit: the last line is clean and the terminal is back in its modes', async () => {
    const p = await startRepl();
    await p.line('/exit');
    const screen = await p.waitFor('[modes');
    expect(screen.split('\n').slice(-3)).toEqual([`${PROMPT} /exit`, '[exit 0]', '[modes icanon echo ]']);
    await p.paste('typed after');
    await p.keys(['Enter']);
    const after = await p.waitFor((s) => s.split('\n').filter((l) => l.includes('typed after')).length === 2);
    expect(after).not.toContain('^[[200~'); // bracketed paste was turned off
  }, TIMEOUT);

  it('Ctrl-D prints a newline: the shell goes on on a line of its own', async () => {
    const p = await startRepl();
    await p.keys(['C-d']);
    const screen = await p.waitFor('[modes');
    expect(screen.split('\n').slice(-3)).toEqual([PROMPT, '[exit 0]', '[modes icanon echo ]']);
  }, TIMEOUT);

  it('Ctrl-C at the prompt drops the message being written', async () => {
    project.server.enqueue(answer('fresh answer'));
    const p = await startRepl();
    await p.line('half a thought\\');
    await p.waitFor((s) => lastLine(s) === '...');
    await p.keys(['typed, then dropped'], { literal: true });
    await p.keys(['C-c']);
    await p.waitFor((s) => s.includes('press Ctrl-C again to quit') && lastLine(s) === PROMPT);
    await p.line('fresh start');
    await settled(p, 'fresh answer');
    expect(userTexts(0)).toEqual([[{ type: 'text', text: 'fresh start' }]]);
  }, TIMEOUT);

  it('Ctrl-C stops a run; at the prompt it warns once and quits the second time', async () => {
    project.server.enqueue({ ...answer('never finished'), delayMs: 5_000 });
    const p = await startRepl();
    await p.line('a long one');
    await p.waitFor('thinking');
    await p.keys(['C-c']);
    const stopped = await p.waitFor((s) => lastLine(s) === PROMPT && s.includes('a long one') && !s.includes('never finished'));
    expect(stopped).not.toMatch(SPINNER);
    await p.keys(['C-c']);
    await p.waitFor('press Ctrl-C again to quit');
    await p.keys(['C-c']);
    const screen = await p.waitFor('[modes');
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toContain('never finished');
  }, TIMEOUT);
});
