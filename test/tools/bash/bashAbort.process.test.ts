/**
 * An abort (the REPL's Ctrl-C, -p's SIGINT, an AbortSignal) leaves no process of the command, whenever it lands in the
 * command's life: before its spawn, as it is spawned, while bubblewrap or unshare still sets its namespace up, while
 * it runs, while its output streams. For every runner, as root and as nobody (test/support/users.ts): the runner runs
 * in an agent process of the user's own (test/support/abortAgent.ts), and what is left is looked for in /proc by the
 * command's unique marker (every process of the command has it on its command line: bwrap, the shell that becomes bash,
 * the backstop's sleeper's shell, the command's own; the sleeper's `sleep` has not: bashContain.process.test.ts looks for it).
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startAbortAgent, type AbortPoint, type RunnerName } from '../../support/abortAgent.js';
import { handTo } from '../../support/bashAs.js';
import { testUsers } from '../../support/users.js';
import { bashScratchPerTest, liveWithMarker, processes, waitFor, waitUntilEmpty } from './bashHelpers.js';

let dir: string;
const { marked } = bashScratchPerTest((d) => (dir = d));

const RUNNERS: RunnerName[] = ['plain', 'contained', 'unshare', 'sandboxed'];

/** The points of a command's life; the delays sweep the setup of the namespace (a few ms idle, tens under load). */
const POINTS: [string, AbortPoint][] = [
  ['before its spawn', 'before'],
  ['as it is spawned', 'spawned'],
  ...[1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25].map((ms): [string, AbortPoint] => [`${ms} ms after its spawn`, { afterMs: ms }]),
];

// 120 s: nobody's agent starts first (seconds on a loaded machine), then 14 commands; a bound only against hanging.
describe.each(testUsers())('as $name', { timeout: 120_000 }, (user) => {
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    handTo(user, dir);
  });

  describe.each(RUNNERS)('the %s runner', (runner) => {
    const agent = startAbortAgent(user.prefix, runner);
    afterAll(() => agent.close());

    it('an abort at each point of the start leaves no process of the command', async () => {
      const left: string[] = [];
      for (const [point, at] of POINTS) {
        const m = marked();
        const ending = await agent.run({ command: `sleep ${m}`, cwd: dir, at });
        expect(ending.kind, point).toBe('aborted');
        const alive = await waitUntilEmpty(() => liveWithMarker(m));
        if (alive.length > 0) left.push(`${point}: ${alive.map((p) => p.cmdline.slice(0, 40)).join(' | ')}`);
      }
      expect(left).toEqual([]);
    });

    it('an abort while the command runs, and while its output streams, leaves no process of it', async () => {
      const m = marked();
      expect((await agent.run({ command: `sleep ${m}`, cwd: dir, at: { running: `sleep ${m}` } })).kind).toBe('aborted');
      expect(await waitUntilEmpty(() => liveWithMarker(m))).toEqual([]);
      const n = marked();
      const streaming = `while :; do echo ${n}; done & setsid sleep ${n} & wait`;
      expect((await agent.run({ command: streaming, cwd: dir, at: 'output' })).kind).toBe('aborted');
      // The plain way cannot hold a setsid child that had left its group before the abort (plain.ts says so).
      const escaped = runner === 'plain' ? liveWithMarker(n).filter((p) => p.cmdline === `sleep ${n}` && p.pgrp === p.pid).map((p) => p.pid) : [];
      expect(await waitUntilEmpty(() => liveWithMarker(n).filter((p) => !escaped.includes(p.pid)))).toEqual([]);
    });

    it.runIf(runner === 'contained' || runner === 'sandboxed')(
      "the namespace's first process stays in the process group an abort kills",
      async () => {
        // bubblewrap's --new-session would move it to a session of its own, and bubblewrap sets its parent-death
        // signal only after the whole setup: a kill of the group in between left the namespace running.
        const m = marked();
        const ending = agent.run({ command: `sleep ${m}`, cwd: dir, at: { afterMs: 5_000 } }); // looked at meanwhile
        await waitFor(() => liveWithMarker(m).some((p) => p.cmdline.startsWith('sleep ')), 5_000);
        const tool = liveWithMarker(m);
        const spawned = processes().find((p) => p.ppid === agent.pid && tool.some((t) => t.pid === p.pid));
        const first = tool.find((p) => p.ppid === spawned?.pid);
        expect(spawned?.pgrp).toBe(spawned?.pid);
        expect(first?.pgrp).toBe(spawned?.pid);
        await ending;
      },
    );
  });
});
