/**
 * The commands agentloop prints for the user to run next, run AS PRINTED, the way a user would after the README's
 * install: `npm ci` in the checkout, then `node dist/cli/main.js …` from it (nothing puts `agentloop` on the PATH).
 * Each first command runs as the README writes it, through sh in the checkout, in an environment of PATH (with no
 * `agentloop` on it), HOME and AGENTLOOP_HOME only; each hint is taken out of its real output and run through sh from
 * another directory, as pasted: it works (exit 0 and what it promises). The viewer's page offers one too (an empty
 * home: "run … -p" first), read in Chromium and run against the local Messages API server.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCheckedServer } from '../support/agentServer.js';
import { hint, hintUser, README, ROOT, sh as shIn, type Ran } from '../support/hints.js';

let dir: string;
let elsewhere: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  ({ dir, elsewhere, env } = hintUser('hints'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A key and a model, so that a run gets past its settings (to a server that is not there: nothing is sent). */
const KEYED = { ANTHROPIC_API_KEY: 'sk-ant-hints', MODEL_ID: 'claude-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };

/** `line` through sh in `cwd`, stdin empty. */
const sh = (line: string, cwd: string, more: Record<string, string> = {}): Promise<Ran> => shIn(line, cwd, { ...env, ...more });

/** The hint run as printed, from another directory. */
const runHint = (line: string) => sh(line, elsewhere);

describe('the commands agentloop prints, run as printed after the README’s install', () => {
  it('"see … --help" after a bad flag, a command’s bad flag and -p without a prompt prints that help', { timeout: 60_000 }, async () => {
    const cases = [
      { line: `${README} --bogus`, usage: /^Usage: agentloop \[options\]/m },
      { line: `${README} sessions --bogus`, usage: /^Usage: agentloop sessions/m },
      { line: `${README} -p`, usage: /^Usage: agentloop \[options\]/m },
    ];
    for (const { line, usage } of cases) {
      const bad = await sh(line, ROOT, KEYED);
      expect(bad.code, line).toBe(2);
      const help = await runHint(hint(bad.stderr, /^see (.+ --help)$/m));
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(usage);
    }
    // A command's help points to the whole help, which runs as printed too.
    const sessionsHelp = await sh(`${README} sessions --help`, ROOT);
    const whole = await runHint(hint(sessionsHelp.stdout, /^see (.+ --help) for the other commands$/m));
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toMatch(/^Usage: agentloop \[options\]/m);
  });

  // --continue where no session is starts one, as Claude Code does (4202021): the hint to list the sessions is --resume's.
  it('"see … sessions" after --resume with no id lists the sessions', { timeout: 60_000 }, async () => {
    const demo = await sh(`${README} --demo`, ROOT);
    expect(demo.code, demo.stderr).toBe(0);
    const bad = await sh(`${README} --cwd ${elsewhere} --resume "" -p "go on"`, ROOT, KEYED);
    expect(bad.code).toBe(2);
    const listed = await runHint(hint(bad.stderr, /\(a session id: see (.+ sessions)\)/));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/\[demo\]/);
  });

  it('"run `… --demo` to try it offline" without a key runs the demo', { timeout: 60_000 }, async () => {
    const bad = await sh(`${README} -p "list the files"`, ROOT);
    expect(bad.code).not.toBe(0);
    const demo = await runHint(hint(bad.stderr, /or run `(.+ --demo)` to try it offline/));
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/^The working directory (is empty|has \d+ entr)/m);
  });

  it('"see … --demo --mistake list" after an unknown mistake lists the mistakes, naming how to run one as printed', { timeout: 60_000 }, async () => {
    const bad = await sh(`${README} --demo --mistake forget-everything`, ROOT);
    expect(bad.code).toBe(2);
    const list = await runHint(hint(bad.stderr, /see (.+ --demo --mistake list)$/m));
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^ {2}forget-tool-result +\S/m);
    const pattern = hint(list.stdout, /^The mistakes (.+) --demo --mistake NAME can make/);
    const one = await runHint(`${pattern} --demo --mistake forget-tool-result`);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^Mistake forget-tool-result:/);
  });

  it('"… view --compare A B" after a mistake serves both sessions', { timeout: 90_000 }, async () => {
    const run = await sh(`${README} --demo --mistake forget-tool-result`, ROOT);
    expect(run.code, run.stderr).toBe(0);
    const line = hint(run.stdout, /^ {2}(.+ view --compare \S+ \S+)$/m);
    const viewer = spawn('sh', ['-c', `exec ${line}`], { cwd: elsewhere, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    viewer.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const ended = new Promise<number | null>((resolve) => viewer.on('close', resolve));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        viewer.stdout.on('data', () => {
          const found = /^(http:\/\/127\.0\.0\.1:\d+\/\S+)$/m.exec(out)?.[1];
          if (found) resolve(new URL(found));
        });
        void ended.then((code) => reject(new Error(`the viewer ended (${code}) before printing its URL: ${out}`)));
      });
      const [a, b] = line.split(' ').slice(-2);
      expect(url.searchParams.get('compare')).toBe(`${a},${b}`);
      expect((await fetch(url)).status).toBe(200);
    } finally {
      viewer.kill('SIGINT');
      await ended;
    }
  });

  it('the viewer’s page with no session offers "run … -p": run as printed, it records the session the page then shows', { timeout: 120_000 }, async () => {
    const home = join(dir, 'empty-home');
    const viewer = spawn('sh', ['-c', `exec ${README} view`], { cwd: ROOT, env: { ...env, AGENTLOOP_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    viewer.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const ended = new Promise<number | null>((resolve) => viewer.on('close', resolve));
    const server = await startCheckedServer();
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        // The URL may have been printed while the server and the browser started: look at what came, then at what comes.
        const look = (): void => {
          const found = /^(http:\/\/127\.0\.0\.1:\d+\/\S+)$/m.exec(out)?.[1];
          if (found) resolve(found);
        };
        look();
        viewer.stdout.on('data', look);
        void ended.then((code) => reject(new Error(`the viewer ended (${code}) before printing its URL: ${out}`)));
      });
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForSelector('body[data-loaded="true"]');
      const said = (await page.getByTestId('no-session').textContent()) ?? '';
      const command = hint(said, /^No session recorded yet: run (.+) -p "\.\.\." first\.$/);
      server.enqueue({ content: [{ type: 'text', text: 'hello from the model' }], stop_reason: 'end_turn' });
      const run = await sh(`${command} -p "say hello"`, elsewhere, { ...KEYED, ANTHROPIC_BASE_URL: server.url, AGENTLOOP_HOME: home });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('hello from the model');
      await page.reload();
      await page.waitForSelector('body[data-loaded="true"]');
      expect(await page.getByTestId('no-session').count()).toBe(0);
      expect(await page.getByTestId('messages').textContent()).toContain('say hello');
    } finally {
      await browser.close();
      await server.close();
      viewer.kill('SIGINT');
      await ended;
    }
  });
});
