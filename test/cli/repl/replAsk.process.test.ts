/**
 * The REPL asks before a call the permission mode would not run, as Claude Code's does (docs/cli.md, "The REPL asks"):
 * the real CLI in a pseudo-terminal (tmux) against the local Messages API server (which refuses an invalid history).
 * Each choice by its key: 1 allows once, 2 allows the rule shown for the rest of the session, 3 denies with a reason
 * the model gets in an is_error result bound to its tool_use. A read-only command is not asked about; the command
 * shown in the question has its escape sequences made visible. This is the REPL with no flag (mode default); the
 * bypass flags keep every call running unasked. And the chapter's three try-this prompts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerFromResults, bashUse, lastToolResults, resultText } from '../../support/agentServer.js';
import { CLI, RUN_EVERYTHING } from '../../support/cli.js';
import type { RequestBody } from '../../support/messagesServer.js';
import { openCliProject, type CliProject } from '../../support/project.js';
import { openTmux, shellQuote, type TmuxPane } from '../../support/tmux.js';

// Each wait polls for at most 15 s (TmuxPane.waitFor); a test gets 60 s in all, its tmux server killed after it.
const TIMEOUT = 60_000;
const PROMPT = 'agentloop >>';

let project: CliProject;
let pane: TmuxPane | undefined;

beforeEach(async () => {
  project = await openCliProject('repl-ask', { files: { 'notes.txt': 'n', 'main.py': 'print(1)' } });
});
afterEach(async () => {
  await pane?.close();
  pane = undefined;
  expect(project.server.violations).toEqual([]);
  await project.close();
});

/** The REPL as a user starts it, with no flag: mode default, Claude Code's (docs/cli.md, "Which entry point runs what"). */
async function startRepl(...flags: string[]): Promise<TmuxPane> {
  const cli = [process.execPath, CLI, ...flags].map(shellQuote).join(' ');
  pane = await openTmux(`${cli}; echo "[exit $?]"; sleep 60`, { cwd: project.dir, env: project.env });
  await pane.waitFor((s) => s.split('\n').at(-1) === PROMPT);
  return pane;
}

const lastLine = (screen: string) => screen.split('\n').at(-1);
const file = (name: string) => existsSync(join(project.dir, name));
/** The model runs `command` (id `id`), then answers with the results it got. */
const asks = (command: string, id = 'toolu_1') => project.server.enqueue({ content: [bashUse(id, command)], stop_reason: 'tool_use' }, answerFromResults);
const results = (request: number) => lastToolResults(project.server.requests[request]?.body as RequestBody);
const questions = (screen: string) => screen.split('\n').filter((line) => line.startsWith('Allow ')).length;
/** Waits for the question's choices line: the question has been asked. */
const asked = (p: TmuxPane, n = 1) => p.waitFor((s) => questions(s) === n && /^\[1\/2\/3\]$/.test(lastLine(s) ?? ''));
const settled = (p: TmuxPane, marker: string) => p.waitFor((s) => s.includes(marker) && lastLine(s) === PROMPT);

describe('the REPL asks before a call Claude Code would ask about', () => {
  it('1: yes, once: the call runs; the next such call is asked again', async () => {
    asks('touch made.txt');
    asks('touch again.txt', 'toolu_2');
    const p = await startRepl();
    await p.line('make a file');
    const screen = await asked(p);
    expect(screen).toContain('Allow $ touch made.txt ?');
    expect(screen).toContain("  2  yes, and don't ask again for Bash(touch made.txt) in this project");
    await p.keys(['1'], { literal: true }); // one key, no Enter
    await settled(p, 'Results:');
    expect(file('made.txt')).toBe(true);
    expect(results(1)[0]).toMatchObject({ tool_use_id: 'toolu_1' });
    expect(results(1)[0]?.is_error ?? false).toBe(false);
    await p.line('another');
    await asked(p, 2);
    expect(file('again.txt')).toBe(false);
    await p.keys(['1'], { literal: true });
    await p.waitFor(() => file('again.txt'));
  }, TIMEOUT);

  it('2: yes, and the rule shown is allowed from now on and saved in .claude/settings.local.json, as Claude Code saves it; /permissions lists it', async () => {
    // Claude Code 2.1.197's rule for `touch made.txt` is that very command (test/permissions/claudeSuggestions.json).
    asks('touch made.txt');
    asks('touch made.txt', 'toolu_2');
    const p = await startRepl();
    await p.line('make a file');
    await asked(p);
    await p.keys(['2'], { literal: true });
    await settled(p, 'Results:');
    expect(await p.screen()).toContain('Bash(touch made.txt) is allowed from now on in this project (saved in .claude/settings.local.json).');
    expect(JSON.parse(readFileSync(join(project.dir, '.claude', 'settings.local.json'), 'utf8'))).toEqual({ permissions: { allow: ['Bash(touch made.txt)'] } });
    expect(file('made.txt')).toBe(true);
    rmSync(join(project.dir, 'made.txt'));
    await p.line('another');
    await p.waitFor((s) => s.split('\n').filter((l) => l.startsWith('Results:')).length === 2 && lastLine(s) === PROMPT);
    expect(file('made.txt')).toBe(true);
    expect(questions(await p.screen())).toBe(1);
    await p.line('/permissions');
    const listed = await p.waitFor((s) => s.includes('allow rules:') && lastLine(s) === PROMPT);
    expect(listed).toContain('Permission mode: default');
    expect(listed).toContain('  Bash(touch made.txt)  (local settings)');
  }, TIMEOUT);

  it('3: no, with a reason: the call never runs; the model gets an is_error result bound to its tool_use, with the reason', async () => {
    asks('rm notes.txt');
    const p = await startRepl();
    await p.line('clean up');
    await asked(p);
    await p.keys(['3'], { literal: true });
    await p.waitFor((s) => lastLine(s) === 'Why (for the model; Enter for no reason):');
    await p.line('keep the notes');
    await settled(p, 'Results:');
    expect(file('notes.txt')).toBe(true);
    expect(results(1)).toEqual([
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true }),
    ]);
    expect(resultText(results(1)[0]!)).toBe('Not run: the user denied this call in the terminal and said: keep the notes');
  }, TIMEOUT);

  it('a read-only command runs unasked; the question shows a command\'s escape sequences, never runs them', async () => {
    asks('cat notes.txt');
    asks('touch x.txt # \x1b]0;PWNED\x07\x1b[2J', 'toolu_2'); // a title and a screen clear, raw
    const p = await startRepl();
    const title = await p.show('#{pane_title}');
    await p.line('read');
    await settled(p, 'Results: n');
    expect(questions(await p.screen())).toBe(0);
    await p.line('now write');
    const screen = await asked(p);
    expect(screen).toContain('Allow $ touch x.txt # ^[]0;PWNED^G^[[2J ?');
    expect(screen).toContain("  2  yes, and don't ask again for Bash(touch x.txt # ^[]0;PWNED^G^[[2J) in this project");
    expect(await p.show('#{pane_title}')).toBe(title);
    await p.keys(['3\r'], { literal: true }); // "3" and Enter in one write, as a quick typist sends them: no reason
    await settled(p, 'Results:');
    expect(file('x.txt')).toBe(false);
    expect(resultText(results(3)[0]!)).toBe('Not run: the user denied this call in the terminal');
  }, TIMEOUT);
});

describe('the bypass flags keep every call running unasked in the REPL', () => {
  it.each([RUN_EVERYTHING, '--permission-mode bypassPermissions'])('%s: touch and rm run, no question', async (flags) => {
    asks('touch made.txt && rm notes.txt');
    const p = await startRepl(...flags.split(' '));
    await p.line('make a file, remove the notes');
    await settled(p, 'Results:');
    expect(file('made.txt')).toBe(true);
    expect(file('notes.txt')).toBe(false);
    expect(questions(await p.screen())).toBe(0);
  }, TIMEOUT);
});

describe("the chapter's three try-this prompts, in the REPL", () => {
  it('hello.py is asked about and made once allowed; listing the Python files and the git branch run unasked', async () => {
    asks(`printf 'print("Hello, World!")\\n' > hello.py`);
    asks('ls *.py', 'toolu_2');
    asks('git branch --show-current', 'toolu_3');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project.dir });
    const p = await startRepl();
    await p.line('创建一个叫 hello.py 的文件，打印 "Hello, World!"');
    await asked(p);
    await p.keys(['1'], { literal: true });
    await settled(p, 'Results:');
    expect(file('hello.py')).toBe(true);
    await p.line('列出当前目录里所有的 Python 文件');
    await p.waitFor((s) => s.includes('hello.py') && s.includes('main.py') && lastLine(s) === PROMPT);
    await p.line('当前的 git 分支是什么？');
    await p.waitFor((s) => s.split('\n').filter((l) => l.startsWith('Results:')).length === 3 && lastLine(s) === PROMPT);
    expect(questions(await p.screen())).toBe(1);
    expect(resultText(results(5)[0]!)).toBe('main');
  }, TIMEOUT);
});
