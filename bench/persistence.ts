/**
 * Benchmark 6: how long persistence blocks the event loop, per turn. runAgent as the CLI runs it (the SDK against the
 * local server in its own process, the 50-turn conversation of benchmark 1), four ways: with the transcript recorder
 * as the CLI has it (durable: fsync), the same with a redactor of a dozen secrets (core/redact.ts: every record and tool
 * result goes through it), the recorder without fsync, and a listener that keeps nothing (the same events, no
 * persistence). Two views of the same cost:
 * - `perf_hooks.monitorEventLoopDelay` (1 ms resolution) over the run: the time the loop's timer came late, summed
 *   (mean × count − count × resolution); the difference to the listener that keeps nothing is what persistence adds;
 * - the main thread's time inside the recorder's `writeSync` and `fsyncSync` calls, timed by wrapping them;
 * - the main thread's CPU time (Linux: `/proc/thread-self/schedstat`), which, unlike the lateness, does not count the
 *   time the thread waited for a core: on a loaded machine it is the steadier figure of what persistence costs.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createClient } from '../src/anthropic/client.js';
import { createRedactor, noRedaction } from '../src/core/redact.js';
import { startSession } from '../src/transcript/recorder.js';
import { runAgent } from '../src/run/runAgent.js';
import { TURNS, echoTool } from './conversation.js';
import { startRemoteServer } from './serverClient.js';
import { fmt, median, now } from './stats.js';

const SIDES = ['durable', 'redacted', 'buffered', 'none'] as const;
type Side = (typeof SIDES)[number];
const LABELS: Record<Side, string> = {
  durable: 'transcript recorder as the CLI has it (one writeSync a step, fsync on the thread pool at most every 50 ms)',
  redacted: 'the same, every record and tool result through a redactor of 12 secrets (a key, a token, 10 credentials)',
  buffered: 'transcript recorder without fsync (`durable: false`)',
  none: 'a listener that keeps nothing (the same events, no persistence)',
};

export interface PersistenceFigures {
  rounds: number;
  /** Per side: ms per turn the loop's timer came late; ms per turn inside writeSync / fsyncSync. */
  sides: Record<Side, { lateMsPerTurn: number; maxLateMs: number; writeMsPerTurn: number; fsyncMsPerTurn: number; msPerTurn: number; cpuMsPerTurn: number }>;
  /** What persistence adds to the loop's lateness per turn, durable recorder − no persistence (the target's figure). */
  blockedMsPerTurn: number;
  /** What persistence adds to the main thread's CPU time per turn, durable recorder − no persistence. */
  cpuMsPerTurn: number;
  /** What the redactor adds to the main thread's CPU time per turn, redacted − durable recorder. */
  redactionCpuMsPerTurn: number;
}

/** A redactor as a CLI run on a developer's machine has one: the key, a token, and credentials of the environment. */
const BENCH_REDACTOR = createRedactor([
  { name: 'ANTHROPIC_API_KEY', value: 'sk-ant-api03-bench0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP' },
  { name: 'ANTHROPIC_AUTH_TOKEN', value: 'gateway-token-0123456789abcdef' },
  ...Array.from({ length: 10 }, (_, i) => ({ name: `SERVICE${i}_PASSWORD`, value: `p@ss w0rd&${i}-${'x'.repeat(8 + i)}` })),
]);

/** Wraps fs.writeSync and fs.fsyncSync (for the ESM importers too) to add up the time spent in them. */
function timeSyncCalls(): { totals: { write: number; fsync: number }; restore: () => void } {
  const totals = { write: 0, fsync: 0 };
  const { writeSync, fsyncSync } = fs;
  const timed = <A extends unknown[], R>(fn: (...args: A) => R, key: 'write' | 'fsync') =>
    (...args: A): R => {
      const start = now();
      try {
        return fn(...args);
      } finally {
        totals[key] += now() - start;
      }
    };
  fs.writeSync = timed(writeSync as (...args: unknown[]) => number, 'write') as typeof fs.writeSync;
  fs.fsyncSync = timed(fsyncSync, 'fsync');
  syncBuiltinESMExports();
  return {
    totals,
    restore: () => {
      fs.writeSync = writeSync;
      fs.fsyncSync = fsyncSync;
      syncBuiltinESMExports();
    },
  };
}

/** The CPU time of the calling thread, ms (`/proc/thread-self/schedstat`: on the CPU, in ns); NaN where there is none. */
function threadCpuMs(): number {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

export async function benchPersistence(rounds = 7, log: (line: string) => void = () => {}): Promise<PersistenceFigures> {
  const server = await startRemoteServer();
  const home = fs.mkdtempSync(join(tmpdir(), 'agentloop-persist-'));
  const probe = timeSyncCalls();
  try {
    const client = createClient({ apiKey: 'test', baseURL: server.url });
    const cwd = process.cwd();
    const samples = Object.fromEntries(SIDES.map((s) => [s, [] as Array<PersistenceFigures['sides'][Side]>])) as Record<
      Side,
      Array<PersistenceFigures['sides'][Side]>
    >;
    const once = async (side: Side) => {
      await server.conversation(TURNS);
      const redactor = side === 'redacted' ? BENCH_REDACTOR : noRedaction;
      const recorder = side === 'none' ? undefined : startSession(home, { cwd, model: 'claude-bench' }, { durable: side !== 'buffered', redactor });
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      probe.totals.write = 0;
      probe.totals.fsync = 0;
      const start = now();
      const cpuStart = threadCpuMs();
      histogram.enable();
      recorder?.prompt('go');
      const result = await runAgent('Run the tool 49 times, then say done.', {
        model: 'claude-bench',
        client: { client },
        tools: [echoTool],
        cwd,
        redactor,
        onEvent: recorder?.onEvent ?? (() => {}),
      });
      recorder?.finish(result);
      recorder?.close();
      histogram.disable();
      const cpuMs = threadCpuMs() - cpuStart;
      const ms = now() - start;
      await server.clear();
      if (result.state !== 'done') throw new Error(`persistence run ended ${result.state}: ${result.context.error?.message}`);
      const lateMs = Math.max(0, (histogram.mean - 1e6) * histogram.count) / 1e6;
      return {
        lateMsPerTurn: lateMs / TURNS,
        maxLateMs: histogram.max / 1e6 - 1,
        writeMsPerTurn: probe.totals.write / TURNS,
        fsyncMsPerTurn: probe.totals.fsync / TURNS,
        msPerTurn: ms / TURNS,
        cpuMsPerTurn: cpuMs / TURNS,
      };
    };
    for (const side of SIDES) await once(side); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < SIDES.length; i++) {
        const side = SIDES[(i + round) % SIDES.length] as Side;
        samples[side].push(await once(side));
      }
      log(`persistence round ${round + 1}/${rounds}: ${SIDES.map((s) => `${s} late ${fmt(samples[s].at(-1)?.lateMsPerTurn ?? NaN, 3)} ms/turn`).join(', ')}`);
    }
    const sides = Object.fromEntries(
      SIDES.map((s) => {
        const m = (f: (x: PersistenceFigures['sides'][Side]) => number) => median(samples[s].map(f));
        return [s, { lateMsPerTurn: m((x) => x.lateMsPerTurn), maxLateMs: m((x) => x.maxLateMs), writeMsPerTurn: m((x) => x.writeMsPerTurn), fsyncMsPerTurn: m((x) => x.fsyncMsPerTurn), msPerTurn: m((x) => x.msPerTurn), cpuMsPerTurn: m((x) => x.cpuMsPerTurn) }];
      }),
    ) as PersistenceFigures['sides'];
    const paired = (f: (x: PersistenceFigures['sides'][Side]) => number, a: Side = 'durable', b: Side = 'none') =>
      median(samples[a].map((d, i) => f(d) - (samples[b][i] ? f(samples[b][i] as PersistenceFigures['sides'][Side]) : NaN)));
    return {
      rounds,
      sides,
      blockedMsPerTurn: paired((x) => x.lateMsPerTurn),
      cpuMsPerTurn: paired((x) => x.cpuMsPerTurn),
      redactionCpuMsPerTurn: paired((x) => x.cpuMsPerTurn, 'redacted', 'durable'),
    };
  } finally {
    probe.restore();
    await server.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

export function persistenceSection(p: PersistenceFigures): string {
  const rows = SIDES.map((s) => {
    const x = p.sides[s];
    return `| ${LABELS[s]} | ${fmt(x.msPerTurn, 3)} | ${fmt(x.lateMsPerTurn, 3)} | ${fmt(x.maxLateMs, 2)} | ${fmt(x.cpuMsPerTurn, 3)} | ${fmt(x.writeMsPerTurn, 3)} | ${fmt(x.fsyncMsPerTurn, 3)} |`;
  }).join('\n');
  return `## 6. Event loop blocked by persistence

\`runAgent\` as the CLI runs it (the SDK against the local server in its own process, one write per SSE event, the
50-turn conversation of benchmark 1), four ways, interleaved over ${p.rounds} rounds. "Late" is what
\`perf_hooks.monitorEventLoopDelay\` (1 ms resolution) saw: the loop's timer came late by this much in all, per turn
(mean × count − count × resolution), with the longest single delay beside it; then the main thread's CPU time
(\`/proc/thread-self/schedstat\`: unlike the lateness it leaves out the time the thread waited for a core, so it is the
steadier figure on a loaded machine), and its time inside \`writeSync\` and \`fsyncSync\` (timed by wrapping them), per turn.

| Side | ms per turn | late, ms per turn | longest delay, ms | main-thread CPU, ms per turn | in writeSync, ms per turn | in fsyncSync, ms per turn |
|---|---|---|---|---|---|---|
${rows}

What persistence adds to the loop's lateness (durable recorder − no persistence, median of paired rounds):
**${fmt(p.blockedMsPerTurn, 3)} ms per turn** (target ≤ 0.2 ms); to its CPU time: ${fmt(p.cpuMsPerTurn, 3)} ms per turn. What
the redactor adds to the CPU time (redacted − durable recorder, median of paired rounds): ${fmt(p.redactionCpuMsPerTurn, 3)} ms per
turn; a record that holds no secret costs it one \`includes\` per secret (core/redact.ts). The
recorder writes the records of a step of the run (11 records a turn here) in one \`writeSync\` as the step ends (3 a
turn), a \`tool_start\` at once (the tool starts right after it); the fsync runs on the thread pool, at most one every
50 ms, and once on the main thread when the transcript is closed (the end of a run).`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(persistenceSection(await benchPersistence(Number(process.argv[2] ?? 5), console.log)));
}
