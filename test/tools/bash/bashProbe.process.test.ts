/**
 * The containment probe (tools/bash/run/choose.ts) runs `bash -c true` in bubblewrap once per process. On a socket
 * for stdin (Node's 'pipe') and with SHLVL unset (an agent started by env -i, a service, a desktop launcher), Debian's
 * bash takes itself for a remote shell and reads ~/.bashrc: a slow or hanging one (a pyenv rehash on a stale lock took
 * 60 s) then timed the probe out, and the agent fell back to another way of containing its commands. Its stdin is
 * /dev/null now, as every command's is. The probe runs here: this test's private folder holds no kept verdict.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { chooseRunner } from '../../../src/tools/bash/run/choose.js';

const home = mkdtempSync(join(tmpdir(), 'agentloop-probe-home-'));
// Private folders of this test's own: a verdict kept by an earlier process (tools/bash/run/verdict.ts) would skip the probe.
const kept = mkdtempSync(join(tmpdir(), 'agentloop-probe-kept-'));
process.env.XDG_RUNTIME_DIR = kept;
process.env.TMPDIR = kept;
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(kept, { recursive: true, force: true });
});

it('the containment probe reads no ~/.bashrc, also when SHLVL is unset', async () => {
  const marker = join(home, 'bashrc-was-read');
  writeFileSync(join(home, '.bashrc'), `touch '${marker}'\n`);
  const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL };
  process.env.HOME = home;
  delete process.env.SHLVL;
  try {
    const runner = await chooseRunner({ contain: true, pathVar: process.env.PATH });
    expect(runner.kind).not.toBe('plain');
    expect(existsSync(marker)).toBe(false);
  } finally {
    process.env.HOME = saved.HOME;
    if (saved.SHLVL !== undefined) process.env.SHLVL = saved.SHLVL;
  }
});
