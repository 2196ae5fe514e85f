/**
 * A stop of the MCP servers (`close()`: the run's end, a failed start, the REPL's exit) leaves no process of a stdio
 * server, whenever it lands in the server's start: while bubblewrap still sets its namespace up, once the server's
 * process runs, once it has answered. For the plain, contained and sandboxed ways, as root and as nobody
 * (test/support/users.ts): the servers are started by an agent process of the user's own
 * (test/support/mcpStopAgent.ts), and what is left is looked for in /proc by the marker every process of the server
 * has in its environment.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handTo } from '../../support/bashAs.js';
import { EVERYTHING, processesMarked } from '../../support/mcp.js';
import { startStopAgent, type StopPoint, type StopWay } from '../../support/mcpStopAgent.js';
import { processes, type ProcInfo } from '../../support/processes.js';
import { testUsers } from '../../support/users.js';
import { makeTempDir, uniqueSleep, waitFor, waitUntilEmpty } from '../bash/bashHelpers.js';

const WAYS: StopWay[] = ['plain', 'contained', 'sandboxed'];

/** The points of a server's start; the delays sweep bubblewrap's setup (a few ms idle, tens under load). */
const POINTS: [string, StopPoint][] = [
  ...[0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 40].map((ms): [string, StopPoint] => [`${ms} ms after its start`, { afterMs: ms }]),
  ['once its process runs', 'running'],
];

// A server that never answers (the start is still under way when the stop comes), and ends at its stdin's end.
const SILENT = ['sed', '-n', 'd'];

let dir: string;
const markers: string[] = [];
const marked = () => {
  const m = uniqueSleep();
  markers.push(m);
  return m;
};
/** The live (not zombie) processes of the server marked `m`. */
const live = (m: string): ProcInfo[] => {
  const pids = processesMarked(m);
  return processes().filter((p) => pids.includes(p.pid) && p.state !== 'Z');
};
let cleanup: () => void = () => undefined;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => {
  for (const pid of markers.splice(0).flatMap(processesMarked)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  cleanup();
});

// 180 s: nobody's agent starts first (seconds on a loaded machine), then 16 servers; a bound only against hanging.
describe.each(testUsers())('as $name', { timeout: 180_000 }, (user) => {
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    handTo(user, dir);
  });

  describe.each(WAYS)('a %s server', (way) => {
    const agent = startStopAgent(user.prefix, way);
    afterAll(() => agent.close());

    it('a stop at each point of its start leaves no process of it', async () => {
      const left: string[] = [];
      const cases: [string, StopPoint, string[]][] = [
        ...POINTS.map(([point, at]): [string, StopPoint, string[]] => [point, at, SILENT]),
        ['once it has answered', 'connected', [process.execPath, EVERYTHING, 'stdio']],
      ];
      for (const [point, at, argv] of cases) {
        const m = marked();
        const state = await agent.run({ argv, marker: m, cwd: dir, at });
        if (at === 'connected') expect(state, point).toBe('connected');
        const alive = await waitUntilEmpty(() => live(m));
        if (alive.length > 0) left.push(`${point}: ${alive.map((p) => p.cmdline.slice(0, 40)).join(' | ')}`);
      }
      expect(left).toEqual([]);
    });

    it('every process of the server is in a process group of its own, which the stop kills', async () => {
      // In the agent's group, a terminal's Ctrl-C would reach it; with bubblewrap's --new-session, the namespace's
      // first process left the group that the stop could kill, and bubblewrap ties it to its parent only after its
      // setup: a stop in between left the namespace and the server running.
      const m = marked();
      const stopped = agent.run({ argv: SILENT, marker: m, cwd: dir, at: { afterMs: 5_000 } }); // looked at meanwhile
      await waitFor(() => live(m).some((p) => p.cmdline.startsWith('sed ')), 5_000);
      const server = live(m);
      const spawned = processes().find((p) => p.ppid === agent.pid && server.some((s) => s.pid === p.pid));
      expect(spawned?.cmdline.split(' ')[0]).toMatch(way === 'plain' ? /^sed$/ : /bwrap$/);
      expect(spawned?.pgrp).toBe(spawned?.pid);
      expect(server.map((p) => p.pgrp)).toEqual(server.map(() => spawned?.pid));
      expect(await stopped).toBe('pending');
    });
  });
});
