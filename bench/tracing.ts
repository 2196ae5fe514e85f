/**
 * Benchmark 5t: what tracing costs the start-up of a `-p` run (issue 29: "the OpenTelemetry packages load only when
 * tracing is on; start-up of a plain `-p` run unchanged, measured"). Whole processes, each
 * `node …/cli/main.js -p … --output-format json` against the local server (one reply, no tool), under GNU time, with
 * the peers benchmark's machinery (bench/peersSides.ts `runSide`), three sides taken in turn, the order rotating from
 * round to round:
 * - off: dist/ as built, no `OTEL_*` variable (a plain run);
 * - without: the same dist/ copied, its cli/setup/telemetry.js replaced by a module that starts nothing (the CLI with no
 *   tracing code at all: neither telemetry.js nor otel/traceContext.js load);
 * - on: dist/ as built, `OTEL_EXPORTER_OTLP_ENDPOINT` naming a sink on 127.0.0.1 (OTLP http/protobuf, the real
 *   exporter), which answers every export with 200.
 * The figures are the medians of each side and the medians of the per-round ratios off ÷ without and on ÷ off.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figuresOf, type RunFigures } from './peersMeasure.js';
import { prepareBench, runSide } from './peersSides.js';
import { startTaskServer } from './peersTask.js';
import { startupSpec } from './fresh.js';
import { build } from './build.js';
import { fmt, median } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const spec = startupSpec;

export const TRACING_SIDES = ['off', 'without', 'on'] as const;
export type TracingSide = (typeof TRACING_SIDES)[number];

export interface TracingSideFigures {
  cpuMs: number;
  wallMs: number;
  peakRssMb: number;
  firstRequestMs: number;
}

export interface TracingFigures {
  rounds: number;
  sides: Record<TracingSide, TracingSideFigures>;
  /** Medians of the per-round ratios. */
  offWithout: { cpu: number; wall: number; firstRequest: number };
  onOff: { cpu: number; wall: number; firstRequest: number };
  /** OTLP requests the sink received (the traced side's spans did leave). */
  exports: number;
  built: boolean;
}

/** A copy of dist/ whose cli/setup/telemetry.js starts nothing; its package.json beside it, node_modules linked. */
function distWithoutTracing(dir: string): string {
  const copy = join(dir, 'without');
  mkdirSync(copy);
  cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(copy, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  writeFileSync(
    join(copy, 'dist', 'cli', 'telemetry.js'),
    "export const FLUSH_MS = 3000;\nexport function exporterWanted() { return { kind: 'none' }; }\nexport async function startTelemetry() { return undefined; }\n",
  );
  return join(copy, 'dist', 'cli', 'main.js');
}

/** An OTLP receiver that takes everything and answers 200 (what is measured is the CLI, not a collector). */
async function startSink() {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, count: () => count, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const pick = (runs: RunFigures[], f: (r: RunFigures) => number) => median(runs.map(f));

function summary(runs: RunFigures[]): TracingSideFigures {
  return { cpuMs: pick(runs, (r) => r.cpuMs), wallMs: pick(runs, (r) => r.wallMs), peakRssMb: pick(runs, (r) => r.peakRssMb), firstRequestMs: pick(runs, (r) => r.firstRequestMs) };
}

/** Medians of the per-round ratios a ÷ b (the runs of one round side by side). */
function pairedRatios(a: RunFigures[], b: RunFigures[]) {
  const ratio = (f: (r: RunFigures) => number) => median(a.map((x, i) => f(x) / f(b[i] as RunFigures)));
  return { cpu: ratio((r) => r.cpuMs), wall: ratio((r) => r.wallMs), firstRequest: ratio((r) => r.firstRequestMs) };
}

export async function benchTracing(rounds = 15, log: (line: string) => void = () => {}): Promise<TracingFigures> {
  const built = build().ok;
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-tracing-'));
  const [server, sink] = await Promise.all([startTaskServer(spec), startSink()]);
  try {
    const bench = prepareBench(dir);
    mkdirSync(bench.workspace, { recursive: true });
    const options: Record<TracingSide, Parameters<typeof runSide>[4]> = {
      off: {},
      without: { main: distWithoutTracing(dir) },
      on: { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } },
    };
    const runs: Record<TracingSide, RunFigures[]> = { off: [], without: [], on: [] };
    let number = 0;
    for (let round = -2; round < rounds; round++) {
      for (const [i] of TRACING_SIDES.entries()) {
        const side = TRACING_SIDES[(i + round + 2) % TRACING_SIDES.length] as TracingSide;
        const runLog = server.begin(++number);
        const run = await runSide('agentloop', spec.prompt, bench, server.url, options[side]);
        const figures = run.failure ? undefined : figuresOf(spec, run, runLog, round);
        if (!figures) throw new Error(`tracing bench, side ${side}: ${run.failure}`);
        if (round >= 0) runs[side].push(figures);
        log(`tracing ${round < 0 ? 'warm-up' : `round ${round + 1}/${rounds}`} ${side}: cpu ${fmt(figures.cpuMs, 0)} ms, wall ${fmt(figures.wallMs, 0)} ms, first request ${fmt(figures.firstRequestMs, 0)} ms`);
      }
    }
    if (sink.count() === 0) throw new Error('tracing bench: the traced side sent no spans');
    const sides = { off: summary(runs.off), without: summary(runs.without), on: summary(runs.on) };
    return { rounds, sides, offWithout: pairedRatios(runs.off, runs.without), onOff: pairedRatios(runs.on, runs.off), exports: sink.count(), built };
  } finally {
    await Promise.all([server.close(), sink.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

const LABELS: Record<TracingSide, string> = {
  off: 'tracing off: dist/ as built, no `OTEL_*` variable',
  without: 'no tracing code: the same dist/, its cli/setup/telemetry.js a module that starts nothing',
  on: 'tracing on: `OTEL_EXPORTER_OTLP_ENDPOINT` to a sink on 127.0.0.1 (OTLP http/protobuf)',
};

export function tracingSection(f: TracingFigures): string {
  const rows = TRACING_SIDES.map((s) => {
    const x = f.sides[s];
    return `| ${LABELS[s]} | ${fmt(x.cpuMs, 0)} | ${fmt(x.wallMs, 0)} | ${fmt(x.firstRequestMs, 0)} | ${fmt(x.peakRssMb, 1)} |`;
  });
  const ratios = (name: string, r: TracingFigures['offWithout']) => `| ${name} (median of the per-round ratios) | **${fmt(r.cpu)}** | ${fmt(r.wall)} | ${fmt(r.firstRequest)} | |`;
  return `## 5t. Tracing and the start-up of a \`-p\` run

[bench/tracing.ts](bench/tracing.ts): whole processes, \`node …/cli/main.js -p … --output-format json\` against the
local server (one reply, no tool) under GNU time, three sides taken in turn (the order rotating from round to round),
${f.rounds} rounds after 2 warm-ups${f.built ? ' (dist/ rebuilt first)' : ''}. CPU is the process's user + system
time; "first request" is the spawn → the server's \`request\` event. The traced side's spans left: the sink took
${f.exports} OTLP requests.

| side | CPU ms | wall ms | process start → first request, ms | peak RSS MB |
|---|---|---|---|---|
${rows.join('\n')}
${ratios('off ÷ without', f.offWithout)}
${ratios('on ÷ off', f.onOff)}

A run without the \`OTEL_*\` variables loads none of OpenTelemetry (test/otel/cli.process.test.ts checks the files a run
loads): off ÷ without is what the tracing code costs a plain run. On ÷ off is what tracing costs when asked for: the
SDK's and the exporter's loading, and the export of the spans at the end.`;
}
