/**
 * Section (a) of the peers benchmark twice (issue 40): as the machine is, and under a fixed load the benchmark starts
 * itself, one busy process per core (`node -e 'for(;;){}'`, at the same priority as the sides). Each round runs every
 * side once in each condition, one after the other, so that both see the same outside load (other work on a shared
 * machine), and the order of the sides rotates from round to round: the ratios of one condition stand side by side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { measureScenario, summarize, type SideResult, type SideSummary } from './peersMeasure.js';
import { SIDE_LABELS, type Bench, type SideName } from './peersSides.js';
import type { ScenarioSpec } from './peersTask.js';
import { fmt, median, sleep } from './stats.js';

export interface Conditions {
  idle: SideResult[];
  loaded: SideResult[];
  /** Busy processes of the fixed load. */
  busy: number;
  /** The 1-minute load average at each round's start, per condition. */
  loadIdle: number[];
  loadLoaded: number[];
}

/** One busy process per core; `stop` kills them. */
export async function startFixedLoad(count = os.cpus().length): Promise<{ stop(): void }> {
  const busy: ChildProcess[] = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  await sleep(300); // started and spinning
  return { stop: () => busy.forEach((b) => b.kill('SIGKILL')) };
}

function merge(into: Map<SideName, SideResult>, results: SideResult[]): void {
  for (const r of results) {
    const kept = into.get(r.side) ?? { side: r.side, runs: [], failures: [] };
    kept.runs.push(...r.runs);
    kept.failures.push(...r.failures);
    into.set(r.side, kept);
  }
}

/** `rounds` rounds of `spec`, each at idle then under the fixed load (after one warm-up round of each). */
export async function measureBothWays(spec: ScenarioSpec, sides: readonly SideName[], bench: Bench, rounds: number, log: (line: string) => void): Promise<Conditions> {
  const idle = new Map<SideName, SideResult>();
  const loaded = new Map<SideName, SideResult>();
  const loadIdle: number[] = [];
  const loadLoaded: number[] = [];
  let active = [...sides];
  for (let round = 0; round < rounds; round++) {
    const warmup = round === 0 ? 1 : 0;
    loadIdle.push(os.loadavg()[0] as number);
    const atIdle = await measureScenario(spec, active, bench, { rounds: 1, warmup, log, firstRound: round, tag: 'idle' });
    merge(idle, atIdle);
    const load = await startFixedLoad();
    try {
      loadLoaded.push(os.loadavg()[0] as number);
      merge(loaded, await measureScenario(spec, active, bench, { rounds: 1, warmup, log, firstRound: round, tag: 'under load' }));
    } finally {
      load.stop();
    }
    // A side that failed its warm-up is left out of the later rounds, as measureScenario does within its rounds.
    if (round === 0) active = active.filter((s) => (idle.get(s)?.runs.length ?? 0) > 0);
  }
  return { idle: [...idle.values()], loaded: [...loaded.values()], busy: os.cpus().length, loadIdle, loadLoaded };
}

/** Median over the rounds both ran of agentloop's figure ÷ the other side's. */
function pairedRatio(raw: SideResult[], other: SideName, figure: (r: SideResult['runs'][number]) => number): number {
  const mine = raw.find((r) => r.side === 'agentloop')?.runs ?? [];
  const theirs = new Map((raw.find((r) => r.side === other)?.runs ?? []).map((r) => [r.round, r]));
  return median(mine.flatMap((r) => (theirs.has(r.round) ? [figure(r) / figure(theirs.get(r.round)!)] : [])));
}

const verdict = (pass: boolean) => (pass ? '**pass**' : '**FAIL**');

/** The section: each side's first tool and wall in both conditions, and agentloop's first tool ÷ the plain loop's. */
export function renderConditions(c: Conditions): string {
  const idle = c.idle.map(summarize);
  const loaded = c.loaded.map(summarize);
  const of = (list: SideSummary[], side: SideName) => list.find((s) => s.side === side && s.runs > 0);
  const rows = idle.map((s) => {
    const l = of(loaded, s.side);
    const cell = (v: number | undefined, digits: number) => (v === undefined || !Number.isFinite(v) ? '–' : fmt(v, digits));
    return `| ${SIDE_LABELS[s.side]} | ${cell(s.firstToolMs, 1)} | ${cell(l?.firstToolMs, 1)} | ${cell(s.wallMs, 0)} | ${cell(l?.wallMs, 0)} | ${cell(s.firstRequestMs, 0)} | ${cell(l?.firstRequestMs, 0)} |`;
  });
  const targets: string[] = [];
  for (const [name, list, raw] of [['idle', idle, c.idle], ['under the fixed load', loaded, c.loaded]] as const) {
    const al = of(list, 'agentloop');
    const plain = of(list, 'plain');
    if (!al || !plain) {
      targets.push(`| first tool of a fresh process ≤ 1.0 × the plain loop's, ${name} | a side did not run | – |`);
      continue;
    }
    const ratio = al.firstToolMs / plain.firstToolMs;
    const pair = pairedRatio(raw, 'plain', (r) => r.firstToolMs);
    targets.push(`| first tool of a fresh process ≤ 1.0 × the plain loop's, ${name} | ${fmt(ratio)} (${fmt(al.firstToolMs, 1)} vs ${fmt(plain.firstToolMs, 1)} ms; per-round ${fmt(pair)}) | ${verdict(ratio <= 1)} |`);
    const wall = al.wallMs / plain.wallMs;
    targets.push(`| wall ≤ 1.05 × the plain loop, ${name} | ${fmt(wall)} (per-round ${fmt(pairedRatio(raw, 'plain', (r) => r.wallMs))}) | ${verdict(wall <= 1.05)} |`);
  }
  const range = (v: number[]) => `${fmt(Math.min(...v), 1)}-${fmt(Math.max(...v), 1)}`;
  return `### (a) at idle and under a fixed load (issue 40)

The task of (a), ${c.idle.find((r) => r.side === 'agentloop')?.runs.length ?? 0} rounds, each running every side as the machine is ("idle"), then again with
${c.busy} busy processes (\`node -e 'for(;;){}'\`, one a core, the sides' priority) started by the benchmark ("under load"), after a
warm-up round of each; the order of the sides rotates from round to round. The 1-minute load average at the start of
the rounds: ${range(c.loadIdle)} idle, ${range(c.loadLoaded)} under the load (it trails the load it measures; other work shared the machine).
Medians, ms: the first tool from its block's \`content_block_stop\` to the exec of its shell, the wall, the start → first request.

| Side | first tool, idle | first tool, under load | wall, idle | wall, under load | first request, idle | first request, under load |
|---|---|---|---|---|---|---|
${rows.join('\n')}

| Target (issue 40) | agentloop | Result |
|---|---|---|
${targets.join('\n')}`;
}
