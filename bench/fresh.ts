/**
 * Benchmarks 5 and 4f: what a user waits for in a fresh CLI process, with the peers benchmark's machinery (whole
 * processes under GNU time, the local server in this process, a `bash` shim that stamps each tool's shell).
 * - Start-up: `node dist/cli/main.js -p … --output-format json` against the local server (one reply, no tool), next to
 *   the plain SDK loop doing the same (bench/peers/sides/plain.mjs), interleaved; wall, peak RSS and process start →
 *   first request at the server. `--version` and `node -e 0` for scale.
 * - Tool start: a fresh CLI process whose first two replies each begin with a tool_use (`echo`), followed by text
 *   streamed 40 ms a frame: the server's write of the block's `content_block_stop` → the exec of the tool's shell,
 *   for the first tool of the process and for the second.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureScenario, summarize, type SideSummary } from './peersMeasure.js';
import { prepareBench, SIDE_LABELS } from './peersSides.js';
import { DONE, MARKER, prose, type ScenarioSpec } from './peersTask.js';
import { build } from './build.js';
import { fmt, median, now } from './stats.js';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** One reply, no tool: a fresh `-p` run's start-up (also bench/tracing.ts's). */
export const startupSpec: ScenarioSpec = {
  name: 'startup',
  title: 'one reply, no tool',
  prompt: `${MARKER}: say hello.`,
  turns: 1,
  reply: () => ({ content: [{ type: 'text', text: `Hello. ${DONE}` }], stop_reason: 'end_turn' }),
};

const toolStartSpec: ScenarioSpec = {
  name: 'tool start',
  title: 'two replies that begin with a tool_use, then stream on',
  prompt: `${MARKER}: echo twice.`,
  turns: 3,
  framePause: (_frame, position) => (position === 0 ? 0 : 40),
  reply: (turn, tool, run) =>
    turn < 2
      ? {
          content: [
            { type: 'tool_use', id: `toolu_f${run}_${turn}`, name: tool, input: { command: `echo streamed-${turn}` } },
            { type: 'text', text: prose(20, turn) },
            { type: 'text', text: prose(20, turn + 1) },
          ],
          stop_reason: 'tool_use',
        }
      : { content: [{ type: 'text', text: `Echoed twice. ${DONE}` }], stop_reason: 'end_turn' },
};

export interface FreshFigures {
  runs: number;
  cli: SideSummary;
  plain: SideSummary | undefined;
  versionMs: number;
  nodeFloorMs: number;
  tool: SideSummary;
  built: boolean;
}

function timeNode(args: string[], runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = now();
    spawnSync(process.execPath, args, { stdio: 'ignore' });
    samples.push(now() - start);
  }
  return median(samples);
}

export async function benchFresh(runs = 15, log: (line: string) => void = () => {}): Promise<FreshFigures> {
  const built = build().ok;
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-fresh-'));
  try {
    const bench = prepareBench(dir);
    mkdirSync(bench.workspace, { recursive: true });
    const startup = await measureScenario(startupSpec, ['agentloop', 'plain'], bench, { rounds: runs, warmup: 1, log });
    const tool = await measureScenario(toolStartSpec, ['agentloop'], bench, { rounds: Math.max(5, Math.round(runs * 0.7)), warmup: 1, log });
    const [cli, plain] = startup.map(summarize);
    const toolSummary = summarize(tool[0]!);
    if (!cli || cli.runs === 0) throw new Error(`the CLI did not run: ${cli?.failures[0]}`);
    if (toolSummary.runs === 0) throw new Error(`the CLI did not run the tool: ${toolSummary.failures[0]}`);
    return {
      runs,
      cli,
      plain: plain && plain.runs > 0 ? plain : undefined,
      versionMs: timeNode([main, '--version'], runs),
      nodeFloorMs: timeNode(['-e', '0'], runs),
      tool: toolSummary,
      built,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function startupSection(f: FreshFigures): string {
  const p = f.plain;
  const r = (a: number, b: number | undefined) => (b ? fmt(a / b) : '–');
  return `## 5. Start-up: a \`-p\` run, fresh process

\`node dist/cli/main.js -p … --output-format json\` against the local server (in the benchmark's process; one reply,
no tool), the transcript recorder on as always, next to the plain SDK loop
([bench/peers/sides/plain.mjs](bench/peers/sides/plain.mjs)) doing the same, interleaved, ${f.runs} runs each after a
warm-up${f.built ? ' (dist/ rebuilt first)' : ''}. Wall and peak RSS from GNU time and the spawn; "first request" is the
spawn → the server's \`request\` event of the first request.

| | wall ms | peak RSS MB | process start → first request, ms |
|---|---|---|---|
| ${SIDE_LABELS.agentloop} | ${fmt(f.cli.wallMs, 0)} | ${fmt(f.cli.peakRssMb, 1)} | ${fmt(f.cli.firstRequestMs, 0)} |
| ${SIDE_LABELS.plain} | ${p ? fmt(p.wallMs, 0) : '–'} | ${p ? fmt(p.peakRssMb, 1) : '–'} | ${p ? fmt(p.firstRequestMs, 0) : '–'} |
| agentloop ÷ plain | ${r(f.cli.wallMs, p?.wallMs)} | ${r(f.cli.peakRssMb, p?.peakRssMb)} | **${r(f.cli.firstRequestMs, p?.firstRequestMs)}** |
| \`node dist/cli/main.js --version\` (for scale) | ${fmt(f.versionMs, 0)} | | |
| \`node -e 0\` (Node's own start-up) | ${fmt(f.nodeFloorMs, 0)} | | |`;
}

export function toolStartRows(f: FreshFigures): string {
  return `**In a fresh CLI process**, measured from outside (the peers benchmark's way): the first two replies each
begin with a tool_use (\`echo streamed-N\`) and stream on 40 ms a frame; from the server's write of the block's
\`content_block_stop\` to the exec of the tool's shell (stamped by a \`bash\` shim on the PATH), ${f.tool.runs} fresh
processes:

| | ms |
|---|---|
| **first tool of the process** | **${fmt(f.tool.firstToolMs, 1)}** |
| second tool (the next reply, same process) | ${fmt(f.tool.laterFirstToolMs, 1)} |

What the first tool of a process waits for, and a later one does not: the process runner's import (small since it
spawns with child_process itself; with execa it was 25-40 ms of main-thread time), a batch of FIFOs (one \`mkfifo\`), the bwrap probe and the first spawn,
all started in the bash tool's \`prepare\` when the first reply begins; a command of plain words is judged without
the shell parser (src/tools/bash/judge/shell/plain.ts), whose first parse of a process compiles its WebAssembly. Here the
reply streams on after its tool_use, so they are ready in time; in the peers two-turn task, whose tool_use comes a few
ms after the reply begins, they are not (the peers section profiles that wait).`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await benchFresh(Number(process.argv[2] ?? 5), console.log);
  console.log(startupSection(f));
  console.log(toolStartRows(f));
}
