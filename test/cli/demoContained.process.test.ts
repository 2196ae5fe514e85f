/**
 * The demo's commands stay contained where bubblewrap is missing (issue 23, item 9): util-linux's `unshare` makes the
 * PID namespace then, with no warning; the warning that names what is left open comes only where neither can. The
 * CLI as a process on a PATH without `bwrap` (and, for the control, without `unshare` too), as root and as nobody.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli.js';
import { pathWithout } from '../support/hideProgram.js';
import { runCliAs, testUsers } from '../support/users.js';

describe.each(testUsers())('as $name', (user) => {
  it.for([
    { lacking: ['bwrap'], contained: true },
    { lacking: ['bwrap', 'unshare'], contained: false },
  ])('--demo on a machine without $lacking', { timeout: 60_000 }, async ({ lacking, contained }, ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const base = mkdtempSync(join(tmpdir(), 'agentloop-demo-'));
    mkdirSync(join(base, 'project'));
    writeFileSync(join(base, 'project', 'main.py'), 'print(1)\n');
    execFileSync('chmod', ['755', base]);
    if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, base]);
    const first = pathWithout(lacking[0]!);
    const second = lacking[1] === undefined ? undefined : pathWithout(lacking[1], first.path);
    try {
      const env = cliEnv({ PATH: (second ?? first).path, HOME: base, AGENTLOOP_HOME: join(base, '.agentloop') });
      const run = await runCliAs(user, ['--demo', '--cwd', join(base, 'project')], { cwd: base, env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('- main.py');
      if (contained) expect(run.stderr).not.toMatch(/AGENTLOOP_UNCONTAINED|not contained/);
      else expect(run.stderr).toMatch(/commands are not contained: 'bwrap' was not found on PATH .*'unshare' and 'setpriv' were not found/);
    } finally {
      second?.remove();
      first.remove();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
