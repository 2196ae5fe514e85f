/**
 * Rows 1, 1c and 1e are information, not targets (issue 41): no streaming XState loop with invoked actors passes them
 * (the floors below, measured in the same rounds), and at a real model's pace the difference is under 0.1 %. Each is
 * shown beside its floor, the plain streaming loop (the same streaming SDK, no machine: bench/plainLoop.ts's event
 * loop), with what agentloop adds a turn in µs and what for (`addedPerTurn`).
 *
 * Which of benchmark 1's rows (1-1f) a loop can pass at all: each row's measure taken of the floors measured beside
 * agentloop in the same rounds (bench/overhead.ts): the hand-assembled streaming loop (the least any streaming loop
 * does) and the smallest XState machine with the model call and the tools as invoked actors (bench/xstateLoop.ts:
 * the least a loop built as the brief asks does). A floor over its row's target is a row that no such loop can pass,
 * whatever agentloop does on top; under it, the row leaves agentloop's own work a budget in µs a turn.
 */
import type { ModeFigures, OverheadFigures, OverheadSide, ServerMode } from './overhead.js';
import { fmt } from './stats.js';

interface Row {
  row: string;
  mode: ServerMode;
  /** The side the row divides by. */
  base: OverheadSide;
  target: number;
}

/** The rows as bench/run.ts's summary defines them (1e and 1f divide by the hand-assembled event loop). */
const ROWS: Row[] = [
  { row: '1', mode: 'perReply', base: 'plain', target: 1.1 },
  { row: '1b', mode: 'perReply', base: 'plainStreamed', target: 1.1 },
  { row: '1c', mode: 'perEvent', base: 'plain', target: 1.1 },
  { row: '1d', mode: 'perEvent', base: 'plainStreamed', target: 1.1 },
  { row: '1e', mode: 'perReply', base: 'plainEvents', target: 1.15 },
  { row: '1f', mode: 'perEvent', base: 'plainEvents', target: 1.15 },
];

const BASE_NAMES: Partial<Record<OverheadSide, string>> = {
  plain: '`messages.create`',
  plainStreamed: '`messages.stream`',
  plainEvents: 'the hand-assembled event loop',
};

export interface FloorRow {
  row: string;
  mode: ServerMode;
  base: OverheadSide;
  target: number;
  agentloop: number;
  /** The hand-assembled streaming loop ÷ the row's base. */
  streamingFloor: number;
  /** The smallest XState loop ÷ the row's base. */
  machineFloor: number;
  /** µs a turn a loop may add to the smallest XState loop and still pass (negative: none can). */
  budgetUs: number;
  /** µs a turn agentloop adds to the smallest XState loop. */
  agentloopOverUs: number;
}

export function overheadFloors(o: OverheadFigures): FloorRow[] {
  return ROWS.map(({ row, mode, base, target }) => {
    const sides: ModeFigures['sides'] = o.modes[mode].sides;
    const of = (side: OverheadSide) => sides[side].ms / sides[base].ms;
    return {
      row,
      mode,
      base,
      target,
      agentloop: of('agentloop'),
      streamingFloor: of('plainEvents'),
      machineFloor: of('xstateMinimal'),
      budgetUs: (target * sides[base].ms - sides.xstateMinimal.ms) * 1000,
      agentloopOverUs: (sides.agentloop.ms - sides.xstateMinimal.ms) * 1000,
    };
  });
}

/** The floors as a Markdown table and a sentence per verdict, for section 1. */
export function floorsText(o: OverheadFigures): string {
  const rows = overheadFloors(o);
  const writes = (mode: ServerMode) => (mode === 'perReply' ? 'one write per reply' : 'one write per event');
  const verdict = (r: FloorRow) =>
    r.streamingFloor > r.target
      ? '**no streaming loop can pass**'
      : r.machineFloor > r.target
        ? '**no XState loop with invoked actors can pass**'
        : `${fmt(r.budgetUs, 0)} µs may be added; agentloop adds ${fmt(r.agentloopOverUs, 0)}`;
  const table = rows.map(
    (r) =>
      `| ${r.row} | agentloop ÷ ${BASE_NAMES[r.base]}, ${writes(r.mode)} | ${fmt(r.agentloop)} | ${fmt(r.streamingFloor)} | ${fmt(r.machineFloor)} | ≤ ${fmt(r.target)} | ${verdict(r)} |`,
  );
  return `**Which rows can pass at all.** Each row's measure taken of the two floors measured beside agentloop in the
same rounds ([bench/overheadFloors.ts](bench/overheadFloors.ts)): the hand-assembled streaming loop (the least a
loop that streams does) and the smallest XState loop with invoked actors (the least a loop built as an XState machine
does). A floor over the target is a row that no such loop passed in this run, whatever it does on top of the floor;
under it, what a loop may add to the smallest XState loop and still pass, beside what agentloop adds (µs a turn).

| Row | Measure | agentloop | hand-assembled streaming loop | smallest XState loop | Target | Verdict |
|---|---|---|---|---|---|---|
${table.join('\n')}`;
}

/** What agentloop adds a turn to the floor (the plain streaming loop), in µs, by what it is for. */
export interface AddedPerTurn {
  /** agentloop − the floor. */
  totalUs: number;
  /** The smallest XState machine with the model call and the tools as invoked actors − the floor: the machine itself. */
  machineUs: number;
  /** The history check before each send (`historyCheckUsPerTurn`, measured on its own). */
  historyCheckUs: number;
  /** The rest of agentloop − the smallest XState loop: its events (each step announced, a tool_use and a start of their own), the tool runner and its write-ahead order, the cache breakpoints. */
  eventsUs: number;
  /** The transcript with its write-ahead (a tool_start on disk before the tool runs), as the CLI runs: the recorder's side − agentloop's. */
  transcriptUs: number;
}

export function addedPerTurn(o: OverheadFigures, mode: ServerMode): AddedPerTurn {
  const sides = o.modes[mode].sides;
  const us = (a: OverheadSide, b: OverheadSide) => (sides[a].ms - sides[b].ms) * 1000;
  const machineUs = us('xstateMinimal', 'plainEvents');
  const historyCheckUs = o.historyCheckUsPerTurn;
  return {
    totalUs: us('agentloop', 'plainEvents'),
    machineUs,
    historyCheckUs,
    eventsUs: us('agentloop', 'xstateMinimal') - historyCheckUs,
    transcriptUs: us('agentloopObserved', 'agentloop'),
  };
}

/** The Result cell of rows 1, 1c and 1e: the row's floor and what agentloop adds a turn. */
export function besideFloor(o: OverheadFigures, mode: ServerMode, base: OverheadSide): string {
  const sides = o.modes[mode].sides;
  const floor = sides.plainEvents.ms / sides[base].ms;
  const a = addedPerTurn(o, mode);
  return `floor ${fmt(floor)} (the plain streaming loop); agentloop adds ${fmt(a.totalUs, 0)} µs a turn: machine ${fmt(a.machineUs, 0)}, events ${fmt(a.eventsUs, 0)}, history check ${fmt(a.historyCheckUs, 1)} (section 1)`;
}

/** The table of what agentloop adds a turn, both servers, for section 1. */
export function addedText(o: OverheadFigures): string {
  const [r, e] = [addedPerTurn(o, 'perReply'), addedPerTurn(o, 'perEvent')];
  const line = (what: string, a: number, b: number, digits = 0) => `| ${what} | ${fmt(a, digits)} | ${fmt(b, digits)} |`;
  return `**What agentloop adds a turn to its floor, and what for** (µs a turn, from the medians above; the floor is the
plain streaming loop: the same SDK, \`messages.create({ stream: true })\` events put together by hand, no machine):

| What for | one write per reply | one write per event |
|---|---|---|
${line('the machine: an XState v5 loop with the model call and the tools as invoked actors (the smallest one, bench/xstateLoop.ts)', r.machineUs, e.machineUs)}
${line("the events: each step announced, a complete tool_use and a tool's start as events of their own (a tool starts while the reply streams), the tool runner and its write-ahead order, the cache breakpoints", r.eventsUs, e.eventsUs)}
${line('the history check before each send (measured on its own)', r.historyCheckUs, e.historyCheckUs, 1)}
${line('**agentloop `runAgent` in all**', r.totalUs, e.totalUs)}
${line('and what the CLI adds: the transcript, its write-ahead (a tool_start on disk before its tool runs)', r.transcriptUs, e.transcriptUs)}

Against a model that answers in 1 s, ${fmt(r.totalUs + r.transcriptUs, 0)} µs a turn is ${fmt((100 * (r.totalUs + r.transcriptUs)) / 1e6, 3)} % of the turn. Rows 1,
1c and 1e are therefore information: their targets stand for no loop built as an XState machine with invoked actors
(the table above); the targets that stand are the ones a user feels: end to end against the peers, start-up (row 5),
the first tool (row 4s).`;
}
