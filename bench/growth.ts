/**
 * Benchmark 2: growth, as the CLI runs: runAgent with the transcript recorder on (durable, fsync included) and
 * agentloop's model service (`createAnthropicModel`: the history check, the cache breakpoints, the request record, the
 * stream reader) with the SDK's client taken in process: it serialises each request as the SDK does (`JSON.stringify`
 * of the whole body, every turn) and streams back a tool_use at once, for a no-op tool, for 10,000 turns in one run (after 1,000 turns that warm the code up, discarded).
 * The cost of a turn is the time from one model call to the next; "at 1,000 turns" is the median over turns
 * 901–1,000, "at 10,000" over turns 9,901–10,000. The serialisation grows with the history for any harness that sends
 * it (the plain loop too); agentloop's own share is the turn less the time inside the client's call.
 *
 * Serialising a large body also costs the turn after it: no collection falls there, but the loop's code runs slower
 * after it (see the section's prose). A control run shows how much of the growth that is:
 * 1,000 turns in which each model call serialises, besides its own request, the history of the long run at its last
 * mark (as large a body as it sent there), inside the timed call; agentloop's own share at 10,000 turns ÷ the control's
 * at 1,000 is what grows with the history itself. The same two ratios are then measured side by side, interleaved
 * (bench/growthSides.ts), where the load of a shared machine weighs on both lengths alike.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createAnthropicModel } from '../src/anthropic/call.js';
import type { ModelCall } from '../src/core/model.js';
import { startSession } from '../src/transcript/recorder.js';
import { runAgent } from '../src/run/runAgent.js';
import { growthSides } from './growthSides.js';
import { inProcessClient, noopTool } from './inProcessClient.js';
import { fmt, median, now } from './stats.js';

/** A full collection, for the heap figures. */
const collect: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

export interface GrowthFigures {
  turns: number;
  /** µs per turn (median of the 100 turns before each mark): whole turn, inside the model call, and the rest. */
  at: Record<number, { totalUs: number; serialiseUs: number; ownUs: number; heapMb: number; bodyKb: number }>;
  /** agentloop's own µs per turn at 10,000 ÷ at 1,000 (the target), and the same for the whole turn. */
  ownRatio: number;
  totalRatio: number;
  /** The control run: agentloop's own µs per turn at 1,000 turns with each call also serialising the long run's history. */
  control: { ownUs: number; ballastKb: number };
  /** agentloop's own µs per turn at 10,000 (or the last mark) ÷ the control's: the growth with the history itself. */
  controlledRatio: number;
  /**
   * The same two ratios measured side by side (bench/growthSides.ts): 100-turn runs from 1,000 and from 10,000 turns,
   * interleaved. These are the summary's rows 2 and 2c: both lengths see the same load, where the long run's marks
   * are a minute and a half apart.
   */
  interleaved: { ownRatio: number; controlledRatio: number };
  transcriptMb: number;
  seconds: number;
}

const MARKS = [1_000, 10_000];
/** Turns run first and discarded (see benchGrowth). */
const WARM_UP = 1_000;
/** Rounds of the interleaved check (bench/growthSides.ts), after one that warms up. */
const INTERLEAVED_ROUNDS = 9;

/** agentloop's model service over `inProcessClient`: the time inside `create` is the serialisation (and `ballast`'s). */
function serialisingModel(turns: number, calls: number[], inCall: number[], bodies: number[], heaps: Map<number, number>, ballast?: unknown): ModelCall {
  return createAnthropicModel({
    client: inProcessClient(turns, (body) => {
      const start = now();
      calls.push(start);
      bodies.push(JSON.stringify(body).length);
      if (ballast !== undefined) JSON.stringify(ballast);
      inCall.push(now() - start);
      if (MARKS.includes(calls.length)) {
        collect();
        heaps.set(calls.length, v8.getHeapStatistics().used_heap_size);
      }
    }),
  });
}

interface GrowthRun {
  at: GrowthFigures['at'];
  messages: readonly unknown[];
  transcriptBytes: number;
}

/** One run of `turns` turns with the recorder on; the figures at the marks it reaches. */
async function growthRun(home: string, turns: number, marks: number[], ballast?: unknown): Promise<GrowthRun> {
  const calls: number[] = [];
  const inCall: number[] = [];
  const bodies: number[] = [];
  const heaps = new Map<number, number>();
  const recorder = startSession(home, { cwd: process.cwd(), model: 'bench' });
  recorder.prompt('go');
  collect();
  const result = await runAgent('go', {
    model: 'bench',
    modelCall: serialisingModel(turns, calls, inCall, bodies, heaps, ballast),
    tools: [noopTool],
    maxTurns: turns + 1,
    cwd: process.cwd(),
    onEvent: recorder.onEvent,
  });
  recorder.finish(result);
  recorder.close();
  if (result.state !== 'done' || result.context.turnCount < turns) {
    throw new Error(`growth run ended ${result.state} after ${result.context.turnCount} turns`);
  }
  const at: GrowthFigures['at'] = {};
  for (const mark of marks.filter((m) => m <= turns)) {
    const window = Array.from({ length: 100 }, (_, i) => mark - 100 + i).filter((i) => i >= 1);
    // Turn i runs from call i-1 to call i (0-based calls): the model call, the machine, the tool, the recorder.
    const total = window.map((i) => ((calls[i] ?? NaN) - (calls[i - 1] ?? NaN)) * 1000);
    const serialise = window.map((i) => (inCall[i - 1] ?? NaN) * 1000);
    const own = window.map((_, k) => (total[k] ?? NaN) - (serialise[k] ?? NaN));
    at[mark] = {
      totalUs: median(total),
      serialiseUs: median(serialise),
      ownUs: median(own),
      heapMb: (heaps.get(mark) ?? NaN) / 2 ** 20,
      bodyKb: (bodies[mark - 1] ?? NaN) / 1024,
    };
  }
  return { at, messages: result.context.messages, transcriptBytes: statSync(recorder.path).size };
}

export async function benchGrowth(turns = 10_000, log: (line: string) => void = () => {}): Promise<GrowthFigures> {
  const home = mkdtempSync(join(tmpdir(), 'agentloop-growth-'));
  const started = now();
  try {
    // Warm-up, discarded: the JIT is still at work around turn 1,000 of a fresh process, so without it the figure at
    // 1,000 turns was of colder code than the one at 10,000 (and the control's, which runs after the long run).
    await growthRun(home, WARM_UP, []);
    const long = await growthRun(home, turns, MARKS);
    const { at } = long;
    for (const [mark, x] of Object.entries(at)) {
      log(`growth at ${mark} turns: ${fmt(x.totalUs, 0)} µs a turn, ${fmt(x.serialiseUs, 0)} µs of it serialising, heap ${fmt(x.heapMb, 1)} MB`);
    }
    // The control: each call of a 1,000-turn run serialises, besides its own body, the history of the turns the long
    // run had more at its last mark, so that in all it serialises as large a body as the long run sent there (the
    // request of call m holds 2m - 1 messages).
    const lastMark = Math.max(...Object.keys(at).map(Number));
    const ballast = { messages: long.messages.slice(0, 2 * (lastMark - 1_000) - 1) };
    const control = (await growthRun(home, 1_000, [1_000], ballast)).at[1_000];
    const controlOwn = control?.ownUs ?? NaN;
    log(`growth control (1,000 turns, each call also serialising the history at ${lastMark} turns): agentloop's own ${fmt(controlOwn, 0)} µs a turn`);
    const sides = await growthSides(['recorder', 'recorder+ballast'], INTERLEAVED_ROUNDS);
    const ratioOf = (side: string) => (sides.get(side)?.from10k ?? NaN) / (sides.get(side)?.from1k ?? NaN);
    const interleaved = { ownRatio: ratioOf('recorder'), controlledRatio: ratioOf('recorder+ballast') };
    log(`growth interleaved (${INTERLEAVED_ROUNDS} rounds): own ÷ ${fmt(interleaved.ownRatio)}, with the same serialisation at both lengths ÷ ${fmt(interleaved.controlledRatio)}`);
    const a = at[1_000];
    const b = at[10_000];
    const last = at[lastMark];
    return {
      turns,
      at,
      ownRatio: a && b ? b.ownUs / a.ownUs : NaN,
      totalRatio: a && b ? b.totalUs / a.totalUs : NaN,
      control: { ownUs: controlOwn, ballastKb: JSON.stringify(ballast).length / 1024 },
      controlledRatio: last ? last.ownUs / controlOwn : NaN,
      interleaved,
      transcriptMb: long.transcriptBytes / 2 ** 20,
      seconds: (now() - started) / 1000,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export function growthSection(g: GrowthFigures): string {
  const rows = Object.entries(g.at)
    .map(([mark, x]) => `| ${Number(mark).toLocaleString('en')} | ${fmt(x.totalUs, 0)} | ${fmt(x.serialiseUs, 0)} | **${fmt(x.ownUs, 0)}** | ${fmt(x.bodyKb, 0)} | ${fmt(x.heapMb, 1)} |`)
    .join('\n');
  return `## 2. Growth

As the CLI runs: \`runAgent\` with the transcript recorder on (durable: fsync included) and agentloop's model service
(\`createAnthropicModel\`) with the SDK's client taken in process: it serialises each request as the SDK does
(\`JSON.stringify\` of the whole body, every turn) and streams back a tool_use at once, for a no-op tool:
${g.turns.toLocaleString('en')} turns in one run (${fmt(g.seconds, 0)} s, after a run of ${WARM_UP.toLocaleString('en')} turns that warms the code up, discarded:
without it the JIT was still at work around turn 1,000, and the figure there was of colder code than the others). A
turn is the time from one model call to the next; each figure is the median over the 100 turns before the mark. The serialisation is what any loop that sends the
history pays (it grows with it); agentloop's own share is the rest: the machine, the history check, the cache
breakpoints, the stream reader, the tool runner, the events for the observers, the recorder.

| Turns | µs per turn | of which serialising | agentloop's own | body sent, KB | heap after a full GC, MB |
|---|---|---|---|---|---|
${rows}

agentloop's own µs per turn at 10,000 ÷ at 1,000 in this one run: ${fmt(g.ownRatio)} (the summary's row 2 is the side-by-side figure below); the whole turn:
${fmt(g.totalRatio)}. The transcript of the run: ${fmt(g.transcriptMb, 1)} MB.

Serialising a large body also costs the turn after it, and that lands in agentloop's share: not as collections (V8's
\`gc\` entries all fell inside the calls, none in agentloop's share), but as slower code after it (runAgent without
serialising its requests, a 20,000-message ballast serialised in each call instead: 146 → 260-640 µs a turn from run to
run at load 3-7; copying 8 MB of bytes in each call instead: 233; making a 1.8 MB string: no change). Control: a run of 1,000
turns in which each model call also serialises the history of the turns the long run had more at its last mark
(${fmt(g.control.ballastKb, 0)} KB: with its own body, as large as the body the long run sent there), inside the timed call: agentloop's own ${fmt(g.control.ownUs, 0)} µs per turn. agentloop's own
at ${Math.max(...Object.keys(g.at).map(Number)).toLocaleString('en')} turns ÷ the control's: ${fmt(g.controlledRatio)}, what grows with the history itself.

The medians above come from one run: the figure at 1,000 turns is taken a second in, the one at 10,000 a minute and
a half later, and on a shared machine the load between them moves either (successive 100-turn medians near one mark
differed by up to 65% at load 5-7). So the summary's rows 2 and 2c are measured side by side instead
(bench/growthSides.ts: runs of 100 turns from a history of 1,000 turns and from one of 10,000, given as \`messages\`,
interleaved over ${INTERLEAVED_ROUNDS} rounds after one that warms up, so that both lengths see the same load): agentloop's own µs per
turn from 10,000 ÷ from 1,000: **${fmt(g.interleaved.ownRatio)}** (row 2); with the same serialisation at both lengths (the
1,000-turn runs' calls also serialise a history of 9,000 turns, so that they serialise as much as the 10,000-turn
runs): **${fmt(g.interleaved.controlledRatio)}** (row 2c). The long run above, for the same two: ${fmt(g.ownRatio)} and ${fmt(g.controlledRatio)}.`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchGrowth(Number(process.argv[2] ?? 10_000), console.log);
  console.log(growthSection(figures));
}
