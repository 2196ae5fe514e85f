/**
 * Many agents in one process (issue 40): `npx tsx bench/many.ts [--sizes=1000,10000] [--rounds=3] [--write]`.
 *
 * Each side runs N runs at once in a fresh process of its own (bench/peers/sides/many.mjs, plain Node with
 * `--expose-gc`), against one local Messages API server in a process of its own that answers every request after a
 * second (a model's time to first token): first a call of a read-only tool (`lookup`, answered in the process), then
 * the answer. The sides: agentloop's `runAgent` (the library, as its README shows it: no session), the same with a
 * session each (a transcript writer a run, as the CLI keeps), the plain SDK loop (`messages.create`), the AI SDK's
 * `streamText` and pi-agent-core's `Agent`, in rounds that run every side once each, in an order that rotates.
 * Written to BENCHMARKS.md between `<!-- many:begin -->` and `<!-- many:end -->` with --write.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from './build.js';
import { describeMachine } from './machine.js';
import { replaceMarked } from './marked.js';
import { REPLY_DELAY_MS } from './manyTask.js';
import { startRemoteServer, type RemoteServer } from './serverClient.js';
import { fmt, median, sleep } from './stats.js';

const SIDES = ['agentloop', 'agentloop-sessions', 'plain', 'aisdk', 'pi'] as const;
type Side = (typeof SIDES)[number];
const LABELS: Record<Side, string> = {
  agentloop: 'agentloop `runAgent` (no session)',
  'agentloop-sessions': 'agentloop `runAgent` with a session each (a transcript writer a run)',
  plain: 'plain SDK loop (`messages.create`, one client)',
  aisdk: 'Vercel AI SDK 6 `streamText` (one provider)',
  pi: 'pi-agent-core 0.73 `Agent` (one a run)',
};

interface Figures {
  side: Side;
  n: number;
  finished: number;
  failures: number;
  firstError?: string;
  wallMs: number;
  runsWallMs: number;
  cpuMs: number;
  baseRssMb: number;
  baseHeapMb: number;
  peakRssMb: number;
  peakHeapMb: number;
  baseFds: number;
  peakFds: number;
  held: { heapMb: number; rssMb: number; fds: number; resources: Record<string, number>; atMs: number };
  delayMs: { p50: number; p99: number; max: number; mean: number };
}

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const sizes = (flag('sizes') ?? '1000,10000').split(',').map(Number);
const rounds = Number(flag('rounds') ?? 3);
const sides = (flag('sides')?.split(',') as Side[] | undefined) ?? [...SIDES];
const CHILD = fileURLToPath(new URL('./peers/sides/many.mjs', import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);

/** One side's N runs in a fresh process; its first replies held at the server until all N are in flight and measured. */
function runChild(side: Side, n: number, server: RemoteServer): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', CHILD, side, String(n)], {
      env: { PATH: process.env.PATH, HOME: os.tmpdir(), ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-bench', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let out = '';
    let err = '';
    let failed = 0;
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('message', (message: { type: string }) => {
      if (message.type === 'failed') failed++;
      if (message.type === 'started') void waitForAll(n, server, () => failed).then(() => child.connected && child.send('measure'));
      if (message.type === 'held') void server.open();
    });
    child.on('close', (code) => {
      void server.open();
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as Figures);
      else {
        const lines = err.trim().split('\n');
        const why = lines.find((l) => /Error|EMFILE|ENFILE|heap/i.test(l)) ?? lines.slice(-3).join(' | ');
        reject(new Error(`${side} ×${n} exited ${code}: ${why.trim().slice(0, 400)}`));
      }
    });
  });
}

/** Until the server has seen the first request of each of the `n` runs but those that failed (or five minutes went by). */
async function waitForAll(n: number, server: RemoteServer, failed: () => number): Promise<void> {
  const end = Date.now() + 300_000;
  while ((await server.stats()).gated + failed() < n && Date.now() < end) await sleep(50);
}

const kb = (mb: number, n: number) => (mb * 1024) / n;

function table(n: number, results: Map<Side, Figures[]>): string {
  const rows = sides.map((side) => {
    const runs = results.get(side) ?? [];
    const ok = runs.filter((r) => r.failures === 0);
    const failed = runs[0]?.finished !== undefined ? `${runs[0].failures.toLocaleString('en')} of ${n.toLocaleString('en')} runs failed, at ${runs[0].peakFds.toLocaleString('en')} file descriptors: ` : '';
    if (ok.length === 0) return `| ${LABELS[side]} | could not run: ${failed}${(runs[0]?.firstError ?? 'no run').replace(/\|/g, '\\|')} ||||||||`;
    const m = (f: (r: Figures) => number) => median(ok.map(f));
    const held = ok[Math.floor(ok.length / 2)]?.held.resources ?? {};
    const kinds = Object.entries(held)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    return `| ${LABELS[side]} | ${fmt(m((r) => kb(r.held.heapMb - r.baseHeapMb, n)), 1)} | ${fmt(m((r) => kb(r.peakRssMb - r.baseRssMb, n)), 1)} | ${fmt(m((r) => (r.n / r.runsWallMs) * 1000), 0)} | ${fmt(m((r) => r.cpuMs / r.n), 2)} | ${fmt(m((r) => r.runsWallMs / 1000), 2)} | ${fmt(m((r) => r.delayMs.p50), 1)} / ${fmt(m((r) => r.delayMs.p99), 1)} / ${fmt(m((r) => r.delayMs.max), 0)} | ${fmt(m((r) => r.peakFds), 0)} | ${kinds} | ${ok.length}/${runs.length} |`;
  });
  return `**${n.toLocaleString('en')} runs at once**

| Side | heap held a run, KB (all first requests out, after a full GC) | peak RSS a run, KB | runs finished a second | CPU a run, ms | wall, s | event-loop delay p50 / p99 / max, ms | file descriptors at the peak | handles held then (most) | rounds counted |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}`;
}

const machine = describeMachine();
const started = Date.now();
log('many: building dist/ ...');
const built = build();
if (!built.ok) throw new Error(`the build failed: ${built.error}`);
if (!existsSync(fileURLToPath(new URL('./peers/node_modules/.package-lock.json', import.meta.url)))) {
  throw new Error('bench/many needs the peers: npm ci --prefix bench/peers');
}
const server = await startRemoteServer({ firstFrameMs: REPLY_DELAY_MS });
const bySize = new Map<number, Map<Side, Figures[]>>();
const loads: number[] = [];
try {
  for (const n of sizes) {
    const results = new Map<Side, Figures[]>();
    bySize.set(n, results);
    for (let round = 0; round < rounds; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length] as Side);
      for (const side of order) {
        await server.many(2 * n + 20);
        loads.push(os.loadavg()[0] as number);
        try {
          const figures = await runChild(side, n, server);
          results.set(side, [...(results.get(side) ?? []), figures]);
          log(
            `many ×${n} round ${round + 1}/${rounds} ${side}: held ${fmt(kb(figures.held.heapMb - figures.baseHeapMb, n), 1)} KB/run, ` +
              `rss ${fmt(kb(figures.peakRssMb - figures.baseRssMb, n), 1)} KB/run, ${fmt((n / figures.runsWallMs) * 1000, 0)} runs/s, ${fmt(figures.cpuMs / n, 2)} ms CPU/run, ` +
              `delay p99 ${fmt(figures.delayMs.p99, 1)} ms, fds ${figures.peakFds}, failures ${figures.failures}${figures.firstError ? ` (${figures.firstError})` : ''}, ` +
              `all in flight at ${fmt(figures.held.atMs, 0)} ms, load ${fmt(os.loadavg()[0] as number, 1)}`,
          );
        } catch (error) {
          log(`many ×${n} round ${round + 1}/${rounds} ${side}: FAILED ${(error as Error).message}`);
          results.set(side, [...(results.get(side) ?? []), { side, n, failures: 1, firstError: (error as Error).message } as Figures]);
        }
      }
    }
  }
} finally {
  await server.close();
}

const section = `<!-- many:begin (written by npx tsx bench/many.ts --write) -->
## Many agents in one process (issue 40)

\`npx tsx bench/many.ts\` ([bench/many.ts](bench/many.ts)) on ${machine.date}, commit ${machine.commit}${machine.dirtyFiles ? ` + ${machine.dirtyFiles} changed files` : ''}, ${machine.cpuCount} × ${machine.cpuModel},
Node ${machine.node}; the 1-minute load average ${fmt(Math.min(...loads), 1)}-${fmt(Math.max(...loads), 1)} as the sides started (other work shared the
2 cores: absolute figures move with it, the sides of a round saw the same); ${Math.round((Date.now() - started) / 1000)} s.

N runs at once in one fresh process a side ([bench/peers/sides/many.mjs](bench/peers/sides/many.mjs), Node with
\`--expose-gc\`), against the local Messages API server in a process of its own that answers every request after
${REPLY_DELAY_MS / 1000} s: a call of a read-only tool (\`lookup\`, answered in the process), then the answer; each run two model calls. ${rounds}
rounds, each running every side once in an order that rotates; medians. Measured from a baseline taken after 4 warm-up
runs and a full collection: **heap held a run**, once every run's first request is in at the server (which holds each
run's first reply until then: [bench/manyTask.ts](bench/manyTask.ts), so that all N are in flight however long a
loaded machine takes to start them), after a full collection, less the baseline, ÷ N; **peak RSS a run**, the largest resident set sampled every
50 ms less the baseline's, ÷ N; **runs finished a second**, N ÷ the wall from the start of the runs to the end of the
last, less the pause for that measurement (${(2 * REPLY_DELAY_MS) / 1000} s of it the server's delays); **CPU a run**, the process's CPU time (user and system,
\`process.cpuUsage()\`) over the runs less the measurement's, ÷ N: what the wall is on an idle machine, less moved by the load; **event-loop delay**, \`perf_hooks.monitorEventLoopDelay\` (1 ms resolution)
over the runs, the collection left out; **file descriptors** at the peak (/proc/self/fd) and the handles the process held
once every first request was out (\`process.getActiveResourcesInfo()\`, by kind): what grows with N.

${sizes.map((n) => table(n, bySize.get(n) as Map<Side, Figures[]>)).join('\n\n')}
<!-- many:end -->`;

if (args.includes('--write')) {
  const path = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
  writeFileSync(path, replaceMarked(readFileSync(path, 'utf8'), 'many', section));
  log(`wrote ${path}`);
}
process.stdout.write(`${section}\n`);
