/**
 * The machine alone: a turn of `runAgent` against a turn of the smallest XState loop (bench/xstateLoop.ts),
 * both with the same in-process model that answers at once (the conversation of benchmark 1, no HTTP, no
 * serialising) and the same no-op tool. What is left is each loop's own work: XState's steps, the events,
 * the tool runner, the checks. CPU time of this process per turn (`process.cpuUsage`), interleaved rounds.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelCall } from '../src/core/model.js';
import { runAgent } from '../src/session/run.js';
import { TURNS, conversationStep, echoTool } from './conversation.js';
import { median } from './stats.js';
import { xstateLoopWith } from './xstateLoop.js';

export interface MachineTurnFigures {
  rounds: number;
  /** Median CPU µs per turn. */
  agentloopUs: number;
  minimalUs: number;
  ratio: number;
}

const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

/** The conversation's next reply, handed over as a streaming model call would: each tool_use as it completes. */
const inProcessModel: ModelCall = async (input) => {
  const step = conversationStep(input.request as Parameters<typeof conversationStep>[0]);
  for (const block of step.content) if (block.type === 'tool_use') input.onToolUse(block as never);
  return { content: step.content as never, stopReason: step.stop_reason as never, usage, droppedIncompleteBlock: false };
};

const minimalStep = {
  call: async (messages: Anthropic.MessageParam[]) =>
    conversationStep({ messages } as Parameters<typeof conversationStep>[0]).content as Anthropic.ContentBlock[],
  runTools: async (content: Anthropic.ContentBlock[]) => {
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of content) {
      if (block.type !== 'tool_use') continue;
      const output = await echoTool.run(block.input, { cwd: '/', signal: new AbortController().signal });
      results.push({ type: 'tool_result', tool_use_id: block.id, content: output.content });
    }
    return results;
  },
};

const sides = {
  agentloop: async () => {
    const result = await runAgent('go', { model: 'claude-bench', modelCall: inProcessModel, tools: [echoTool], cwd: '/', maxTurns: TURNS + 10 });
    if (result.context.turnCount !== TURNS) throw new Error(`agentloop ran ${result.context.turnCount} turns`);
  },
  minimal: async () => {
    const result = await xstateLoopWith('go', minimalStep);
    if (result.turns !== TURNS) throw new Error(`the minimal machine ran ${result.turns} turns`);
  },
};

export async function benchMachineTurn(rounds: number, log: (line: string) => void): Promise<MachineTurnFigures> {
  const cpu: Record<keyof typeof sides, number[]> = { agentloop: [], minimal: [] };
  const order = Object.keys(sides) as Array<keyof typeof sides>;
  for (let round = -20; round < rounds; round++) {
    for (const name of round % 2 ? [...order].reverse() : order) {
      const start = process.cpuUsage();
      await sides[name]();
      const used = process.cpuUsage(start);
      if (round >= 0) cpu[name].push((used.user + used.system) / TURNS);
    }
  }
  const figures = { rounds, agentloopUs: median(cpu.agentloop), minimalUs: median(cpu.minimal), ratio: 0 };
  figures.ratio = figures.agentloopUs / figures.minimalUs;
  log(`machine alone: agentloop ${figures.agentloopUs.toFixed(0)} µs, minimal machine ${figures.minimalUs.toFixed(0)} µs CPU a turn`);
  return figures;
}
