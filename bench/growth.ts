/**
 * Benchmark 2: growth. runAgent with an in-process zero-latency model and a no-op tool, for 100,
 * 1,000 and 10,000 turns: microseconds per turn, and how the per-turn cost grows with the history.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { ModelCall, ModelReply } from '../src/core/model.js';
import type { ToolUseBlock } from '../src/core/messages.js';
import { zeroUsage } from '../src/core/usage.js';
import { runAgent } from '../src/session/run.js';
import type { Tool } from '../src/core/tool.js';
import { median, now } from './stats.js';

export const noopTool: Tool = {
  name: 'noop',
  description: 'Does nothing.',
  inputSchema: { type: 'object', properties: {} },
  run: async () => ({ content: 'ok', isError: false }),
};

/** Answers a tool_use on every call before `turns`, then text: no I/O, no copying of the request. */
export function zeroLatencyModel(turns: number): ModelCall {
  return async ({ turnCount, onToolUse }) => {
    if (turnCount < turns) {
      const block: ToolUseBlock = { type: 'tool_use', id: `toolu_${turnCount}`, name: 'noop', input: {} };
      onToolUse(block);
      return { content: [block], stopReason: 'tool_use', usage: zeroUsage(), droppedIncompleteBlock: false } satisfies ModelReply;
    }
    return { content: [{ type: 'text', text: 'done' }], stopReason: 'end_turn', usage: zeroUsage(), droppedIncompleteBlock: false };
  };
}

/** One run of `turns` model calls; returns µs per turn. */
export async function growthRun(turns: number): Promise<number> {
  const start = now();
  const result = await runAgent('go', {
    model: 'bench',
    modelCall: zeroLatencyModel(turns),
    tools: [noopTool],
    maxTurns: turns + 1,
    cwd: process.cwd(),
  });
  const ms = now() - start;
  if (result.state !== 'done' || result.context.turnCount !== turns) {
    throw new Error(`growth run ended ${result.state} after ${result.context.turnCount} turns`);
  }
  return (ms * 1000) / turns;
}

/**
 * µs for one append-by-copy (`[...messages, message]`, the way an immutable context would grow
 * the history) to a history of `length` messages, in a loop that keeps only the newest copy: why
 * `messages` is an append-only log pushed in place.
 */
export function copyCostUs(length: number, repeat = 300): number {
  let messages: unknown[] = Array.from({ length }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [] }));
  const samples: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = now();
    for (let i = 0; i < repeat; i++) messages = [...messages.slice(0, length - 1), { i }];
    samples.push(((now() - start) * 1000) / repeat);
  }
  return median(samples);
}

export interface GrowthFigures {
  usPerTurn: Record<number, number>;
  samples: Record<number, number[]>;
  ratio10kTo1k: number;
  /** µs of one copy of the history at 1,000 turns (2,001 messages) and 10,000 turns (20,001). */
  copyUs?: { at1k: number; at10k: number };
}

const REPEATS: Record<number, number> = { 100: 31, 1_000: 9, 10_000: 5 };

/** A full collection before each run, so that no run pays for the garbage of the one before. */
const collect: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

export async function benchGrowth(
  sizes = [100, 1_000, 10_000],
  log: (line: string) => void = () => {},
  options: { copyCost?: boolean } = {},
): Promise<GrowthFigures> {
  await growthRun(1_000); // warm-up: JIT, module caches
  const samples: Record<number, number[]> = {};
  for (const size of sizes) {
    for (let i = 0; i < (REPEATS[size] ?? 5); i++) {
      collect();
      (samples[size] ??= []).push(await growthRun(size));
    }
    log(`growth ${size} turns: ${samples[size]?.map((v) => v.toFixed(1)).join(' ')} µs/turn`);
  }
  const usPerTurn = Object.fromEntries(sizes.map((s) => [s, median(samples[s] ?? [])]));
  const figures: GrowthFigures = { usPerTurn, samples, ratio10kTo1k: (usPerTurn[10_000] ?? NaN) / (usPerTurn[1_000] ?? NaN) };
  if (options.copyCost) figures.copyUs = { at1k: copyCostUs(2_001), at10k: copyCostUs(20_001) };
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchGrowth(undefined, console.log, { copyCost: true });
  console.log(figures.usPerTurn, figures.ratio10kTo1k, figures.copyUs);
}
