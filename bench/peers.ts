/**
 * `npm run bench:peers`: agentloop's CLI against its peers, each a whole process, on one local Messages API server.
 * The peers are installed in bench/peers/ (its own package.json and lock), with `npm ci --prefix bench/peers` when
 * missing, so that the project's own dependencies stay lean. Writes its section of BENCHMARKS.md.
 *
 *   npm run bench:peers                        both scenarios, all sides, writes BENCHMARKS.md
 *   npm run bench:peers -- --quick             fewer rounds, printed only
 *   npm run bench:peers -- --only=a --sides=agentloop,plain --rounds=5
 *   npm run bench:peers -- --only=a --idle-only   (a) without its rounds under the fixed load (peersLoad.ts)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from './machine.js';
import { clockCheck, commandTimes, measureScenario, summarize, type SideResult } from './peersMeasure.js';
import { keptSectionB, renderPeers, replaceSection } from './peersReport.js';
import { PEERS_DIR, prepareBench, SIDE_NAMES, type SideName } from './peersSides.js';
import { commandsOf, makeWorkspace, scenarioA, scenarioB, startTaskServer } from './peersTask.js';
import { profileFirstTool, type FirstToolProfile } from './peersProfile.js';
import { measureBothWays, renderConditions } from './peersLoad.js';
import { build } from './build.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = args.includes('--quick');
const only = flag('only')?.split(',') ?? ['a', 'b'];
const sides = (flag('sides')?.split(',') as SideName[] | undefined) ?? [...SIDE_NAMES];
const roundsA = Number(flag('rounds') ?? (quick ? 3 : 11));
const roundsB = Number(flag('rounds-b') ?? (quick ? 1 : 3));
const complete = only.length === 2 && sides.length === SIDE_NAMES.length && !quick && flag('rounds') === undefined;
const out = flag('out') ?? (complete ? fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url)) : undefined);
const log = (line: string) => process.stderr.write(`${line}\n`);

for (const side of sides) if (!SIDE_NAMES.includes(side)) throw new Error(`unknown side ${side}: one of ${SIDE_NAMES.join(', ')}`);
if (!existsSync('/usr/bin/time')) throw new Error('bench:peers needs GNU time at /usr/bin/time (Debian: apt-get install time)');

// The peers, in their own folder.
if (!existsSync(join(PEERS_DIR, 'node_modules', '.package-lock.json'))) {
  log('bench:peers: installing the peers with npm ci --prefix bench/peers ...');
  const install = spawnSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'], { stdio: ['ignore', 2, 2] });
  if (install.status !== 0) throw new Error(`npm ci --prefix bench/peers failed (exit ${install.status})`);
}
log('bench:peers: building dist/ ...');
const built = build();
if (!built.ok) throw new Error(`the build failed: ${built.error}`);

const started = Date.now();
const machine = describeMachine();
const dir = mkdtempSync(join(tmpdir(), 'agentloop-peers-'));
try {
  const bench = prepareBench(dir);
  makeWorkspace(bench.workspace);
  const clock = await clockCheck();
  if (clock.earlyMs < -1 || clock.lateMs < -1) throw new Error(`bash's clock and this process's disagree: ${JSON.stringify(clock)}`);
  const tools = await commandTimes(bench.workspace, commandsOf);
  log(`bench:peers: the (b) commands alone: ${tools.sequentialMs.toFixed(0)} ms one after another, ${tools.parallelMs.toFixed(0)} ms reply by reply at once`);
  const results: { a?: SideResult[]; b?: SideResult[] } = {};
  let loaded: string | undefined;
  if (only.includes('a') && args.includes('--idle-only')) results.a = await measureScenario(scenarioA, sides, bench, { rounds: roundsA, warmup: 1, log });
  else if (only.includes('a')) {
    const both = await measureBothWays(scenarioA, sides, bench, roundsA, log);
    results.a = both.idle;
    loaded = renderConditions(both);
  }
  // Where agentloop's first tool waits in (a), from a few more runs under the profiler.
  let firstTool: FirstToolProfile | undefined;
  if (only.includes('a') && sides.includes('agentloop')) {
    log('bench:peers: (a) agentloop under the profiler ...');
    const server = await startTaskServer(scenarioA);
    try {
      firstTool = await profileFirstTool(scenarioA, bench, server, quick ? 1 : 3);
    } finally {
      await server.close();
    }
  }
  if (only.includes('b')) results.b = await measureScenario(scenarioB, sides, bench, { rounds: roundsB, warmup: 0, log });
  const report = renderPeers({
    machine,
    machineAfter: describeMachine(),
    seconds: Math.round((Date.now() - started) / 1000),
    a: results.a?.map(summarize),
    b: results.b?.map(summarize),
    rawA: results.a,
    rawB: results.b,
    tools,
    roundsA,
    roundsB,
    ...(firstTool ? { firstTool } : {}),
    ...(loaded ? { loaded } : {}),
  });
  if (out) {
    const path = out;
    const file = existsSync(path) ? readFileSync(path, 'utf8') : '';
    // A run of (a) alone keeps the file's (b) as it was, saying which run it comes from.
    const keptB = results.b ? '' : keptSectionB(file);
    writeFileSync(path, replaceSection(file, keptB ? `${report}\n\n${keptB}` : report));
    log(`wrote ${path}`);
  }
  process.stdout.write(`${report}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
