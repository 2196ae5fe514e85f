import { ChildProcess } from 'node:child_process';
import { closeSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/tools/bash/bashTool.js';
import { openOutputPipe } from '../../../src/tools/bash/run/pipe.js';
import { privateUserDir } from '../../../src/tools/bash/run/userDir.js';
import { context, makeTempDir } from './bashHelpers.js';

// The first test relies on this file's fresh module state: no FIFO batch made yet.

/** Programs this process started, recorded by wrapping ChildProcess.prototype.spawn. */
const started: string[] = [];
const proto = ChildProcess.prototype as unknown as { spawn: (options: { file?: string; args?: string[] }) => unknown };
const originalSpawn = proto.spawn;

beforeAll(() => {
  proto.spawn = function (this: ChildProcess, options) {
    // The program under the lifeline's watcher (lifeline.ts: /bin/sh -c WATCH sh PROGRAM ...).
    const watched = options?.file === '/bin/sh' && options.args?.[3] === 'sh';
    started.push(String(watched ? options.args?.[4] : options?.file));
    return originalSpawn.call(this, options);
  };
});

afterAll(() => {
  proto.spawn = originalSpawn;
});

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
  started.length = 0;
});

afterEach(() => cleanup());

const tool = createBashTool();
const mkfifoCalls = (): number => started.filter((file) => file === 'mkfifo').length;
/** Where the FIFO batches are: the user's private folder (tools/bash/run/userDir.ts), else the temporary directory. */
const batchParent = privateUserDir() ?? tmpdir();
/** This process's FIFO directories. */
const pipeDirs = (): string[] => readdirSync(batchParent).filter((name) => name.startsWith(`agentloop-pipe-${process.pid}-`));

describe('bash tool: output pipes', () => {
  // Up to a hundred commands each: some 30 s on a loaded machine.
  it('more commands at once than a batch holds each get their own pipe', { timeout: 120_000 }, async () => {
    const n = 70; // a batch is 64: the last ones wait for a second batch
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => tool.run({ command: `echo out${i}; echo err${i} >&2` }, context(dir))),
    );
    results.forEach((r, i) => expect(r).toMatchObject({ isError: false, content: `out${i}\nerr${i}` }));
    expect(mkfifoCalls()).toBeLessThanOrEqual(3);
  });

  it('makes FIFOs in batches: one mkfifo process for dozens of commands', { timeout: 120_000 }, async () => {
    for (let i = 0; i < 100; i++) {
      expect(await tool.run({ command: 'true' }, context(dir))).toMatchObject({ isError: false, content: '(no output)' });
    }
    // One process per command (bwrap, which runs bash in its namespace), and the one-time probe of bwrap.
    const commands = started.filter((file) => file === 'bash' || file.endsWith('/bwrap'));
    expect(commands.length).toBeGreaterThanOrEqual(100);
    expect(commands.length).toBeLessThanOrEqual(101);
    expect(mkfifoCalls()).toBeLessThanOrEqual(3); // none at all where an earlier process left FIFOs (spares.ts)
  });

  it('leaves no used FIFO on disk and removes a used-up batch directory', async () => {
    for (let i = 0; i < 130; i++) {
      const { readFd, writeFd } = await openOutputPipe();
      closeSync(readFd);
      closeSync(writeFd);
    }
    // At most the batch in use and the one made ahead of time; together under two batches of FIFOs.
    const dirs = pipeDirs();
    expect(dirs.length).toBeLessThanOrEqual(2);
    const fifos = dirs.flatMap((d) => readdirSync(join(batchParent, d)));
    expect(fifos.length).toBeLessThan(2 * 64);
  });

  it('answers a command that cannot be passed to a process (a NUL byte) without leaking the pipe', async () => {
    // The pipes keep what they hold for the process (a batch made ahead of time, the spares' folder) open or closed as
    // batches come and go: a few fds either way (26 vs 23 seen under CI). A leak is a pipe per call: over fifty calls
    // it would show as fifty or more.
    expect((await tool.run({ command: 'echo a\0b' }, context(dir))).isError).toBe(true);
    const fds = readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 50; i++) {
      const r = await tool.run({ command: 'echo a\0b' }, context(dir));
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(/could not start the command: .*null bytes/);
    }
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(fds + 8);
  });

  it('says when the working directory is a file, not a directory', async () => {
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    const r = await tool.run({ command: 'ls' }, context(file));
    expect(r.isError).toBe(true);
    expect(r.content).toBe(`The working directory ${file} does not exist or is not a directory.`);
  });
});
