/**
 * Where the first tool of a fresh CLI process waits, in scenario (a) of the peers benchmark: agentloop's side runs a few
 * more times under `node --cpu-prof`, and each profile's samples between the server's write of the tool_use block's
 * `content_block_stop` and the return of the command's spawn are put by what the main thread was doing; from there to
 * the exec of the tool's shell, the started process (bwrap, `timeout`) is on its way. V8's profile clock
 * and `process.hrtime` are both CLOCK_MONOTONIC, so the harness's times place the window in the profile.
 *
 * The CLI is one esbuild bundle: a sample's place in a chunk of dist/cli/ is told by the `// node_modules/…` and
 * `// src/…` comments esbuild writes before each module it bundles.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { figuresOf } from './peersMeasure.js';
import { runSide, type Bench } from './peersSides.js';
import type { ScenarioSpec, TaskServer } from './peersTask.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

export interface FirstToolProfile {
  runs: number;
  /** The profiled runs' first tool, block end → exec (median), ms: the profiler slows the process. */
  toolMs: number;
  /** Mean ms per run of each kind of main-thread work in the window, largest first; `idle` is waiting. */
  rows: Array<{ what: string; ms: number }>;
  /** The functions with the most self time in the window (mean ms per run), with their kind. */
  functions: Array<{ frame: string; kind: string; ms: number }>;
  /** Chunks of the bundle whose top-level code ran in the window (they were imported then), by file name. */
  evaluated: string[];
  /** The packages and files those chunks hold (`agentloop src/tools/bash/run/process.ts`, ...). */
  evaluatedHold: string[];
  /** The window's length (block end → the command's spawn returns, mean ms a run) and how much of it was busy. */
  windowMs: number;
  /** The spawn's return → the exec of the tool's shell (bwrap, the backstop's sleeper forked, the shim starting), mean ms a run. */
  spawnToExecMs: number;
  busyMs: number;
  /** The sampling interval, µs. */
  intervalUs: number;
}

const INTERVAL_US = 100;
const IDLE = 'idle: waiting for other processes (mkfifo, the bwrap probe, bwrap and the shell starting) and the pipe';

/** `performance.now()` of this process → µs of CLOCK_MONOTONIC, V8's profile clock. */
function monotonicUs(at: number): number {
  const offset = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
  return at * 1000 + offset;
}

/** The modules a bundled chunk holds, in order, from esbuild's comments. */
function modulesOf(path: string): Array<{ line: number; module: string }> {
  const starts: Array<{ line: number; module: string }> = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, line) => {
      const m = /^\/\/ ((?:node_modules|src)\/\S+)$/.exec(text);
      if (m) starts.push({ line, module: m[1] as string });
    });
  return starts;
}

/** Which module of a bundled chunk each line belongs to. */
function sectionsOf(path: string): (line: number) => string {
  const starts = modulesOf(path);
  return (line) => {
    let found = '(esbuild’s glue)';
    for (const s of starts) {
      if (s.line > line) break;
      found = s.module;
    }
    return found;
  };
}

/** `node_modules/@scope/pkg/lib/x.js` → `@scope/pkg`; `src/tools/bash/run/pipe.ts` → `agentloop src/tools/bash/run/pipe.ts`. */
function packageOf(module: string): string {
  if (!module.startsWith('node_modules/') && !module.startsWith('src/')) return module;
  if (module.startsWith('src/')) return `agentloop ${module}`;
  const parts = module.slice('node_modules/'.length).split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? module);
}

function kindOfNodeInternal(url: string): string | undefined {
  if (url.startsWith('node:internal/modules') || url === 'node:internal/bootstrap/realm') {
    return "Node's module loader (finding, reading, compiling and linking the modules imported now)";
  }
  if (url.startsWith('node:internal/deps/undici')) return "undici (Node's fetch: the response)";
  if (/child_process/.test(url)) return 'starting processes (child_process: fork and exec)';
  if (/^node:(internal\/)?fs/.test(url)) return 'files (node:fs: the transcript, the FIFO, lookups on the PATH)';
  if (/^node:(internal\/)?(streams?|net|stream)/.test(url)) return 'streams and sockets (node:stream, node:net)';
  if (url.startsWith('node:')) return 'other Node internals (timers, task queues, events, …)';
  return undefined;
}

/** Classifies one sample by its leaf frame, or the nearest caller with a place when the leaf is native code. */
function classifier(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const chunks = new Map<string, (line: number) => string>();
  const sectionOf = (url: string, line: number): string => {
    let of = chunks.get(url);
    if (!of) {
      of = sectionsOf(fileURLToPath(url));
      chunks.set(url, of);
    }
    return of(line);
  };
  /** Whether a sample is inside the process runner's spawn of a command (process.ts's spawnDetached, which ends in `ChildProcess.spawn`). */
  const spawning = new Map<number, boolean>();
  const inSpawn = (id: number): boolean => {
    let known = spawning.get(id);
    if (known === undefined) {
      const node = byId.get(id);
      const up = parent.get(id);
      known = node?.callFrame.functionName === 'spawnDetached' || (up !== undefined && inSpawn(up));
      spawning.set(id, known);
    }
    return known;
  };
  const classify = (id: number): { kind: string; topLevel?: string; frame: string } => {
    const leaf = byId.get(id);
    const name = leaf?.callFrame.functionName ?? '';
    const frame = `${name || '(anonymous)'} ${leaf?.callFrame.url.split('/').pop() ?? ''}:${(leaf?.callFrame.lineNumber ?? 0) + 1}`;
    const kindOf = (c: { kind: string; topLevel?: string }) => ({ ...c, frame });
    if (name === '(idle)') return kindOf({ kind: IDLE });
    if (name === '(garbage collector)') return kindOf({ kind: 'garbage collector' });
    if (name === '(program)') return kindOf({ kind: 'V8 and Node outside JavaScript ((program))' });
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { url, lineNumber, functionName } = byId.get(at)?.callFrame ?? { url: '', lineNumber: 0, functionName: '' };
      if (url === '') continue;
      const internal = kindOfNodeInternal(url);
      if (internal) return kindOf({ kind: internal });
      if (/\/dist\/cli\/.*\.js$/.test(url)) {
        const chunk = url.split('/').pop() as string;
        // A chunk's top-level code (line 0 of the file), where esbuild puts the top level of every module it holds: the
        // chunk is being evaluated, i.e. imported now.
        if (lineNumber === 0 && functionName === '') return kindOf({ kind: `evaluating ${chunk}, imported now`, topLevel: url });
        return kindOf({ kind: packageOf(sectionOf(url, lineNumber)) });
      }
      return kindOf({ kind: url.includes('/node_modules/') ? (url.split('/node_modules/').pop()?.split('/')[0] ?? url) : url });
    }
    return kindOf({ kind: 'native code' });
  };
  return { classify, inSpawn };
}

/** Runs agentloop's side `runs` times under the profiler and sums what its main thread did before the first tool. */
export async function profileFirstTool(spec: ScenarioSpec, bench: Bench, server: TaskServer, runs = 3): Promise<FirstToolProfile> {
  const totals = new Map<string, number>();
  const functions = new Map<string, { frame: string; kind: string; ms: number }>();
  const evaluated = new Set<string>();
  const hold = new Set<string>();
  let windowMs = 0;
  let spawnToExecMs = 0;
  let busyMs = 0;
  const toolMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'agentloop-first-tool-'));
    try {
      const log = server.begin(10_000 + i);
      const run = await runSide('agentloop', spec.prompt, bench, server.url, {
        nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${INTERVAL_US}`],
      });
      if (run.failure) throw new Error(`the profiled run failed: ${run.failure}`);
      const figures = figuresOf(spec, run, log);
      const [id] = [...log.calls].find(([, c]) => c.turn === 0 && c.place === 0) ?? [];
      const stop = id === undefined ? undefined : log.blockStops.get(id);
      if (stop === undefined) throw new Error('no first tool_use in the profiled run');
      toolMs.push(figures.firstToolMs);
      const from = monotonicUs(stop);
      const to = monotonicUs(stop + figures.firstToolMs);
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error('the profiled run wrote no .cpuprofile');
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
      const { classify, inSpawn } = classifier(profile);
      // The window ends when the command's spawn returns (libuv returns once the child has exec'd bwrap or bash); what
      // comes after it, up to the exec of the shell, is that process starting, beside the main thread.
      const times: number[] = [];
      let t = profile.startTime;
      for (const delta of profile.timeDeltas) times.push((t += delta));
      let until = to;
      for (let k = times.length - 1; k >= 0; k--) {
        const at = times[k] as number;
        if (at < from) break;
        if (at <= to && inSpawn(profile.samples[k] as number)) {
          until = at;
          break;
        }
      }
      spawnToExecMs += (to - until) / 1000;
      windowMs += (until - from) / 1000;
      profile.samples.forEach((sample, k) => {
        const delta = profile.timeDeltas[k] ?? 0;
        const at = times[k] as number;
        if (at < from || at > until) return;
        const { kind, topLevel, frame } = classify(sample);
        if (kind !== IDLE) busyMs += delta / 1000;
        if (topLevel && !evaluated.has(topLevel)) for (const { module } of modulesOf(fileURLToPath(topLevel))) hold.add(packageOf(module));
        totals.set(kind, (totals.get(kind) ?? 0) + delta / 1000);
        const f = functions.get(frame) ?? { frame, kind, ms: 0 };
        f.ms += delta / 1000;
        functions.set(frame, f);
        if (topLevel) evaluated.add(topLevel);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const sorted = [...toolMs].sort((a, b) => a - b);
  return {
    runs,
    toolMs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    rows: [...totals].map(([what, ms]) => ({ what, ms: ms / runs })).sort((a, b) => b.ms - a.ms),
    functions: [...functions.values()]
      .filter((f) => f.kind !== IDLE)
      .map((f) => ({ ...f, ms: f.ms / runs }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 12),
    evaluated: [...evaluated].map((url) => url.split('/').pop() as string),
    evaluatedHold: [...hold],
    windowMs: windowMs / runs,
    spawnToExecMs: spawnToExecMs / runs,
    busyMs: busyMs / runs,
    intervalUs: INTERVAL_US,
  };
}
