/** The peers benchmark's section of BENCHMARKS.md: the tables, the targets of issue 15 next to each figure. */
import type { MachineInfo } from './machine.js';
import type { RunFigures, SideResult, SideSummary } from './peersMeasure.js';
import type { FirstToolProfile } from './peersProfile.js';
import { SIDE_LABELS, type SideName } from './peersSides.js';
import { pacedStreamMs, scenarioB, TIME_TO_FIRST_TOKEN_MS, TOKENS_PER_SECOND } from './peersTask.js';
import { fmt, median } from './stats.js';

const BEGIN = '<!-- peers:begin (written by npm run bench:peers) -->';
const END = '<!-- peers:end -->';

/** `file` with its peers section replaced by `section` (appended when it has none). */
export function replaceSection(file: string, section: string): string {
  const block = `${BEGIN}\n${section.trim()}\n${END}\n`;
  const start = file.indexOf(BEGIN);
  const end = file.indexOf(END);
  if (start < 0 || end < start) return `${file.trimEnd()}${file.trim() === '' ? '' : '\n\n'}${block}`;
  return `${file.slice(0, start)}${block}${file.slice(end + END.length).replace(/^\n/, '')}`;
}

/**
 * Section (b) of the peers section of `file` (its heading to the section's end), for a run that measured (a) only: kept
 * as it was, with a line saying which run it comes from (the file's, or the line it had already). '' when it has none.
 */
export function keptSectionB(file: string): string {
  const section = peersSection(file);
  const at = section.indexOf('### (b)');
  if (at < 0) return '';
  const b = section.slice(at, section.indexOf(END)).trim();
  if (b.includes('\n*Kept from ')) return b;
  const from = /on (\S+), commit (\S+),/.exec(section);
  const heading = b.indexOf('\n');
  return `${b.slice(0, heading)}\n\n*Kept from the run of ${from?.[1] ?? 'an earlier run'}${from ? `, commit ${from[2]}` : ''} (later runs measured (a) only).*${b.slice(heading)}`;
}

/** The peers section of `file`, markers included, or '' (what `npm run bench` keeps when it rewrites the file). */
export function peersSection(file: string): string {
  const start = file.indexOf(BEGIN);
  const end = file.indexOf(END);
  return start >= 0 && end > start ? `${file.slice(start, end + END.length)}\n` : '';
}

export interface PeersReport {
  machine: MachineInfo;
  machineAfter: MachineInfo;
  seconds: number;
  a?: SideSummary[];
  b?: SideSummary[];
  rawA?: SideResult[];
  rawB?: SideResult[];
  tools: { sequentialMs: number; parallelMs: number; perCommandMs: Record<string, number> };
  roundsA: number;
  roundsB: number;
  /** Where the first tool of a fresh process waits in (a), from profiled runs of agentloop's side. */
  firstTool?: FirstToolProfile;
  /** (a) at idle and under the fixed load, rendered (peersLoad.ts). */
  loaded?: string;
}

const verdict = (pass: boolean) => (pass ? '**pass**' : '**FAIL**');
const ms = (v: number, digits = 0) => (Number.isFinite(v) ? fmt(v, digits) : '–');

/** The figures a ratio can be taken of, in a run and in a side's medians alike. */
type Figure = (r: Pick<RunFigures, 'wallMs' | 'peakRssMb' | 'firstRequestMs'>) => number;

/** Median over the rounds both ran of agentloop's figure ÷ the other side's. */
function paired(raw: SideResult[] | undefined, other: SideName, figure: Figure): number {
  const mine = raw?.find((r) => r.side === 'agentloop')?.runs ?? [];
  const theirs = new Map((raw?.find((r) => r.side === other)?.runs ?? []).map((r) => [r.round, r]));
  return median(mine.flatMap((r) => (theirs.has(r.round) ? [figure(r) / figure(theirs.get(r.round)!)] : [])));
}

function failedRow(s: SideSummary, columns: number): string {
  const error = (s.failures[0] ?? 'no run').replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 240);
  return `| ${SIDE_LABELS[s.side]} | could not run here: \`${error}\` |${' |'.repeat(columns - 2)}`;
}

function tableA(rows: SideSummary[]): string {
  const plain = rows.find((s) => s.side === 'plain');
  const r = (v: number, base: number | undefined) => (base ? fmt(v / base) : '–');
  const lines = rows.map((s) =>
    s.runs === 0
      ? failedRow(s, 10)
      : `| ${SIDE_LABELS[s.side]} | ${ms(s.wallMs)} | ${r(s.wallMs, plain?.wallMs)} | ${ms(s.cpuMs)} | ${r(s.cpuMs, plain?.cpuMs)} | ${ms(s.peakRssMb, 1)} | ${r(s.peakRssMb, plain?.peakRssMb)} | ${ms(s.firstRequestMs)} | ${r(s.firstRequestMs, plain?.firstRequestMs)} | ${ms(s.firstToolMs, 1)} |`,
  );
  return `| Side | wall ms | ÷ plain | CPU ms | ÷ plain | peak RSS MB | ÷ plain | start → first request ms | ÷ plain | tool start after its block ends, ms |
|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}`;
}

function targetsA(rows: SideSummary[], raw: SideResult[] | undefined): string {
  const get = (side: SideName) => rows.find((s) => s.side === side && s.runs > 0);
  const al = get('agentloop');
  if (!al) return 'agentloop did not run: no targets to check.';
  const out: string[] = [];
  const ratio = (target: string, mine: number, other: SideSummary | undefined, limit: number, figure: Figure) => {
    if (!other) return out.push(`| ${target} | the other side did not run | – |`);
    const value = mine / figure(other);
    const pair = paired(raw, other.side, figure);
    out.push(`| ${target} | ${fmt(value)} (per-round ${fmt(pair)}) | ${verdict(value <= limit)} |`);
  };
  const wall: Figure = (s) => s.wallMs;
  const rss: Figure = (s) => s.peakRssMb;
  const first: Figure = (s) => s.firstRequestMs;
  ratio('wall ≤ 1.05 × the plain loop', al.wallMs, get('plain'), 1.05, wall);
  ratio('wall ≤ 1.0 × the AI SDK loop', al.wallMs, get('aisdk'), 1.0, wall);
  ratio('peak RSS ≤ 1.1 × the plain loop', al.peakRssMb, get('plain'), 1.1, rss);
  ratio('wall ≤ 0.5 × Claude Code', al.wallMs, get('claude'), 0.5, wall);
  ratio('peak RSS ≤ 0.4 × Claude Code', al.peakRssMb, get('claude'), 0.4, rss);
  ratio('process start → first request ≤ 1.1 × the plain loop', al.firstRequestMs, get('plain'), 1.1, first);
  out.push(`| first tool start in a fresh process ≤ 20 ms after its \`content_block_stop\` | ${fmt(al.firstToolMs, 1)} ms | ${verdict(al.firstToolMs <= 20)} |`);
  return `| Target (issue 15) | agentloop | Result |\n|---|---|---|\n${out.join('\n')}`;
}

/** The profile of the first tool's wait, grouped: the runner's import, the process starts, the rest, idle. */
function firstToolSection(p: FirstToolProfile, unprofiledMs: number | undefined, realPaceMs: number | undefined): string {
  const runner = new Set(p.evaluatedHold);
  const isRunner = (what: string) => what.startsWith("Node's module loader") || what.startsWith('evaluating ') || runner.has(what);
  const isIdle = (what: string) => what.startsWith('idle');
  const isSpawn = (what: string) => what.startsWith('starting processes');
  const sum = (pick: (what: string) => boolean) => p.rows.filter((r) => pick(r.what)).reduce((n, r) => n + r.ms, 0);
  const runnerMs = sum(isRunner);
  const spawnMs = sum(isSpawn);
  const idleMs = sum(isIdle);
  const restMs = sum((w) => !isRunner(w) && !isSpawn(w) && !isIdle(w));
  const shown = p.rows.filter((r) => r.ms >= 0.5);
  const small = p.rows.filter((r) => r.ms < 0.5).reduce((n, r) => n + r.ms, 0);
  const rows = shown.map((r) => `| ${r.what}${isRunner(r.what) && !r.what.startsWith("Node's") && !r.what.startsWith('evaluating') ? ' (in the runner’s chunk)' : ''} | ${fmt(r.ms, 1)} |`);
  if (small > 0) rows.push(`| the rest (each under 0.5 ms) | ${fmt(small, 1)} |`);
  const top = p.functions
    .slice(0, 6)
    .map((f) => `\`${f.frame}\` ${fmt(f.ms, 1)}`)
    .join(', ');
  const chunks = p.evaluated.map((c) => `\`${c}\``).join(', ') || 'none';
  return `**Where the first tool's time goes** ([bench/peersProfile.ts](bench/peersProfile.ts)): agentloop's side ran ${p.runs} more
times under \`node --cpu-prof\` (a sample every ${p.intervalUs} µs, which slows it: its first tool took ${fmt(p.toolMs, 1)} ms there,
against ${unprofiledMs === undefined ? '–' : fmt(unprofiledMs, 1)} ms above). What its main thread did between the server's write of the tool_use block's
\`content_block_stop\` and the return of the command's spawn, or the exec of its shell where nothing was spawned (${fmt(p.windowMs, 1)} ms, busy ${fmt(Math.min(p.busyMs, p.windowMs), 1)}; from there
${fmt(p.spawnToExecMs, 1)} ms more to the exec of the tool's shell: bwrap, its namespace, the backstop's sleeper forked and the shim starting), mean ms a
run, by where the code lives (in the bundle, by esbuild's module comments):

| Main thread | ms |
|---|---|
${rows.join('\n')}

${p.evaluatedHold.length === 0 ? 'No chunk of the bundle was imported in that window.' : `Chunks of the bundle imported in that window: ${chunks}, holding ${p.evaluatedHold.length} packages and files (${p.evaluatedHold.slice(0, 6).join(', ')}, …).`}

Grouped: **${fmt(runnerMs, 1)} ms importing the process runner and running its code for the first
time** (Node's module loader, the chunk's evaluation, the packages it holds), ${fmt(spawnMs, 1)} ms starting processes (each a fork
and exec on the main thread: the FIFO batch, the bwrap probe, the command), ${fmt(restMs, 1)} ms the first run of
everything else on the path (node:http's response, the SDK's stream, the machine, the tool's checks, the transcript), and
${fmt(idleMs, 1)} ms idle. Most self time: ${top}.

${p.spawnToExecMs < 0.05 ? 'The command ran in the shell started ahead (src/tools/bash/run/spare.ts: no spawn in the window, which ends at the exec of the command\'s shell): what is left is' : 'What is left besides the spawn is'} the first, cold run of the path on the main thread (the SSE events of the reply, the machine's step, the tool's checks and its record), and on a busy machine the core it waits for: a profile's self times then include the time the thread was not running. A \`-p\` run starts that shell (the lifeline's watcher, bubblewrap, its namespace, the reader) once its session's tools are set up, before the loop loads (src/cli/commands/run.ts \`startAhead\`): with the server answering at once, the first reply's tool_use comes ~1 ms after the request, and a shell started with the request came up after the reply had been handled (on a busy machine the first command waited for it). A library run's tools prepare once its first request is handed to the client; a real model leaves that the time to its first token (${realPaceMs === undefined ? 'section (b)' : `section (b): the first tool of a fresh process starts ${fmt(realPaceMs, 1)} ms after its block`}).`;
}

function tableB(rows: SideSummary[]): string {
  const al = rows.find((s) => s.side === 'agentloop' && s.runs > 0);
  const lines = rows.map((s) =>
    s.runs === 0
      ? failedRow(s, 9)
      : `| ${SIDE_LABELS[s.side]} | ${ms(s.wallMs / 1000, 2)} | ${al ? fmt(al.wallMs / s.wallMs) : '–'} | ${ms(s.cpuMs)} | ${ms(s.peakRssMb, 1)} | ${ms(s.firstToolMs, 1)} | ${ms(s.laterFirstToolMs, 1)} | ${ms(s.laterLastToolMs, 1)} | ${Number.isFinite(s.midStreamShare) ? `${Math.round(s.midStreamShare * 100)} %` : '–'} |`,
  );
  return `| Side | wall s | agentloop ÷ side | CPU ms | peak RSS MB | first tool after its block, fresh process, ms | later replies: first tool, ms | later replies: last tool, ms | tools started before their reply ended |
|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}`;
}

function targetsB(rows: SideSummary[], raw: SideResult[] | undefined): string {
  const al = rows.find((s) => s.side === 'agentloop' && s.runs > 0);
  if (!al) return 'agentloop did not run: no targets to check.';
  const waiting = rows.filter((s) => s.side !== 'agentloop' && s.side !== 'claude' && s.runs > 0 && s.midStreamShare < 0.5);
  const fastest = waiting.sort((x, y) => x.wallMs - y.wallMs)[0];
  const claude = rows.find((s) => s.side === 'claude' && s.runs > 0);
  const out: string[] = [];
  if (fastest) {
    const value = al.wallMs / fastest.wallMs;
    out.push(
      `| wall ≤ 0.8 × the fastest peer that does not start tools mid-stream (${SIDE_LABELS[fastest.side]}) | ${fmt(value)} (per-round ${fmt(paired(raw, fastest.side, (r) => r.wallMs))}) | ${verdict(value <= 0.8)} |`,
    );
  } else out.push('| wall ≤ 0.8 × the fastest peer that does not start tools mid-stream | no such peer ran | – |');
  if (claude) {
    const value = al.wallMs / claude.wallMs;
    out.push(`| wall ≤ 1.0 × Claude Code | ${fmt(value)} (per-round ${fmt(paired(raw, 'claude', (r) => r.wallMs))}) | ${verdict(value <= 1)} |`);
  } else out.push('| wall ≤ 1.0 × Claude Code | Claude Code did not run | – |');
  return `| Target (issue 15) | agentloop | Result |\n|---|---|---|\n${out.join('\n')}`;
}

export function renderPeers(r: PeersReport): string {
  const m = r.machine;
  const streamS = pacedStreamMs(scenarioB) / 1000;
  const perCommand = Object.entries(r.tools.perCommandMs)
    .map(([command, v]) => `\`${command}\` ${fmt(v, 0)} ms`)
    .join(', ');
  const parts = [
    `## Peers: agentloop against other harnesses, whole processes

Generated by \`npm run bench:peers\` ([bench/peers.ts](bench/peers.ts); the peers are installed in
[bench/peers/](bench/peers/) with their own lock file) on ${m.date}, commit ${m.commit}${m.dirtyFiles ? ` + ${m.dirtyFiles} changed files` : ''},
${m.cpuCount} × ${m.cpuModel}, Node ${m.node}; load average ${m.loadAverage.join(', ')} at the start, ${r.machineAfter.loadAverage.join(', ')}
at the end; ${r.seconds} s.

Every side is a whole process started from nothing, as its users start it, against the same local Messages API server
(test/support/messagesServer.ts, in the harness's process), with the same task, model id and working directory (a
generated tree of 3,000 source files): agentloop's CLI (\`node dist/cli/main.js -p … --output-format json\`, its
transcript recorder on, fsync included), the plain loop ([bench/peers/sides/plain.mjs](bench/peers/sides/plain.mjs),
\`messages.create\`, the SDK agentloop uses), the AI SDK and pi-agent-core with one bash tool
([sides/](bench/peers/sides/)), and Claude Code's own binary (\`-p … --output-format json --allowedTools Bash\`,
offline: \`ANTHROPIC_BASE_URL\`, \`DISABLE_TELEMETRY=1\`, \`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\`, a home of its
own kept across its runs). Each side keeps its own system prompt and tool definitions.

How each figure is taken: **wall** from the spawn to the exit, by the harness; **CPU** (user + system, the process and
the commands it waited for) and **peak RSS** (its largest process) from GNU time; **start → first request** from the
spawn to the server's \`request\` event of the side's first request (its headers arrive in the first read);
**tool start** from the moment the server writes the tool_use block's \`content_block_stop\` (for a non-streamed
reply, which the plain loop asks for: the JSON's write, the reply's end) to the exec of the tool's shell, stamped by a \`bash\` shim on the PATH and in \`SHELL\` that
appends bash's \`$EPOCHREALTIME\` and its arguments to a file and execs the real bash (every side runs its commands
with bash; the shim's own start, about a millisecond, is in every side's figure). Medians over interleaved rounds, the
order of the sides rotating from round to round; ratios are of the medians, with the median of the per-round ratios
beside them.`,
  ];
  if (r.a) {
    parts.push(`### (a) Two-turn \`ls\` task, the server answers at once

The first reply holds a sentence and a tool_use of \`ls -la src\` (last in the reply); the second the answer. Every
SSE event is its own write, with no pause. ${r.roundsA} round${r.roundsA === 1 ? '' : 's'} after one warm-up round.

${tableA(r.a)}

${targetsA(r.a, r.rawA)}

${r.loaded ?? ''}

${r.firstTool ? firstToolSection(r.firstTool, r.a.find((s) => s.side === 'agentloop')?.firstToolMs, r.b?.find((s) => s.side === 'agentloop' && s.runs > 0)?.firstToolMs) : ''}`);
  }
  if (r.b) {
    parts.push(`### (b) Where it counts: ten turns at a real model's pace

The server takes ${TIME_TO_FIRST_TOKEN_MS} ms to the first frame of each reply, then streams ${TOKENS_PER_SECOND} output
tokens a second (a token is four characters; deltas of 12 characters, each SSE event its own write; a non-streamed
reply comes when it would have streamed whole): ${fmt(streamS, 1)} s of streaming for the ten replies. Each of the
first nine replies holds a sentence, then 2–3 read-only tool calls (\`grep -rn needleN src\`, \`find src -name
modN.ts\`, and \`ls -la src/pkgN\` on odd turns), then a paragraph of 60 tokens; the tenth answers. ${r.roundsB}
round${r.roundsB === 1 ? '' : 's'}.

${tableB(r.b)}

${targetsB(r.b, r.rawB)}

What bounds the gain: the tools' own time is all a harness that starts them while the reply streams can save. These
commands take ${perCommand} on their own: ${fmt(r.tools.sequentialMs, 0)} ms over the nine replies one after another,
${fmt(r.tools.parallelMs, 0)} ms with each reply's calls at once, against ${fmt(streamS, 1)} s of streaming. Even with
every tool hidden behind the stream, the best a harness can do against one that runs them after the reply is about
${fmt(streamS / (streamS + r.tools.parallelMs / 1000), 2)} × (tools at once) or ${fmt(streamS / (streamS + r.tools.sequentialMs / 1000), 2)} × (one after another) of its wall time,
before start-up and per-turn costs.`);
  }
  return parts.join('\n\n');
}
