/**
 * The first command of a fresh agent process waits for no helper process (issue 40): where an earlier process of the
 * same user kept the containment probe's verdict (tools/bash/run/verdict.ts) and left FIFOs unused (spares.ts), the
 * bash tool's `prepare` and first command, called back to back as when a reply's first block is a tool call, start
 * one process: the command's (no `mkfifo`, no bwrap probe, no warm-up run). Spares are taken by one process each, and
 * what in a spare folder is not a FIFO is passed over. As root and as nobody (test/support/users.ts), each agent a fresh
 * process of that user on the built tool (dist/).
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testUsers, type TestUser } from '../../support/users.js';

const DIST_BASH = JSON.stringify(fileURLToPath(new URL('../../../dist/tools/bash/bashTool.js', import.meta.url)));

/** An agent: the tool's prepare, then at once one command (argv[1]); prints what it spawned (under the lifeline's watcher: the program) and the result. */
const AGENT = `
import { ChildProcess } from 'node:child_process';
import { createBashTool } from ${DIST_BASH};
const proto = ChildProcess.prototype;
const original = proto.spawn;
const spawned = [];
proto.spawn = function (options) {
  let argv = [options.file, ...options.args.slice(1)];
  if (options.file === '/bin/sh' && argv[1] === '-c' && argv[3] === 'sh') argv = argv.slice(4);
  spawned.push(argv.join(' '));
  return original.call(this, options);
};
const tool = createBashTool();
tool.prepare();
const result = await tool.run({ command: process.argv[1] }, { cwd: '/', signal: new AbortController().signal });
process.stdout.write(JSON.stringify({ spawned, content: result.content }));`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-first-command-'));
  chmodSync(dir, 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setUp(user: TestUser) {
  const runtime = join(dir, 'run');
  const temporary = join(dir, 'tmp');
  for (const path of [runtime, temporary]) {
    mkdirSync(path);
    chmodSync(path, 0o700);
    if (user.owner !== undefined) chownSync(path, 65534, 65534);
  }
  const env = { PATH: process.env.PATH, HOME: '/nonexistent', XDG_RUNTIME_DIR: runtime, TMPDIR: temporary };
  const agent = (command: string) =>
    new Promise<{ spawned: string[]; content: string }>((resolve, reject) => {
      const argv = [...user.prefix, process.execPath, '--input-type=module', '-e', AGENT, command];
      const child = spawn(argv[0] as string, argv.slice(1), { cwd: '/', env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the agent failed (${code}): ${err}`))));
    });
  return { agent, kept: join(runtime, 'agentloop') };
}

const helpers = (spawned: string[]) => spawned.filter((s) => s.startsWith('mkfifo') || s.endsWith(' -c true') || s === 'true');

describe('the first command of a fresh process', () => {
  for (const user of testUsers()) {
    describe.skipIf(user.skip !== undefined)(`as ${user.name}${user.skip ? ` (${user.skip})` : ''}`, () => {
      it('starts no helper process before it once an earlier process of the user kept the verdict and left FIFOs', { timeout: 60_000 }, async () => {
        const u = setUp(user);
        const first = await u.agent('echo first');
        expect(first.content).toBe('first');
        expect(helpers(first.spawned).length).toBeGreaterThan(0); // a mkfifo, and the probe where bwrap is
        const second = await u.agent('echo second');
        expect(second).toEqual({ spawned: [expect.stringMatching(/ -c echo second$/)], content: 'second' });
      });

      it('a spare is taken by one process; what is not a FIFO in it is passed over', { timeout: 60_000 }, async () => {
        const u = setUp(user);
        await u.agent('echo left');
        const runs = await Promise.all(['a', 'b', 'c'].map((name) => u.agent(`echo run-${name}`)));
        expect(runs.map((r) => r.content)).toEqual(['run-a', 'run-b', 'run-c']);
        // Regular files in place of FIFOs (the same user could put them there): no command writes to them.
        const spare = join(u.kept, 'agentloop-spare-planted');
        mkdirSync(spare);
        for (let i = 0; i < 30; i++) writeFileSync(join(spare, `out${i}`), '');
        if (user.owner !== undefined) for (const p of [spare, ...readdirSync(spare).map((f) => join(spare, f))]) chownSync(p, 65534, 65534);
        for (const other of readdirSync(u.kept).filter((f) => f.startsWith('agentloop-spare-') && f !== 'agentloop-spare-planted')) {
          rmSync(join(u.kept, other), { recursive: true });
        }
        const witness = join(dir, 'witness');
        mkdirSync(witness);
        for (const f of readdirSync(spare)) linkSync(join(spare, f), join(witness, f)); // what the files hold after they are unlinked
        const planted = await u.agent('echo not-in-a-file');
        expect(planted.content).toBe('not-in-a-file');
        expect(existsSync(spare)).toBe(false); // claimed
        expect(readdirSync(witness).map((f) => readFileSync(join(witness, f), 'utf8')).join('')).toBe('');
      });
    });
  }
});
