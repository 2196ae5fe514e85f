/**
 * Before and after a change to the machine or the run: runAgent's in-process turn (bench/machineTurn.ts's model and
 * tool) from two source trees, interleaved in one process, CPU µs a turn. For a helper's A/B, not `npm run bench`:
 *
 *   d=$(mktemp -d) && git archive main src bench test/support | tar -x -C "$d" && ln -s "$PWD/node_modules" "$d/"
 *   npx tsx bench/abTurn.ts "$d" . 400
 *
 * Prints each tree's median and 10th percentile and B ÷ A as the ratio of the medians and the median of the
 * per-round ratios (the steadier under load). Run it with A and B the same tree once to see the noise.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { TURNS } from './conversation.js';
import { median } from './stats.js';

type Turns = () => Promise<void>;

/** One side: runAgent and the conversation from `tree`, as machineTurn.ts's agentloop side runs them. */
async function sideOf(tree: string): Promise<Turns> {
  const { runAgent } = (await import(resolve(tree, 'src/run/runAgent.ts'))) as typeof import('../src/run/runAgent.js');
  const { conversationStep, echoTool } = (await import(resolve(tree, 'bench/conversation.ts'))) as typeof import('./conversation.js');
  const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const modelCall: import('../src/core/model.js').ModelCall = async (input) => {
    const step = conversationStep(input.request as Parameters<typeof conversationStep>[0]);
    for (const block of step.content) if (block.type === 'tool_use') input.onToolUse(block as never);
    return { content: step.content as never, stopReason: step.stop_reason as never, usage, droppedIncompleteBlock: false };
  };
  return async () => {
    const result = await runAgent('go', { model: 'claude-bench', modelCall, tools: [echoTool], cwd: '/', maxTurns: TURNS + 10 });
    if (result.context.turnCount !== TURNS) throw new Error(`${tree}: ${result.context.turnCount} turns`);
  };
}

const [treeA = '.', treeB = '.', roundsArg = '400'] = process.argv.slice(2);
const sides = [await sideOf(treeA), await sideOf(treeB)];
const cpu: [number[], number[]] = [[], []];
const ratios: number[] = [];
for (let round = -30; round < Number(roundsArg); round++) {
  const got = [0, 0];
  for (const i of round % 2 ? [1, 0] : [0, 1]) {
    const start = process.cpuUsage();
    await sides[i]?.();
    const used = process.cpuUsage(start);
    got[i] = (used.user + used.system) / TURNS;
  }
  if (round < 0) continue;
  cpu[0].push(got[0] as number);
  cpu[1].push(got[1] as number);
  ratios.push((got[1] as number) / (got[0] as number));
}
const tenth = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 10)] as number;
const [a, b] = [median(cpu[0]), median(cpu[1])];
console.log(`A ${a.toFixed(1)} µs, B ${b.toFixed(1)} µs CPU a turn (10th percentile ${tenth(cpu[0]).toFixed(1)}, ${tenth(cpu[1]).toFixed(1)})`);
console.log(`B ÷ A ${(b / a).toFixed(3)}, median of the round ratios ${median(ratios).toFixed(3)}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
