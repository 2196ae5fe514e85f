/**
 * `--sandbox` hides what is not the task's, tried for real with bubblewrap (issue 12, item 5):
 * each credential file, the agent's home, the .env files and each unix socket outside the working
 * directory is reachable without the sandbox (the control) and not with it, while the task's own
 * files and socket stay reachable. First through the bash tool (test/support/bashAs.ts), then through the
 * CLI as a process, each as this user and, when this is root, as an unprivileged one (`nobody`).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bashToolAs, handTo, type BashAs } from '../../support/bashAs.js';
import { lastToolResults, resultText, startCheckedServer } from '../../support/agentServer.js';
import { CLI, cliEnv, RUN_EVERYTHING, type CliRun } from '../../support/cli.js';
import { testUsers } from '../../support/users.js';
import { context } from './bashHelpers.js';
import { makeSandboxFixture, type Probe, type SandboxFixture } from './sandboxFixture.js';

// These tests need bubblewrap (Debian package `bubblewrap`); CI installs it.
// 90 s: nobody's first case starts nobody's process (seconds on a loaded machine); a bound only against hanging.
describe.each(testUsers())('the bash tool with the sandbox, as $name', { timeout: 90_000 }, (user) => {
  let fx: SandboxFixture;
  let env: Record<string, string | undefined>;
  let inside: BashAs;
  let outside: BashAs;
  const tools: BashAs[] = [];
  /** A tool of `user`'s (test/support/bashAs.ts: for nobody, in a process of nobody's own), closed after the file. */
  const toolOf = (options: Parameters<typeof bashToolAs>[1]) => {
    const tool = bashToolAs(user, options);
    tools.push(tool);
    return tool;
  };
  beforeAll(async () => {
    if (user.skip !== undefined) return;
    fx = await makeSandboxFixture(user.owner);
    env = { ...(user.prefix.length === 0 ? process.env : { PATH: process.env.PATH }), ...fx.env };
    inside = toolOf({ sandbox: true, env });
    outside = toolOf({ env });
  });
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
  });
  afterAll(async () => {
    for (const tool of tools.splice(0)) tool.close();
    await fx?.close();
  });

  const run = async (tool: BashAs, command: string) => (await tool.run({ command }, context(fx.cwd))).content;

  // Some 30 commands one after another each: ~10 s on a loaded machine.
  it('hides each credential, the agent home and the .env files, which are readable without it', { timeout: 90_000 }, async () => {
    for (const probe of fx.secrets) {
      expect(await run(outside, probe.command), `control: ${probe.name}`).toContain(probe.marker);
      expect(await run(inside, probe.command), probe.name).not.toContain(probe.marker);
    }
  });

  it('refuses each unix socket outside the working directory, which answers without it', { timeout: 90_000 }, async () => {
    for (const probe of fx.sockets) {
      expect(await run(outside, probe.command), `control: ${probe.name}`).toContain(probe.marker);
      const seen = await run(inside, probe.command);
      expect(seen, probe.name).not.toContain(probe.marker);
      expect(seen, probe.name).toMatch(/^(ENOENT|ECONNREFUSED|EACCES)$/);
    }
  });

  it("leaves the task's files, its socket and ordinary home files reachable, and the working directory writable", async () => {
    for (const probe of fx.visible) expect(await run(inside, probe.command), probe.name).toContain(probe.marker);
    expect(await run(inside, 'echo made > made.txt && cat made.txt && cp .env.example copy && wc -c < copy')).toMatch(/^made\n\d+$/);
    expect(readFileSync(join(fx.cwd, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('works in a working directory that lies in a hidden folder, the rest of which stays hidden', async () => {
    const project = join(fx.home, '.config', 'tool');
    mkdirSync(project, { recursive: true });
    handTo(user, project);
    const hosts = probeNamed(fx.secrets, '~/.config/gh/hosts.yml');
    const out = (await inside.run({ command: `echo ok > made.txt && cat made.txt && ${hosts.command} 2>&1; true` }, context(project))).content;
    expect(out).toMatch(/^ok\n/);
    expect(out).not.toContain(hosts.marker);
    expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('ok\n');
  });

  it('shows hidden folders empty and read-only, hidden files empty, and nothing written there reaches them', async () => {
    const before = readFileSync(join(fx.cwd, '.env'), 'utf8');
    const out = await run(
      inside,
      'ls -A ~/.ssh | wc -l; wc -c < ~/.netrc; wc -c < .env; touch ~/.ssh/new 2>&1; echo x >> .env 2>&1; echo x >> ~/.netrc 2>&1; true',
    );
    expect(out.split('\n').slice(0, 3)).toEqual(['0', '0', '0']);
    expect(out).toMatch(/\.ssh\/new'?: Read-only file system/);
    expect(out).toMatch(/\.env: (Read-only file system|Permission denied)/);
    expect(readFileSync(join(fx.cwd, '.env'), 'utf8')).toBe(before);
    expect(existsSync(join(fx.home, '.ssh/new'))).toBe(false);
  });

  it('cannot take a hiding mount away, not even from a user namespace of its own', async () => {
    const ssh = probeNamed(fx.secrets, '~/.ssh/id_rsa');
    const out = await run(inside, `umount ~/.ssh 2>&1; umount -l ~/.ssh 2>&1; unshare -Urm sh -c "umount -l ~/.ssh; ${ssh.command}" 2>&1; ${ssh.command} 2>&1; true`);
    expect(out).not.toContain(ssh.marker);
  });

  it('as root: /etc/shadow, which root reads without the sandbox, is empty', async (ctx) => {
    if (user.prefix.length > 0 || process.getuid?.() !== 0) ctx.skip('only root can read /etc/shadow, with or without the sandbox');
    expect((await run(outside, 'wc -c < /etc/shadow')).trim()).not.toBe('0');
    expect((await run(inside, 'wc -c < /etc/shadow')).trim()).toBe('0');
  });

  it('still runs programs from a PATH folder in /tmp, and reads the saved output of a long command', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'agentloop-bin-'));
    try {
      writeFileSync(join(bin, 'agentloop-hello'), '#!/bin/sh\necho hello from tmp\n', { mode: 0o755 });
      handTo(user, bin);
      const tool = toolOf({ sandbox: true, maxOutputChars: 1000, env: { ...env, PATH: `${bin}:${env.PATH ?? ''}` } });
      expect(await run(tool, 'agentloop-hello')).toBe('hello from tmp');
      const long = await run(tool, 'seq 1 5000');
      const saved = /the full output is in (\S+)\]/.exec(long)?.[1] as string;
      expect(saved.startsWith(tmpdir())).toBe(true); // a private /tmp would hide it
      expect(await run(tool, `tail -n 1 '${saved}'`)).toBe('5000');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

/** How to run a program as the unprivileged user, or why it cannot be done here. */
function unprivileged(): { prefix: string[]; owner: string } | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'this user is not root: the cases above already ran unprivileged' };
  const prefix = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'];
  const tried = spawnSync(prefix[0] as string, [...prefix.slice(1), 'bwrap', '--ro-bind', '/', '/', '--unshare-pid', '--unshare-net', '--', 'true'], {
    encoding: 'utf8',
    cwd: '/',
  });
  if (tried.error !== undefined) return { skip: `cannot run as nobody (${tried.error.message})` };
  if (tried.status !== 0) {
    return { skip: `bwrap does not work unprivileged here (no user namespaces for nobody?): ${tried.stderr.trim()}` };
  }
  const reads = spawnSync(prefix[0] as string, [...prefix.slice(1), 'test', '-r', CLI], { cwd: '/' });
  if (reads.status !== 0) return { skip: `nobody cannot read the checkout's ${CLI} (a folder on its path is private to its owner)` };
  return { prefix, owner: 'nobody:nogroup' };
}

const users = [
  { user: 'this user', prefix: [] as string[], owner: undefined as string | undefined, skip: undefined as string | undefined },
  (() => {
    const how = unprivileged();
    return 'skip' in how
      ? { user: 'an unprivileged user (nobody)', prefix: [], owner: undefined, skip: how.skip }
      : { user: 'an unprivileged user (nobody)', ...how, skip: undefined };
  })(),
];

describe.each(users)('agentloop -p --sandbox as $user', ({ prefix, owner, skip }) => {
  let fx: SandboxFixture;
  beforeAll(async () => {
    if (skip === undefined) fx = await makeSandboxFixture(owner);
  });
  afterAll(() => fx?.close());

  /** Runs the CLI with one turn that tries every probe; returns what each command showed. */
  async function tryAll(probes: Probe[], flags: string[]): Promise<string[]> {
    const server = await startCheckedServer();
    try {
      server.enqueue(
        { content: probes.map((p, i) => ({ type: 'tool_use' as const, id: `toolu_${i}`, name: 'bash', input: { command: p.command } })), stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      const env = cliEnv({ ...fx.env, ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test' });
      // Every probe must run, with --sandbox and without: not a test of the permission default.
      const run = await runAs(prefix, ['-p', `try everything ${marker}`, ...flags, RUN_EVERYTHING], fx.cwd, env);
      expect(run.code, run.stderr).toBe(0);
      return lastToolResults(server.requests[1]?.body as never).map(resultText);
    } finally {
      await server.close();
    }
  }

  const marker = `prompt-${randomUUID().slice(0, 8)}`;
  // The running session's transcript holds the prompt (with the marker) before any command runs.
  const transcript = (): Probe => ({ name: "the running session's transcript", command: `cat "$AGENTLOOP_HOME"/sessions/*.jsonl`, marker });

  it('hides every secret and socket, which the same commands reach without --sandbox; the task stays reachable', { timeout: 90_000 }, async (ctx) => {
    if (skip !== undefined) ctx.skip(skip);
    // The key comes from the working directory's .env, as a user would keep it.
    writeFileSync(join(fx.cwd, '.env'), `ANTHROPIC_API_KEY=sk-ant-test-${randomUUID()}\n${probeNamed(fx.secrets, '.env in the working directory (the key)').marker}\n`);
    if (owner !== undefined) execFileSync('chown', [owner, join(fx.cwd, '.env')]);
    const hidden = [...fx.secrets, ...fx.sockets, transcript()];
    const control = await tryAll(hidden, []);
    for (const [i, probe] of hidden.entries()) expect(control[i], `control: ${probe.name}; all: ${JSON.stringify(control)}`).toContain(probe.marker);

    const sandboxed = await tryAll([...hidden, ...fx.visible, { name: 'who', command: 'id -un', marker: '' }], ['--sandbox']);
    for (const [i, probe] of hidden.entries()) expect(sandboxed[i], probe.name).not.toContain(probe.marker);
    for (const [i, probe] of fx.visible.entries()) expect(sandboxed[hidden.length + i], probe.name).toContain(probe.marker);
    expect(sandboxed.at(-1)).toBe(owner === undefined ? execFileSync('id', ['-un'], { encoding: 'utf8' }).trim() : 'nobody');
  });
});

function probeNamed(probes: Probe[], name: string): Probe {
  const probe = probes.find((p) => p.name === name);
  if (probe === undefined) throw new Error(`no probe named ${name}`);
  return probe;
}

function runAs(prefix: string[], args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const [file, ...rest] = [...prefix, process.execPath, CLI, ...args] as [string, ...string[]];
  const child = spawn(file, rest, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}
