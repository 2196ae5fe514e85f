/**
 * Containment: nothing a command starts outlives it (setsid and double forks included), in both
 * modes, and the timeout holds even when the agent cannot enforce it (stopped). Each case as root and again as nobody
 * (test/support/bashAs.ts: the tool, and so the agent, in a process of nobody's own, the working directory nobody's).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { bashToolAs, handTo } from '../../support/bashAs.js';
import { testUsers, type TestUser } from '../../support/users.js';
import { bashScratchPerTest, context, liveWithMarker, uniqueBackstop, waitFor, waitUntilEmpty } from './bashHelpers.js';

let dir: string;
const { marked } = bashScratchPerTest((d) => (dir = d));

/** The escapes of the issue, each with its own sleep. */
const ESCAPES: [name: string, command: (m: string) => string][] = [
  ['setsid in the background', (m) => `setsid sleep ${m} & sleep 0.3`],
  ['setsid -f (forks, the parent returns)', (m) => `setsid -f sleep ${m}`],
  ['a subshell that runs setsid bash and exits', (m) => `(setsid bash -c 'sleep ${m}' &); sleep 0.3`],
  ['nohup and a double fork', (m) => `( ( nohup sleep ${m} >/dev/null 2>&1 & ) & ); sleep 0.3`],
];

/** Each case of the file as `user`: the working directory handed to it first; skipped, saying why, where it cannot be. */
function asUser(user: TestUser): void {
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    handTo(user, dir);
  });
}

// 90 s: nobody's first case starts nobody's process (seconds on a loaded machine); a bound only against hanging.
describe.each(testUsers())('as $name', { timeout: 90_000 }, (user) => {
  asUser(user);

  describe.each([
    ['without --sandbox', {}],
    ['with --sandbox', { sandbox: true }],
  ])('containment %s', (_mode, options) => {
    const tool = bashToolAs(user, options);
    afterAll(() => tool.close());

    it.each(ESCAPES)('kills what escapes the process group: %s', async (_name, command) => {
      const m = marked();
      const r = await tool.run({ command: command(m) }, context(dir));
      expect(r.isError, r.content).toBe(false);
      expect(await waitUntilEmpty(() => liveWithMarker(m))).toEqual([]);
    });

    it('a command sees only its own processes', async () => {
      const r = await tool.run({ command: 'ps -e -o pid= -o comm=' }, context(dir));
      const names = r.content.trim().split('\n').map((l) => l.trim().split(/\s+/)[1]);
      expect(names).not.toContain('node');
      expect(names).toContain('ps');
      expect(names.length).toBeLessThanOrEqual(5); // bwrap's init, bash, the backstop's sleeper (sh, sleep), ps
    });

    it("the backstop's sleeper runs beside the command and ends with it", async () => {
      const { timeout, sleepers, waitCommand } = uniqueBackstop();
      const r = await tool.run({ command: waitCommand, timeout }, context(dir));
      expect(r, r.content).toMatchObject({ isError: false, content: 'seen' });
      expect(await waitUntilEmpty(sleepers)).toEqual([]);
    });
  });

  it('the escapes do survive a plain process group (what containment is for)', async () => {
    const m = marked();
    // Not `setsid -f`: it returns before its child has left the group, and the group kill at the
    // shell's exit then sometimes takes the child too (1 run in 20 here). The background form waits.
    const plain = bashToolAs(user, { contain: false });
    try {
      const r = await plain.run({ command: `setsid sleep ${m} & sleep 0.3` }, context(dir));
      expect(r.isError).toBe(false);
      await waitFor(() => liveWithMarker(m).length === 1, 5000);
      expect(liveWithMarker(m)).toHaveLength(1);
    } finally {
      plain.close();
    }
  });
});

const DIST_BASH = fileURLToPath(new URL('../../../dist/tools/bash/bashTool.js', import.meta.url));

describe.each(testUsers())('the timeout holds without the agent, as $name', (user) => {
  asUser(user);

  it.each([['contained', '{}'], ['sandboxed', '{ sandbox: true }']])(
    '%s: an agent stopped with SIGSTOP still has its command killed at the timeout',
    { timeout: 90_000 },
    async (_mode, options) => {
      const m = marked();
      const late = join(dir, 'late');
      // A separate agent process runs the tool; once the command has started, the agent is stopped.
      const script = `
        import { createBashTool } from ${JSON.stringify(DIST_BASH)};
        const tool = createBashTool(${options});
        await tool.run({ command: 'touch started; sleep ${m}; touch late', timeout: 8000 }, { cwd: ${JSON.stringify(dir)}, signal: new AbortController().signal });
      `;
      const argv = [...user.prefix, process.execPath, '--input-type=module', '-e', script];
      const agent = spawn(argv[0] as string, argv.slice(1), { stdio: 'ignore', cwd: dir });
      try {
        const sleeping = () => liveWithMarker(m).filter((p) => p.cmdline.startsWith('sleep '));
        // Stopped once the command runs (under load, `sleep` starts a while after `touch started`).
        // The agent's start and the command's take seconds on a loaded machine: well within its timeout of 8 s.
        await waitFor(() => existsSync(join(dir, 'started')) && sleeping().length === 1, 30_000);
        agent.kill('SIGSTOP');
        // The agent's timer cannot fire; the backstop in the namespace fires a second after it would have.
        expect(await waitUntilEmpty(sleeping, 30_000)).toEqual([]);
        expect(existsSync(late)).toBe(false);
      } finally {
        agent.kill('SIGKILL');
      }
    },
  );
});
