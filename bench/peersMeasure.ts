/**
 * Runs the scenarios of the peers benchmark in interleaved rounds and turns each run into its figures: wall, CPU,
 * peak RSS, process start → first request at the server, and each tool's start after its tool_use block ended.
 */
import { performance } from 'node:perf_hooks';
import type { ScenarioSpec, RunLog } from './peersTask.js';
import { startTaskServer } from './peersTask.js';
import { runSide, type Bench, type ProcessRun, type SideName } from './peersSides.js';
import { median } from './stats.js';

export interface RunFigures {
  /** The counted round it ran in (0-based). */
  round: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  /** Process start → the first request's headers at the server. */
  firstRequestMs: number;
  /** Requests that were not the task's (titles, quota checks, ...). */
  otherRequests: number;
  /** The first tool_use of the first reply: its block's end → its command starts (the process is fresh). */
  firstToolMs: number;
  /** Per reply after the first: the first and the last tool_use of the reply, block end → command start. */
  laterFirstToolMs: number[];
  laterLastToolMs: number[];
  /** Tool calls whose command started before its reply's `message_stop` was written, of all. */
  startedMidStream: number;
  toolCalls: number;
}

export interface SideResult {
  side: SideName;
  runs: RunFigures[];
  failures: string[];
}

/** The figures of one run, from what the server saw and what the process and its commands reported. */
export function figuresOf(spec: ScenarioSpec, run: ProcessRun, log: RunLog, round = 0): RunFigures {
  const task = log.requests.filter((r) => r.task);
  if (task.length !== spec.turns) throw new Error(`${task.length} task requests, expected ${spec.turns}`);
  const starts = new Map<string, number>();
  const used = new Set<number>();
  for (const [id, call] of log.calls) {
    const stop = log.blockStops.get(id);
    if (stop === undefined) throw new Error(`no content_block_stop was written for ${id}`);
    // The first shell after the block ended that runs this command (a side's own shells, such as Claude Code's
    // snapshot of the user's shell, do not hold it; Claude Code's holds it inside its wrapper).
    const index = run.stamps.findIndex((s, i) => !used.has(i) && s.args.includes(call.command) && s.at >= stop - 1);
    if (index < 0) throw new Error(`the command \`${call.command}\` of ${id} never started`);
    used.add(index);
    starts.set(id, (run.stamps[index]?.at ?? Number.NaN) - stop);
  }
  const byTurn = new Map<number, Array<{ place: number; of: number; delay: number; id: string }>>();
  for (const [id, call] of log.calls) {
    const list = byTurn.get(call.turn) ?? [];
    list.push({ place: call.place, of: call.of, delay: starts.get(id) ?? Number.NaN, id });
    byTurn.set(call.turn, list);
  }
  const first = (turn: number) => byTurn.get(turn)?.find((c) => c.place === 0)?.delay ?? Number.NaN;
  const last = (turn: number) => byTurn.get(turn)?.find((c) => c.place === c.of - 1)?.delay ?? Number.NaN;
  const laterTurns = [...byTurn.keys()].filter((t) => t > 0);
  let midStream = 0;
  for (const [id, call] of log.calls) {
    const end = log.replyEnds.get(call.turn);
    const stop = log.blockStops.get(id) ?? Number.NaN;
    if (end !== undefined && stop + (starts.get(id) ?? Number.NaN) < end) midStream += 1;
  }
  return {
    round,
    wallMs: run.wallMs,
    cpuMs: run.cpuMs,
    peakRssMb: run.peakRssMb,
    firstRequestMs: (log.requests[0]?.at ?? Number.NaN) - run.spawnAt,
    otherRequests: log.requests.length - task.length,
    firstToolMs: first(0),
    laterFirstToolMs: laterTurns.map(first),
    laterLastToolMs: laterTurns.map(last),
    startedMidStream: midStream,
    toolCalls: log.calls.size,
  };
}

/**
 * `rounds` rounds (after `warmup` uncounted ones), each running every side once in an order that rotates from round
 * to round. A side that fails its warm-up is left out of the rounds; its error is kept.
 */
export async function measureScenario(
  spec: ScenarioSpec,
  sides: readonly SideName[],
  bench: Bench,
  options: { rounds: number; warmup: number; log: (line: string) => void; firstRound?: number; tag?: string },
): Promise<SideResult[]> {
  const first = options.firstRound ?? 0;
  const name = options.tag === undefined ? spec.name : `${spec.name}, ${options.tag}`;
  const server = await startTaskServer(spec);
  const results = new Map<SideName, SideResult>(sides.map((s) => [s, { side: s, runs: [], failures: [] }]));
  let active = [...sides];
  let runNumber = 0;
  try {
    for (let round = first - options.warmup; round < first + options.rounds; round++) {
      const order = active.map((_, i) => active[(((i + round + options.warmup) % active.length) + active.length) % active.length] as SideName);
      for (const side of order) {
        const log = server.begin(++runNumber);
        const run = await runSide(side, spec.prompt, bench, server.url);
        const result = results.get(side) as SideResult;
        let failure = run.failure;
        let figures: RunFigures | undefined;
        if (!failure) {
          try {
            figures = figuresOf(spec, run, log, round);
          } catch (error) {
            failure = (error as Error).message;
          }
        }
        const tag = round < first ? 'warm-up' : `round ${round + 1}`;
        if (failure || !figures) {
          result.failures.push(failure ?? 'no figures');
          options.log(`peers (${name}) ${tag} ${side}: FAILED ${failure}`);
          if (round < first) active = active.filter((s) => s !== side);
          continue;
        }
        if (round >= first) result.runs.push(figures);
        options.log(
          `peers (${name}) ${tag} ${side}: wall ${figures.wallMs.toFixed(0)} ms, cpu ${figures.cpuMs.toFixed(0)} ms, ` +
            `rss ${figures.peakRssMb.toFixed(0)} MB, first request ${figures.firstRequestMs.toFixed(0)} ms, ` +
            `first tool ${figures.firstToolMs.toFixed(1)} ms, mid-stream ${figures.startedMidStream}/${figures.toolCalls}` +
            (figures.otherRequests ? `, ${figures.otherRequests} other requests` : ''),
        );
      }
    }
  } finally {
    await server.close();
  }
  return [...results.values()];
}

export interface SideSummary {
  side: SideName;
  runs: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  firstRequestMs: number;
  firstToolMs: number;
  laterFirstToolMs: number;
  laterLastToolMs: number;
  /** Share of tool calls started before their reply ended. */
  midStreamShare: number;
  otherRequests: number;
  failures: string[];
}

export function summarize(result: SideResult): SideSummary {
  const m = (f: (r: RunFigures) => number) => median(result.runs.map(f));
  const all = (f: (r: RunFigures) => number[]) => median(result.runs.flatMap(f));
  const calls = result.runs.reduce((n, r) => n + r.toolCalls, 0);
  return {
    side: result.side,
    runs: result.runs.length,
    wallMs: m((r) => r.wallMs),
    cpuMs: m((r) => r.cpuMs),
    peakRssMb: m((r) => r.peakRssMb),
    firstRequestMs: m((r) => r.firstRequestMs),
    firstToolMs: m((r) => r.firstToolMs),
    laterFirstToolMs: all((r) => r.laterFirstToolMs),
    laterLastToolMs: all((r) => r.laterLastToolMs),
    midStreamShare: calls === 0 ? Number.NaN : result.runs.reduce((n, r) => n + r.startedMidStream, 0) / calls,
    otherRequests: m((r) => r.otherRequests),
    failures: result.failures,
  };
}

/** The clock check: bash's $EPOCHREALTIME, read in a child, must fall inside the window this process saw. */
export async function clockCheck(): Promise<{ earlyMs: number; lateMs: number }> {
  const { spawnSync } = await import('node:child_process');
  const { fromEpoch } = await import('./peersSides.js');
  const before = performance.now();
  const out = spawnSync('bash', ['-c', 'echo $EPOCHREALTIME'], { encoding: 'utf8' }).stdout.trim();
  const after = performance.now();
  const at = fromEpoch(Number(out) * 1000);
  return { earlyMs: at - before, lateMs: after - at };
}

/** How long the (b) commands take on their own, through bash: over the nine replies, one after another and at once. */
export async function commandTimes(
  workspace: string,
  commandsOf: (turn: number) => string[],
  repeats = 3,
): Promise<{ sequentialMs: number; parallelMs: number; perCommandMs: Record<string, number> }> {
  const { spawn } = await import('node:child_process');
  const once = (command: string) =>
    new Promise<number>((resolve, reject) => {
      const start = performance.now();
      const child = spawn('bash', ['-c', command], { cwd: workspace, stdio: 'ignore' });
      child.on('error', reject);
      child.on('exit', () => resolve(performance.now() - start));
    });
  const sequential: number[] = [];
  const parallel: number[] = [];
  const each = new Map<string, number[]>();
  for (let r = 0; r < repeats; r++) {
    let seq = 0;
    let par = 0;
    for (let turn = 0; turn < 9; turn++) {
      for (const command of commandsOf(turn)) {
        const ms = await once(command);
        seq += ms;
        const key = command.replace(/\d+/g, 'N');
        each.set(key, [...(each.get(key) ?? []), ms]);
      }
      const start = performance.now();
      await Promise.all(commandsOf(turn).map(once));
      par += performance.now() - start;
    }
    sequential.push(seq);
    parallel.push(par);
  }
  return {
    sequentialMs: median(sequential),
    parallelMs: median(parallel),
    perCommandMs: Object.fromEntries([...each].map(([k, v]) => [k, median(v)])),
  };
}
