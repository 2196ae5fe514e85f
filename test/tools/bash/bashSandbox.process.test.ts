/**
 * The sandbox's confinement (--sandbox), each case as root and again as nobody (test/support/bashAs.ts: the tool in a
 * process of nobody's own, the folders nobody's, so that only the sandbox stands in the way of each attempt).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool, SandboxUnavailableError } from '../../../src/tools/bash/bashTool.js';
import { bashToolAs, handTo } from '../../support/bashAs.js';
import { scratchDir } from '../../support/scratch.js';
import { testUsers } from '../../support/users.js';
import { context, killMarked, liveWithMarker, makeTempDir, uniqueSleep, waitUntilEmpty } from './bashHelpers.js';

// These tests need bubblewrap (Debian package `bubblewrap`); CI installs it.
let dir: string;
let cleanup: () => void;
let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.end('hello from outside\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
  connections = 0;
});

afterEach(() => cleanup());

// bash's /dev/tcp: connect, then read the greeting.
const connect = (p: number): string => `exec 3<>/dev/tcp/127.0.0.1/${p} && head -n 1 <&3`;

describe('bash tool: sandbox', () => {
  it('says the sandbox is on in the description', () => {
    expect(createBashTool({ sandbox: true }).description).toMatch(/Sandboxed/);
  });

  it('fails at creation, naming the package, when bwrap is missing', () => {
    const create = () => createBashTool({ sandbox: true, env: { PATH: '/nonexistent' } });
    expect(create).toThrow(SandboxUnavailableError);
    expect(create).toThrow(/bubblewrap/);
  });
});

// 90 s: nobody's first case starts nobody's process (seconds on a loaded machine); a bound only against hanging.
describe.each(testUsers())('bash tool: sandbox, as $name', { timeout: 90_000 }, (user) => {
  const sandboxed = bashToolAs(user, { sandbox: true });
  const plain = bashToolAs(user);
  afterAll(() => [sandboxed, plain].forEach((tool) => tool.close()));
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    handTo(user, dir);
  });

  it('does ordinary work in the working directory', async () => {
    const r = await sandboxed.run({ command: 'echo hello > f.txt && cat f.txt && pwd' }, context(dir));
    expect(r).toMatchObject({ isError: false, content: `hello\n${dir}` });
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('hello\n');
  });

  it('cannot write outside the working directory (which works without the sandbox)', async () => {
    const scratch = scratchDir();
    const outside = join(scratch.dir, 'outside.txt');
    handTo(user, scratch.dir);
    try {
      const control = await plain.run({ command: `echo x > ${outside}.control` }, context(dir));
      expect(control.isError, control.content).toBe(false);
      expect(readFileSync(`${outside}.control`, 'utf8')).toBe('x\n');
      const r = await sandboxed.run({ command: `echo x > ${outside}` }, context(dir));
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(/Read-only file system/);
      expect(existsSync(outside)).toBe(false);
    } finally {
      scratch.cleanup();
    }
  });

  it('has a private /var/tmp and /run: what is written there never reaches the host', async () => {
    const name = `agentloop-sandbox-${process.pid}-${Date.now()}`;
    try {
      const r = await sandboxed.run({ command: `echo x > /var/tmp/${name} && echo y > /run/${name} && ls -A /var/tmp /run` }, context(dir));
      expect(r).toMatchObject({ isError: false, content: `/run:\n${name}\n\n/var/tmp:\n${name}` });
      expect(existsSync(`/var/tmp/${name}`)).toBe(false);
      expect(existsSync(`/run/${name}`)).toBe(false);
    } finally {
      rmSync(`/var/tmp/${name}`, { force: true });
      rmSync(`/run/${name}`, { force: true });
    }
  });

  it('runs with no capabilities, as root too: / cannot be remounted read-write', async () => {
    const r = await sandboxed.run({ command: 'grep CapEff /proc/self/status; mount -o remount,rw,bind / 2>&1; echo "mount: $?"' }, context(dir));
    expect(r.content).toMatch(/CapEff:\s+0+\n/);
    expect(r.content).toMatch(/mount: [1-9]/);
  });

  it('has a private /tmp: a sibling temporary directory is out of reach (which works without the sandbox)', async () => {
    const sibling = makeTempDir();
    handTo(user, sibling.dir);
    try {
      const control = await plain.run({ command: `echo x > ${sibling.dir}/control.txt` }, context(dir));
      expect(control.isError, control.content).toBe(false);
      expect(existsSync(join(sibling.dir, 'control.txt'))).toBe(true);
      const r = await sandboxed.run({ command: `echo x > ${sibling.dir}/leak.txt` }, context(dir));
      expect(r.isError).toBe(true);
      expect(existsSync(join(sibling.dir, 'leak.txt'))).toBe(false);
    } finally {
      sibling.cleanup();
    }
  });

  it('cannot connect to a server on the host loopback (which works without the sandbox)', async () => {
    const control = await plain.run({ command: connect(port) }, context(dir));
    expect(control).toMatchObject({ isError: false, content: 'hello from outside' });
    expect(connections).toBe(1);

    const r = await sandboxed.run({ command: connect(port) }, context(dir));
    expect(r.isError).toBe(true);
    expect(r.content).not.toContain('hello from outside');
    expect(connections).toBe(1);
  });

  it('kills everything in the sandbox on timeout', async () => {
    const marker = uniqueSleep();
    try {
      const r = await sandboxed.run({ command: `sleep ${marker} & sleep ${marker}`, timeout: 1000 }, context(dir));
      expect(r.content).toContain('[timed out after 1000 ms');
      expect(await waitUntilEmpty(() => liveWithMarker(marker))).toEqual([]);
    } finally {
      killMarked(marker);
    }
  });

  it('kills background processes in the sandbox when the command ends', async () => {
    const marker = uniqueSleep();
    try {
      const r = await sandboxed.run({ command: `echo hi; sleep ${marker} &` }, context(dir));
      expect(r).toMatchObject({ isError: false, content: 'hi' });
      expect(await waitUntilEmpty(() => liveWithMarker(marker))).toEqual([]);
    } finally {
      killMarked(marker);
    }
  });
});
