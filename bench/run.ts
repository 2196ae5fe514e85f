/**
 * `npm run bench`: runs every benchmark side by side and writes BENCHMARKS.md at the project
 * root. Each figure is a ratio (or a figure with its floor) measured in this one run, from
 * medians of repeated, interleaved runs.
 *
 *   npm run bench                       all benchmarks, writes BENCHMARKS.md
 *   npm run bench -- --only=growth,bash  some of them, printed only (add --out=FILE to write)
 *   npm run bench -- --only=durable --update   some of them, their rows and sections put into BENCHMARKS.md
 *   npm run bench -- --quick             fewer repetitions (a smoke run)
 *
 * Each benchmark runs in a fresh process of its own (this script again, with `--section=NAME --json=FILE`), so that
 * what one leaves behind (a heap grown by 10,000 turns, compiled code, open handles) does not weigh on the next.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchBashCommands, benchBashRss, type BashCommandFigures, type BashRssFigures } from './bashTool.js';
import { benchFresh, startupSection, toolStartRows, type FreshFigures } from './fresh.js';
import { benchMachineTurn, type MachineTurnFigures } from './machineTurn.js';
import { benchGrowth, growthSection, type GrowthFigures } from './growth.js';
import { describeMachine, type MachineInfo } from './machine.js';
import { benchOverhead, SIDES, type ModeFigures, type OverheadFigures, type OverheadSide, type ServerMode } from './overhead.js';
import { benchParallel, benchStreaming, type ParallelFigures, type StreamingFigures } from './parallel.js';
import { peersSection } from './peersReport.js';
import { markedSection } from './marked.js';
import { mergeReport, partMark } from './merge.js';
import { benchPersistence, persistenceSection, type PersistenceFigures } from './persistence.js';
import { benchDurable, durableSection, type DurableFigures } from './durable.js';
import { benchSessions, sessionsSection, type SessionsFigures } from './sessions.js';
import { fmt } from './stats.js';
import { addedText, besideFloor, floorsText } from './overheadFloors.js';
import { benchTracing, tracingSection, type TracingFigures } from './tracing.js';
import { benchGrep, grepSection, type GrepFigures } from './grep.js';

/** In the order they run: start-up first, on a machine nothing else has warmed. */
const ALL = ['startup', 'tracing', 'overhead', 'growth', 'persistence', 'bash', 'parallel', 'durable', 'sessions', 'grep'] as const;
type Name = (typeof ALL)[number];

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const only = (flag('only')?.split(',') as Name[] | undefined) ?? [...ALL];
const quick = args.includes('--quick');
const out = flag('out') ?? (only.length === ALL.length && !quick ? fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url)) : undefined);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Results {
  machine: MachineInfo;
  machineAfter?: MachineInfo;
  overhead?: OverheadFigures;
  machineTurn?: MachineTurnFigures;
  growth?: GrowthFigures;
  bash?: BashCommandFigures[];
  bashRss?: BashRssFigures;
  parallel?: ParallelFigures;
  streaming?: StreamingFigures;
  startup?: FreshFigures;
  tracing?: TracingFigures;
  persistence?: PersistenceFigures;
  durable?: DurableFigures;
  sessions?: SessionsFigures;
  grep?: GrepFigures;
  seconds: number;
}

/** Runs one benchmark in this process, putting its figures into `into`. */
async function runSection(name: Name, into: Partial<Results>): Promise<void> {
  switch (name) {
    case 'startup':
      log('startup: building dist/, then fresh `-p` runs of the CLI and the plain loop, and fresh tool starts ...');
      into.startup = await benchFresh(quick ? 3 : 15, log);
      break;
    case 'tracing':
      log('tracing: fresh `-p` runs with tracing off, without the tracing code, and on ...');
      into.tracing = await benchTracing(quick ? 3 : 31, log);
      break;
    case 'overhead':
      into.overhead = await benchOverhead(quick ? 3 : 25, log);
      into.machineTurn = await benchMachineTurn(quick ? 30 : 200, log);
      break;
    case 'growth':
      into.growth = await benchGrowth(quick ? 2_000 : 10_000, log);
      break;
    case 'persistence':
      into.persistence = await benchPersistence(quick ? 2 : 31, log);
      break;
    case 'bash':
      into.bash = await benchBashCommands(quick ? 5 : 40, log);
      log('bash: 1 GB through the tool in a fresh process ...');
      into.bashRss = benchBashRss();
      log(`bash: peak RSS ${into.bashRss.peakMb} MB (baseline ${into.bashRss.baselineMb} MB)`);
      break;
    case 'parallel':
      into.parallel = await benchParallel(quick ? 2 : 5, log);
      into.streaming = await benchStreaming(quick ? 3 : 10, log);
      break;
    case 'durable':
      into.durable = await benchDurable(quick ? 2 : 7, log);
      break;
    case 'sessions':
      into.sessions = await benchSessions(quick ? 2 : 7, log);
      break;
    case 'grep':
      into.grep = await benchGrep(quick ? 2 : 7, log);
      break;
  }
}

// JSON keeps no NaN or Infinity (a figure that could not be had): they travel as strings.
const encode = (_key: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { nonFinite: String(v) } : v);
const decode = (_key: string, v: unknown) =>
  v !== null && typeof v === 'object' && 'nonFinite' in v && Object.keys(v).length === 1 ? Number((v as { nonFinite: string }).nonFinite) : v;

const section = flag('section') as Name | undefined;
if (section !== undefined) {
  // A child of the run below: one benchmark, its figures to the file the parent reads.
  const into: Partial<Results> = {};
  await runSection(section, into);
  writeFileSync(flag('json') as string, JSON.stringify(into, encode));
  process.exit(0);
}

/** Runs one benchmark in a fresh process (this script under the same loader) and returns its figures. */
function isolated(name: Name): Partial<Results> {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-bench-'));
  const json = join(dir, `${name}.json`);
  try {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), `--section=${name}`, `--json=${json}`, ...(quick ? ['--quick'] : [])],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (child.status !== 0 || !existsSync(json)) throw new Error(`the ${name} benchmark failed (exit ${child.status ?? child.signal})`);
    return JSON.parse(readFileSync(json, 'utf8'), decode) as Partial<Results>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const started = Date.now();
const results: Results = { machine: describeMachine(), seconds: 0 };
log(`agentloop benchmarks on ${results.machine.cpuCount} × ${results.machine.cpuModel}, node ${results.machine.node}`);
for (const name of ALL) if (only.includes(name)) Object.assign(results, isolated(name));
results.machineAfter = describeMachine();
results.seconds = Math.round((Date.now() - started) / 1000);

const report = render(results);
if (args.includes('--update')) {
  const file = out ?? fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
  const m = results.machine;
  const note = `Re-measured alone since: ${only.join(', ')} on ${m.date} (load ${m.loadAverage.join(', ')} at start; commit ${m.commit}${m.dirtyFiles ? ` + ${m.dirtyFiles} changed files` : ''}; ${results.seconds} s).`;
  writeFileSync(file, mergeReport(readFileSync(file, 'utf8'), report, note));
  log(`updated ${file}`);
} else if (out) {
  // The sections of the benchmarks run on their own are kept as they are: the peers' (npm run bench:peers), the MCP
  // one (bench/mcp.ts), the Agent SDK engine one (npm run bench:engine) and many at once (bench/many.ts).
  const before = existsSync(out) ? readFileSync(out, 'utf8') : '';
  const kept = [peersSection(before), markedSection(before, 'mcp'), markedSection(before, 'engine'), markedSection(before, 'many')].filter((s) => s !== '').join('\n');
  writeFileSync(out, kept ? `${report.trimEnd()}\n\n${kept}` : report);
  log(`wrote ${out}`);
}
process.stdout.write(report);

// ---------------------------------------------------------------------------------------------

function verdict(pass: boolean): string {
  return pass ? '**pass**' : '**FAIL**';
}

function render(r: Results): string {
  const m = r.machine;
  const rows: string[] = [];
  const row = (n: string, figure: string, measured: string, target: string, pass: boolean) =>
    rows.push(`| ${n} | ${figure} | ${measured} | ${target} | ${verdict(pass)} |`);
  /** A row that is information, not a target: its figure beside its floor (bench/overheadFloors.ts). */
  const info = (n: string, figure: string, measured: string, beside: string) => rows.push(`| ${n} | ${figure} | ${measured} | information | ${beside} |`);

  if (r.overhead) {
    const o = r.overhead.modes;
    info('1', 'Loop overhead: time per turn, agentloop ÷ the plain loop (`messages.create`, as the tutorial writes it); reply sent in one write', fmt(o.perReply.ratio), besideFloor(r.overhead, 'perReply', 'plain'));
    row('1b', 'Loop overhead: agentloop ÷ the plain loop streaming (`messages.stream`, as agentloop streams); reply sent in one write', fmt(o.perReply.ratioStreamed), '≤ 1.10', o.perReply.ratioStreamed <= 1.1);
    info('1c', 'Loop overhead: agentloop ÷ the plain loop (`messages.create`); streamed reply sent one SSE event per write', fmt(o.perEvent.ratio), besideFloor(r.overhead, 'perEvent', 'plain'));
    row('1d', 'Loop overhead: agentloop ÷ the plain loop streaming (`messages.stream`); one SSE event per write', fmt(o.perEvent.ratioStreamed), '≤ 1.10', o.perEvent.ratioStreamed <= 1.1);
    const floor = (mode: typeof o.perReply) => mode.sides.agentloop.ms / mode.sides.plainEvents.ms;
    info('1e', "In-process turn: agentloop ÷ the hand-assembled streaming loop (raw SDK events, no machine: the floor for any streaming harness); reply sent in one write", fmt(floor(o.perReply)), besideFloor(r.overhead, 'perReply', 'plainEvents'));
    row('1f', 'In-process turn: agentloop ÷ the hand-assembled streaming loop; one SSE event per write', fmt(floor(o.perEvent)), '≤ 1.15', floor(o.perEvent) <= 1.15);
  }
  if (r.growth) {
    const g = r.growth;
    const { ownRatio, controlledRatio } = g.interleaved;
    if (Number.isFinite(ownRatio)) {
      row(
        '2',
        `Growth, recorder on, request serialised each turn: agentloop's own µs per turn from 10,000 turns ÷ from 1,000, side by side (heap at 10,000 turns: ${fmt(g.at[10_000]?.heapMb ?? NaN, 0)} MB; the long run: ${fmt(g.ownRatio)}, its whole turn incl. serialising: ${fmt(g.totalRatio)})`,
        fmt(ownRatio),
        '≤ 1.2',
        ownRatio <= 1.2,
      );
    }
    if (Number.isFinite(controlledRatio)) {
      row(
        '2c',
        `Growth with the history itself: agentloop's own µs per turn from 10,000 turns ÷ from 1,000 with each call also serialising 9,000 turns more (as large a body: what row 2 measures, less the aftermath of serialising it; section 2; the long run: ${fmt(g.controlledRatio)})`,
        fmt(controlledRatio),
        '≤ 1.2',
        controlledRatio <= 1.2,
      );
    }
  }
  if (r.persistence) {
    const p = r.persistence;
    row(
      '6',
      `Event loop blocked by persistence per turn (\`monitorEventLoopDelay\`, durable recorder − none; fsyncSync alone: ${fmt(p.sides.durable.fsyncMsPerTurn, 2)} ms a turn on the main thread)`,
      `${fmt(p.blockedMsPerTurn, 2)} ms`,
      '≤ 0.2 ms',
      p.blockedMsPerTurn <= 0.2,
    );
  }
  if (r.bash) {
    for (const [i, b] of r.bash.entries()) {
      row(`3${'abc'[i] ?? ''}`, `Bash tool per command, uncontained tool ÷ raw \`spawn('bash', ['-c', …])\`: \`${b.command}\``, fmt(b.ratio), '≤ 1.3', b.ratio <= 1.3);
    }
    for (const [i, b] of r.bash.entries()) {
      row(
        `3${'def'[i] ?? ''}`,
        `Containment per command (PID namespace through bwrap), added to the uncontained tool: \`${b.command}\``,
        `+${fmt(b.containAddedMs, 1)} ms (×${fmt(b.containRatio)})`,
        '≤ +15 ms',
        b.containAddedMs <= 15,
      );
    }
    const first = r.bash[0];
    if (first?.lifelineAddedMs !== undefined) {
      row(
        '3l',
        `The lifeline per contained command (\`/bin/sh -c WATCH\` before bwrap: one exec of dash and a fork; lifeline.ts): \`${first.command}\` spawned with it − without, median of the paired rounds (${fmt(first.watchedMs ?? Number.NaN, 1)} vs ${fmt(first.bwrapMs ?? Number.NaN, 1)} ms)`,
        `+${fmt(first.lifelineAddedMs, 1)} ms`,
        '≤ +3 ms',
        first.lifelineAddedMs <= 3,
      );
    }
  }
  if (r.bashRss) {
    row('3m', `Peak RSS of the process while \`${r.bashRss.command}\` prints ${fmt(r.bashRss.totalBytes / 2 ** 30, 1)} GiB through the bash tool`, `${r.bashRss.peakMb} MB`, '< 150 MB', r.bashRss.peakMb < 150);
  }
  if (r.parallel) {
    row('4', 'Four `sleep 0.5` tools in one reply: run wall time ÷ the same four one after another', fmt(r.parallel.ratio), '≤ 0.35', r.parallel.ratio <= 0.35);
  }
  if (r.startup) {
    const f = r.startup;
    row('4s', "First tool of a fresh CLI process: the server's write of the block's `content_block_stop` → the exec of the tool's shell, while the reply keeps streaming (median)", `${fmt(f.tool.firstToolMs, 1)} ms`, '≤ 20 ms', f.tool.firstToolMs <= 20);
    if (f.plain) {
      const ratio = f.cli.firstRequestMs / f.plain.firstRequestMs;
      row('5', `Start-up of a \`-p\` run against the local server: process start → first request, CLI ÷ the plain SDK loop (${fmt(f.cli.firstRequestMs, 0)} vs ${fmt(f.plain.firstRequestMs, 0)} ms)`, fmt(ratio), '≤ 1.1', ratio <= 1.1);
    }
  }

  if (r.tracing) {
    const t = r.tracing;
    row('5t', `Start-up of a plain \`-p\` run (tracing off): CPU with the tracing code ÷ without it (${fmt(t.sides.off.cpuMs, 0)} vs ${fmt(t.sides.without.cpuMs, 0)} ms; tracing on ÷ off: ${fmt(t.onOff.cpu)})`, fmt(t.offWithout.cpu), '≤ 1.05', t.offWithout.cpu <= 1.05);
  }

  if (r.durable && !r.durable.skipped) {
    const d = r.durable;
    row(
      '7',
      `Durable run on a local restate-server, one worker: time a turn added to a local run (${fmt(d.durableMsPerTurn, 1)} vs ${fmt(d.localMsPerTurn, 2)} ms a turn; zero-latency model, no-I/O tool)`,
      `+${fmt(d.addedMsPerTurn, 1)} ms`,
      '≤ +50 ms',
      d.addedMsPerTurn <= 50,
    );
  }

  if (r.sessions) {
    const s = r.sessions;
    const sessions = s.sessions.toLocaleString('en-US');
    row('8a', `\`--continue\` finding the newest session of a directory among ${sessions}: now ÷ every transcript parsed (${fmt(s.continueNew, 1)} vs ${fmt(s.continueOld, 0)} ms)`, fmt(s.continueNew / s.continueOld, 4), '≤ 0.05', s.continueNew / s.continueOld <= 0.05);
    row('8b', `The viewer's session list (and \`sessions\`) of ${sessions} sessions, nothing changed since the last listing: now ÷ every transcript parsed (${fmt(s.listSummaryNew, 0)} vs ${fmt(s.listOld, 0)} ms)`, fmt(s.listSummaryNew / s.listOld, 4), '≤ 0.1', s.listSummaryNew / s.listOld <= 0.1);
    const page = Number.isFinite(s.openPageMs) ? s.openPageMs : s.openApiMs;
    row('8c', `A transcript with a 100 MB record opened in the viewer: request → first step shown in Chromium (timeline ${fmt(s.openApiKb, 0)} KB; the old server worked ${fmt(s.openOldMs / 1000, 1)} s, then sent ${fmt(s.openOldMb, 0)} MB)`, `${fmt(page / 1000, 2)} s`, '≤ 3 s', page <= 3000);
  }

  if (r.grep) {
    const g = r.grep;
    g.cases.forEach((c, i) => {
      const ratio = c.toolMs / c.rgMs;
      const label = `Grep tool ÷ \`rg\` over node_modules (${g.files.toLocaleString('en-US')} files), ${c.label} (${fmt(c.toolMs, 0)} vs ${fmt(c.rgMs, 0)} ms)`;
      row(`10${'abc'[i] ?? i}`, label, Number.isFinite(ratio) ? fmt(ratio, 2) : 'no rg', '≤ 5', Number.isFinite(ratio) && ratio <= 5);
    });
  }

  const sections: string[] = [];
  if (r.overhead) sections.push(overheadSection(r.overhead, r.growth, r.machineTurn));
  if (r.growth) sections.push(growthSection(r.growth));
  if (r.persistence) sections.push(persistenceSection(r.persistence));
  if (r.bash || r.bashRss) sections.push(bashSection(r.bash, r.bashRss));
  if (r.parallel || r.streaming || r.startup) sections.push(parallelSection(r.parallel, r.streaming, r.startup));
  if (r.startup) sections.push(startupSection(r.startup));
  if (r.tracing) sections.push(tracingSection(r.tracing));
  if (r.durable) sections.push(durableSection(r.durable));
  if (r.sessions) sections.push(sessionsSection(r.sessions));
  if (r.grep) sections.push(grepSection(r.grep));

  return `# agentloop benchmarks

Generated by \`npm run bench\` (\`tsx bench/run.ts\`); the code is in [bench/](bench/). Every figure
comes from this one run. Each benchmark ran in a fresh process of its own (so that one's heap and
compiled code do not weigh on the next); each side of a ratio was measured in the same process,
interleaved with the other, and each number is a median of repeated runs. Re-run the command to
reproduce.

## Machine

| | |
|---|---|
| Date | ${m.date} |
| CPU | ${m.cpuCount} × ${m.cpuModel}${m.cpuMhz ? ` (${m.cpuMhz} MHz)` : ''} |
| Memory | ${m.memoryGb} GiB (${m.freeMemoryGb} GiB free at start) |
| Node | ${m.node} |
| OS | ${m.platform} |
| Load average (1, 5, 15 min) | ${m.loadAverage.join(', ')} at start; ${r.machineAfter?.loadAverage.join(', ') ?? '?'} at the end |
| Commit | ${m.commit}${m.dirtyFiles ? ` + ${m.dirtyFiles} changed files` : ''} |
| Duration | ${r.seconds} s |

A load average above the CPU count means other work shared the machine: absolute times then
rise, while the side-by-side ratios stay meaningful.

## Summary

| # | Figure | Measured | Target | Result |
|---|---|---|---|---|
${rows.join('\n')}

${sections.join('\n\n')}
`;
}

function overheadSection(o: OverheadFigures, g: GrowthFigures | undefined, m: MachineTurnFigures | undefined): string {
  const labels: Record<OverheadSide, string> = {
    agentloop: 'agentloop `runAgent` (streaming, machine, history check before each send)',
    agentloopObserved: 'agentloop `runAgent` with the transcript recorder, durable (what the CLI runs)',
    plain: 'plain loop, `messages.create` (the tutorial)',
    plainStreamed: 'plain loop, `messages.stream().finalMessage()`',
    plainEvents: 'plain loop, `messages.create({ stream: true })` events put together by hand',
    xstateMinimal: 'the same event loop as the smallest XState machine with invoked actors ([bench/xstateLoop.ts](bench/xstateLoop.ts))',
  };
  const table = (mode: ServerMode) => {
    const f = o.modes[mode];
    const base = f.sides.plain;
    return `| Side | ms per turn | ÷ plain | CPU ms per turn | ÷ plain |
|---|---|---|---|---|
${SIDES.map((s) => {
  const x = f.sides[s];
  return `| ${labels[s]} | ${fmt(x.ms, 3)} | ${fmt(x.ms / base.ms)} | ${fmt(x.cpuMs, 3)} | ${fmt(x.cpuMs / base.cpuMs)} |`;
}).join('\n')}`;
  };
  const r = o.modes.perReply;
  const e = o.modes.perEvent;
  const extraUs = (f: ModeFigures, side: OverheadSide) => fmt((f.sides.agentloop.ms - f.sides[side].ms) * 1000, 0);
  const split = (f: ModeFigures) =>
    `${fmt(f.sides.agentloop.inCallMs, 3)} ms of agentloop's ${fmt(f.sides.agentloop.ms, 3)} ms a turn are spent inside its model call`;
  return `## 1. Loop overhead against the plain loop

The same SDK client (\`createClient\`, retries off) against the same local Messages API server
(test/support/messagesServer.ts, in a child process of its own so that answering costs the measured
process nothing, replies sent with no delay), the same scripted 50-turn conversation (49 replies
with a text block and a tool_use, then a final text) and the same no-op \`echo\` tool. The plain
loop is [bench/plainLoop.ts](bench/plainLoop.ts): \`while (true)\` call the model, push the reply,
run the tools, push the results. ${o.rounds} rounds; each round runs every side against both servers,
in an order that rotates from round to round. Figures are medians over the rounds; "CPU" is the
measured process's own user + system time, the client's work without the wait for the server.

Two servers, identical but for how a streamed reply leaves them. **One write per reply**: the
whole SSE body in one write, as a model with zero latency would have it ready at once; this isolates
what the client does. **One write per SSE event**: the client reads each event on its own, as it
does from the real API, where events come apart in time; each read goes through the HTTP client
(every side's is the loop's SDK client, src/anthropic/client.ts: Node's http, httpFetch.ts) and the SDK's SSE
decoder, which is the cost of streaming itself, paid by any streaming loop. A \`messages.create\` reply
is one write either way.

**One write per reply**

${table('perReply')}

**One write per SSE event**

${table('perEvent')}

agentloop ÷ plain: **${fmt(r.ratio)}** with one write per reply (median of the per-round ratios
${fmt(r.ratioPaired)}), **${fmt(e.ratio)}** with one write per event (${fmt(e.ratioPaired)}). agentloop ÷
plain streamed: **${fmt(r.ratioStreamed)}** and **${fmt(e.ratioStreamed)}**
(${fmt(r.ratioStreamedPaired)} and ${fmt(e.ratioStreamedPaired)}).

${floorsText(o)}

${addedText(o)}

What the figures say:
- The floor for any loop that streams is the hand-assembled event loop: ${fmt(r.floorRatio)} × the
  plain loop with one write per reply, ${fmt(e.floorRatio)} × with one write per event.${
    e.floorRatio > 1.1
      ? ` With events written one by one the floor alone is above 1.10: against \`messages.create\`
  there, no loop that streams can meet the target, whatever it does on top.`
      : ''
  } agentloop streams because its tools start while the reply is still streaming (benchmark 4s)
  and text shows as it comes.
- The same event loop written as the smallest XState v5 machine with the model call and the tools
  as invoked actors (no retries, no streaming tool start, no checks, no observers) is
  ${fmt(r.machineFloorRatio)} × the plain loop with one write per reply and ${fmt(e.machineFloorRatio)} × with one
  per event: ${fmt((r.sides.xstateMinimal.ms - r.sides.plainEvents.ms) * 1000, 0)} µs a turn is the machine alone.${
    r.machineFloorRatio > 1.1 || e.machineFloorRatio > 1.1
      ? ` A loop built as the brief asks (an XState machine with invoked actors) starts above 1.10
  before it does any of agentloop's work.`
      : ''
  }
${m ? `- The machines alone, with an in-process model that answers at once (no HTTP, no serialising; the same
  conversation and tool; [bench/machineTurn.ts](bench/machineTurn.ts), CPU of the process, ${m.rounds} interleaved rounds):
  agentloop's turn takes **${fmt(m.agentloopUs, 0)} µs**, the smallest XState loop's ${fmt(m.minimalUs, 0)} µs
  (${fmt(m.ratio)} ×). agentloop's machine takes ${fmt(m.eventsPerTurn.agentloop, 1)} events a turn, the smallest loop
  ${fmt(m.eventsPerTurn.minimal, 1)} (its two actors' done events), each an XState macrostep with a snapshot of its own
  (counted with XState's inspection; a tool turn: ${m.eventsPerTurn.agentloopTurn.map((t) => `\`${t}\``).join(', ')}):
  a concurrency-safe tool starts while the reply streams, so a complete tool_use is an event of its own, as is such a
  tool's start (a tool that starts only once the reply is in, as this one, is announced in the step that takes the
  reply, with no event back: with the plain protocol instead, the runner's TOOL_STARTED an event more a turn, the turn
  takes ${fmt(m.plainProtocolUs, 0)} µs, ${fmt(m.plainProtocolUs - m.agentloopUs, 0)} µs more: docs/performance.md), and the results rest in \`appendingResults\` as the loop's picture draws it. Every step is announced and the reply is
  checked before it joins the history. XState's own work (macrosteps, snapshots, actor start and stop) is most of a
  profile of it. A profile found the context in V8's dictionary mode: XState copies it with \`Object.assign\` at every
  \`assign\`, and with 22 fields V8 kept the copies as hash tables (about 8 µs a copy); grouped into 16 fields the
  machine's turn took half the time (test/machine/fastContext.process.test.ts keeps it so). A CPU profile of agentloop's side
  here (${m.profile.turns.toLocaleString('en')} turns, node:inspector), share of the main thread's busy time:
  ${m.profile.shares.map((s) => `${s.place} ${fmt(s.percent, 0)} %`).join(', ')}.
` : ''}- agentloop adds ${extraUs(r, 'plainEvents')} µs a turn to that floor with one write per reply
  (${extraUs(e, 'plainEvents')} µs with one per event): the machine's steps, the tool runner, the
  history check (${fmt(o.historyCheckUsPerTurn, 1)} µs a turn on average over this conversation), the
  cache breakpoints. ${split(r)} (the machine's handling of \`TOOL_USE_READY\` and the start of the
  next request run inside it).
${g?.at[1_000] !== undefined ? `- For scale, runAgent with the recorder and an in-process model that only serialises the request
  (benchmark 2) costs ${fmt(g.at[1_000].ownUs, 0)} µs a turn of its own at 1,000 turns.
` : ''}- Against a model that takes 1 s a turn, agentloop's ${extraUs(r, 'plain')} µs over the plain loop
  is a ratio of ${fmt(1 + (r.sides.agentloop.ms - r.sides.plain.ms) / 1000, 4)}.`;
}

function bashSection(b: BashCommandFigures[] | undefined, rss: BashRssFigures | undefined): string {
  const table = (b ?? [])
    .map(
      (x) =>
        `| \`${x.command}\` | ${fmt(x.toolMs)} | ${fmt(x.uncontainedMs)} | ${fmt(x.rawMs)} | +${fmt(x.containAddedMs, 1)} | ${fmt(x.ratio)} | ${fmt(x.ratioPaired)} | ${x.bwrapMs === undefined ? '–' : fmt(x.bwrapMs)} | ${x.watchedMs === undefined ? '–' : fmt(x.watchedMs)} | ${x.lifelineAddedMs === undefined ? '–' : `${x.lifelineAddedMs >= 0 ? '+' : ''}${fmt(x.lifelineAddedMs, 1)}`} |`,
    )
    .join('\n');
  const rssText = rss
    ? `

**Memory.** A fresh process ([bench/bashRss.ts](bench/bashRss.ts)) loads the tool, runs \`true\`,
then runs \`${rss.command}\` through \`createBashTool().run\`; \`VmHWM\` from /proc/self/status:
${rss.baselineMb} MB before the command (Node, tsx and the modules), **${rss.peakMb} MB** peak
after it (sampled RSS peak every 20 ms: ${rss.sampledPeakMb} MB). ${fmt(rss.totalBytes / 2 ** 20, 0)} MiB went through
in ${fmt(rss.ms / 1000, 1)} s (a raw spawn that discards the same output: ${fmt(rss.rawMs / 1000, 1)} s).`
    : '';
  return `## 3. Bash tool overhead

Per command, five sides in the same process, rotating which goes first: \`createBashTool().run\`
as shipped (the command in a PID namespace of its own: the lifeline's watcher, bwrap, the shell that forks the
backstop's sleeper and becomes bash), the
same tool with \`contain: false\` (a process group only, under the lifeline's watcher too), a raw
\`child_process.spawn('bash', ['-c', cmd])\` that collects stdout and stderr, and the contained command's argv
(bwrap, that shell, bash) spawned by itself and under the lifeline's watcher (\`/bin/sh -c WATCH sh …\` with the
lifeline as fd 3: src/tools/bash/run/lifeline.ts, which kills the command's group when the agent dies, kill -9 too),
spawn to exit, output discarded. Containment costs a namespace per command (made and torn down by the kernel, plus
two more execs); the ratio columns compare the uncontained tool with the raw spawn (what the tool's own code adds);
the last column is what the lifeline adds to a command (median of the paired differences).

| Command | contained tool ms | uncontained tool ms | raw spawn ms | containment adds, ms | uncontained ÷ raw | median of paired ratios | bwrap alone ms | under the lifeline ms | lifeline adds, ms |
|---|---|---|---|---|---|---|---|---|---|
${table}${rssText}`;
}

function parallelSection(p: ParallelFigures | undefined, s: StreamingFigures | undefined, f: FreshFigures | undefined): string {
  // Two benchmarks write it (--only=parallel the first two parts, --only=startup the last): parts, for --update.
  const parts: string[] = ['## 4. Parallel and streaming tools'];
  if (p || s) parts.push(partMark('parallel'));
  if (p) {
    parts.push(`Through \`runAgent\`, the SDK and the local server: one reply with four bash tool_use blocks,
each \`sleep 0.5\` (concurrency-safe), then a final text. Sequential side: the same run with the
same tool marked not concurrency-safe, so the executor runs the four one after another.
${p.runs} runs each, interleaved.

| | four at once | one after another | ratio |
|---|---|---|---|
| whole run, ms | ${fmt(p.parallelMs, 0)} | ${fmt(p.sequentialMs, 0)} | **${fmt(p.ratio)}** |
| tool phase (first tool_start → last tool_result), ms | ${fmt(p.parallelToolPhaseMs, 0)} | ${fmt(p.sequentialToolPhaseMs, 0)} | ${fmt(p.toolPhaseRatio)} |`);
  }
  if (s) {
    parts.push(`**Streaming, in a warm process (diagnosis).** The server streams a reply whose first block is a bash tool_use (\`echo
streamed\`), followed by two text blocks, pausing 40 ms between SSE frames, so the reply goes on
streaming for ${fmt(s.streamAfterBlockMs, 0)} ms after the tool_use block ends. Times from the
moment the model call sees the block's \`content_block_stop\` (medians over ${s.runs} runs):

| Step | ms |
|---|---|
| RunEvent \`tool_start\` | ${fmt(s.toToolStartEventMs, 2)} |
| the tool's \`run\` is called | ${fmt(s.toRunMs, 2)} (max ${fmt(s.toRunMaxMs, 2)}) |
| the tool calls spawn for the command's bash | ${fmt(s.toSpawnCalledMs, 1)} |
| **the process runs** (spawn returned; libuv returns after the exec) | **${fmt(s.toProcessStartMs, 1)}** (max ${fmt(s.toProcessStartMaxMs, 1)}) |
| of which spawn() itself (fork + exec of bash from this process) | ${fmt(s.spawnCallMs, 1)} |
| the echo's result is back | ${fmt(s.toEchoDoneMs, 1)} |

Processes spawned per command: ${s.spawnsPerCommand}${s.helpers.length > 0 ? `: bash, and ${s.helpers.map((h) => `\`${h}\``).join(', ')}` : ''}; recorded by wrapping
\`ChildProcess.prototype.spawn\` ([bench/spawnProbe.ts](bench/spawnProbe.ts)). The command
finished before the stream ended in ${s.finishedWhileStreaming} of ${s.runs} runs. These times come from agentloop's own
callbacks in a process that has run tools before: they show where a tool start goes, not what a user sees first.`);
  }
  if (f) parts.push(partMark('startup'), toolStartRows(f));
  return parts.join('\n\n');
}
