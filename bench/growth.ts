/**
 * Benchmark 2: growth. runAgent with an in-process zero-latency model and a no-op tool, for 100,
 * 1,000 and 10,000 turns: microseconds per turn, and how the per-turn cost grows with the history.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { assign, createActor, toPromise } from 'xstate';
import { completeResults, toolUsesOf } from '../src/history/messages.js';
import type { AgentContext } from '../src/machine/context.js';
import type { ModelCall, ModelReply, ToolUseBlock } from '../src/model/types.js';
import { addUsage, zeroUsage } from '../src/model/types.js';
import { createAgentMachine } from '../src/session/actors.js';
import { runAgent } from '../src/session/run.js';
import type { Tool } from '../src/tools/types.js';
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
 * Diagnosis only, not agentloop as shipped: the same machine, with the two actions that append to
 * `messages` (and `turnUsage`) replaced by versions that push in place instead of copying the
 * array. Written for this benchmark's replies (tool_use or end_turn: no continuation). If this
 * variant stays flat while runAgent grows, the growth is the copying.
 */
export async function growthRunInPlace(turns: number): Promise<number> {
  const machine = createAgentMachine({ model: zeroLatencyModel(turns), tools: [noopTool], cwd: process.cwd() }).provide({
    actions: {
      recordReply: assign(({ context }, reply: ModelReply) => {
        context.messages.push({ role: 'assistant', content: [...reply.content] });
        context.turnUsage.push(reply.usage);
        const toolUses = toolUsesOf(reply.content);
        return {
          messages: context.messages,
          turnUsage: context.turnUsage,
          stopReason: reply.stopReason,
          usage: addUsage(context.usage, reply.usage),
          toolUses,
          needsFollowUp: context.needsFollowUp || toolUses.length > 0,
          maxTokensStreak: 0,
          continuation: null,
          retryAttempt: 0,
          error: null,
        } satisfies Partial<AgentContext>;
      }),
      appendResults: assign(({ context }) => {
        context.messages.push({ role: 'user', content: completeResults(context.toolUses, context.toolResults, 'no result') });
        return { messages: context.messages };
      }),
    } as never,
  });
  const start = now();
  const actor = createActor(machine, {
    input: { messages: [{ role: 'user', content: 'go' }], config: { model: 'bench', maxTurns: turns + 1, tools: [] } },
  });
  actor.start();
  const context = await toPromise(actor);
  const ms = now() - start;
  if (context.turnCount !== turns) throw new Error(`in-place growth run ended after ${context.turnCount} turns`);
  return (ms * 1000) / turns;
}

/** The bare machine (createActor, no runAgent) as shipped: separates runAgent's share from the machine's. */
export async function growthRunMachine(turns: number): Promise<number> {
  const machine = createAgentMachine({ model: zeroLatencyModel(turns), tools: [noopTool], cwd: process.cwd() });
  const start = now();
  const actor = createActor(machine, {
    input: { messages: [{ role: 'user', content: 'go' }], config: { model: 'bench', maxTurns: turns + 1, tools: [] } },
  });
  actor.start();
  const context = await toPromise(actor);
  const ms = now() - start;
  if (context.turnCount !== turns) throw new Error(`machine growth run ended after ${context.turnCount} turns`);
  return (ms * 1000) / turns;
}

/**
 * µs for one append-by-copy (`[...messages, message]`, as `appendAssistant` and `appendUser` do)
 * to a history of `length` messages, in a loop that keeps only the newest copy, like the machine.
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
  /** Diagnosis, when asked for: the same sizes with in-place appends (see growthRunInPlace). */
  inPlace?: { usPerTurn: Record<number, number>; ratio10kTo1k: number };
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
  options: { diagnose?: boolean } = {},
): Promise<GrowthFigures> {
  // Each size: runAgent as shipped and, when diagnosing, the in-place variant, run alternately.
  const runners: Array<[string, (turns: number) => Promise<number>]> = [['runAgent', growthRun]];
  if (options.diagnose) runners.push(['in-place appends', growthRunInPlace]);
  for (const [, run] of runners) await run(1_000); // warm-up: JIT, module caches
  const samples: Record<string, Record<number, number[]>> = Object.fromEntries(runners.map(([name]) => [name, {}]));
  for (const size of sizes) {
    for (let i = 0; i < (REPEATS[size] ?? 5); i++) {
      for (const [name, run] of runners) {
        collect();
        ((samples[name] as Record<number, number[]>)[size] ??= []).push(await run(size));
      }
    }
    for (const [name] of runners) {
      log(`growth (${name}) ${size} turns: ${samples[name]?.[size]?.map((v) => v.toFixed(1)).join(' ')} µs/turn`);
    }
  }
  const summarize = (name: string) => {
    const usPerTurn = Object.fromEntries(sizes.map((s) => [s, median(samples[name]?.[s] ?? [])]));
    return { usPerTurn, ratio10kTo1k: (usPerTurn[10_000] ?? NaN) / (usPerTurn[1_000] ?? NaN) };
  };
  const figures: GrowthFigures = { ...summarize('runAgent'), samples: samples.runAgent ?? {} };
  if (options.diagnose) {
    figures.inPlace = summarize('in-place appends');
    figures.copyUs = { at1k: copyCostUs(2_001), at10k: copyCostUs(20_001) };
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchGrowth(undefined, console.log, { diagnose: true });
  console.log(figures.usPerTurn, figures.ratio10kTo1k, figures.inPlace);
}
