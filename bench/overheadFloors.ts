/**
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
