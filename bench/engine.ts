/**
 * `npm run bench:engine [-- --quick] [-- --write] [-- --rounds=N]`: one Agent SDK program (bench/engineSides.ts) run
 * with agentloop as its engine and with Claude Code as its engine, against the same local Messages API, in interleaved
 * rounds; medians of the wall time of the whole `query()` and of the engine's peak RSS, side by side (issue 27's
 * "lighter than the original": agentloop's wall at most half Claude Code's, its RSS at most 40 %).
 *
 * Claude Code is the one `npm ci --prefix bench/peers` installs for the peers benchmark; without it this prints a line
 * saying so and measures nothing. `--write` puts the section between its markers into BENCHMARKS.md, which
 * `npm run bench` keeps as it keeps the peers' and the MCP ones.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from './build.js';
import { describeMachine } from './machine.js';
import { replaceMarked } from './marked.js';
import { median } from './stats.js';
import { CLAUDE_EXE, ENGINES, prepareEngines, runEngine, startEngineServer, type EngineName, type EngineRun } from './engineSides.js';
import { renderEngine, type EngineFigures, type EngineSummary } from './engineReport.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = args.includes('--quick');
const rounds = Number(flag('rounds') ?? (quick ? 3 : 15));
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Why the round's two runs do not count together, or undefined when they do. */
function mismatch(a: EngineRun, b: EngineRun): string | undefined {
  if (a.failure || b.failure) return [a, b].filter((r) => r.failure).map((r) => `${r.engine}: ${r.failure}`).join('; ');
  if (a.result !== b.result) return `the results differ: ${JSON.stringify(a.result)} vs ${JSON.stringify(b.result)}`;
  if (a.toolResult !== b.toolResult) return `the tool_results differ: ${JSON.stringify(a.toolResult)} vs ${JSON.stringify(b.toolResult)}`;
  return undefined;
}

/** `rounds` counted rounds after one warm-up round, the order of the engines alternating from round to round. */
async function measure(dir: string): Promise<Omit<EngineFigures, 'machine' | 'machineAfter' | 'seconds'>> {
  const bench = prepareEngines(dir);
  const mock = await startEngineServer();
  const runs: Array<Record<EngineName, EngineRun>> = [];
  const failures: string[] = [];
  try {
    for (let round = -1; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ENGINES : [...ENGINES].reverse();
      const pair = {} as Record<EngineName, EngineRun>;
      for (const engine of order) pair[engine] = await runEngine(engine, bench, mock);
      const why = mismatch(pair.agentloop, pair.claude);
      const tag = round < 0 ? 'warm-up' : `round ${round + 1}/${rounds}`;
      for (const engine of order) {
        const r = pair[engine];
        log(`engine ${tag} ${engine}: wall ${r.wallMs.toFixed(0)} ms (exit ${r.endMs.toFixed(0)}), first request ${r.firstRequestMs.toFixed(0)} ms, cpu ${r.cpuMs.toFixed(0)} ms, rss ${r.peakRssMb.toFixed(1)} MB`);
      }
      if (why) {
        log(`engine ${tag}: not counted: ${why}`);
        if (round >= 0) failures.push(why);
      } else if (round >= 0) runs.push(pair);
    }
  } finally {
    await mock.close();
  }
  const summary = (engine: EngineName): EngineSummary => {
    const m = (f: (r: EngineRun) => number) => median(runs.map((p) => f(p[engine])));
    return {
      engine,
      wallMs: m((r) => r.wallMs),
      endMs: m((r) => r.endMs),
      firstRequestMs: m((r) => r.firstRequestMs),
      cpuMs: m((r) => r.cpuMs),
      peakRssMb: m((r) => r.peakRssMb),
      otherRequests: m((r) => r.otherRequests),
    };
  };
  return {
    rounds,
    valid: runs.length,
    failures,
    sides: { agentloop: summary('agentloop'), claude: summary('claude') },
    wallRatio: median(runs.map((p) => p.agentloop.wallMs / p.claude.wallMs)),
    rssRatio: median(runs.map((p) => p.agentloop.peakRssMb / p.claude.peakRssMb)),
    cpuRatio: median(runs.map((p) => p.agentloop.cpuMs / p.claude.cpuMs)),
  };
}

if (!existsSync(CLAUDE_EXE)) {
  log(`engine: skipped: Claude Code is not installed (${CLAUDE_EXE} is missing; npm ci --prefix bench/peers installs it)`);
  process.exit(0);
}
if (!existsSync('/usr/bin/time')) throw new Error('bench:engine needs GNU time at /usr/bin/time (Debian: apt-get install time)');
log('engine: building dist/ ...');
const built = build();
if (!built.ok) throw new Error(`the build failed: ${built.error}`);

const started = Date.now();
const machine = describeMachine();
const dir = mkdtempSync(join(tmpdir(), 'agentloop-engine-'));
try {
  const figures: EngineFigures = { machine, ...(await measure(dir)), machineAfter: describeMachine(), seconds: Math.round((Date.now() - started) / 1000) };
  const section = renderEngine(figures, quick);
  process.stdout.write(`${section}\n`);
  if (args.includes('--write')) {
    if (figures.valid === 0) throw new Error('no round counted: BENCHMARKS.md left as it was');
    const path = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
    writeFileSync(path, replaceMarked(readFileSync(path, 'utf8'), 'engine', section));
    log(`wrote ${path}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
