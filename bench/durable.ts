/**
 * Benchmark 7: what durable execution costs a turn. The same 50-turn conversation (bench/conversation.ts: a
 * zero-latency model in the process, a tool that does no I/O, so the harnesses' own costs show) run two ways,
 * interleaved: `runAgent` in the process, and as a durable run on a local restate-server (`@restatedev/restate-server`
 * from node_modules) with one worker in this process, started over the ingress and awaited by attaching. A durable
 * turn journals three steps (the model call, the tool's start, its result) and the transcript's state, each a round
 * trip to the server, which persists it before the handler goes on.
 */
import { randomUUID } from 'node:crypto';
import type { ModelCall } from '../src/core/model.js';
import { zeroUsage } from '../src/core/usage.js';
import { attachRun, submitRun } from '../src/durable/ingress.js';
import { registerDeployment, startWorker } from '../src/durable/worker.js';
import { runAgent } from '../src/run/runAgent.js';
import { restateBinary, startRestateServer } from '../test/durable/restateServer.js';
import { TURNS, conversationStep, echoTool } from './conversation.js';
import { fmt, median, now } from './stats.js';

export interface DurableFigures {
  rounds: number;
  turns: number;
  localMsPerTurn: number;
  durableMsPerTurn: number;
  /** Durable − local, ms a turn. */
  addedMsPerTurn: number;
  ratio: number;
  /** Set when the server binary cannot run here (then nothing was measured). */
  skipped?: string;
}

/** The conversation's model, answered in the process at once. */
const model: ModelCall = async ({ request }) => {
  const step = conversationStep({ model: request.model, max_tokens: request.max_tokens, messages: request.messages });
  return { content: step.content, stopReason: step.stop_reason, usage: { ...zeroUsage(), input_tokens: 10, output_tokens: 5 }, droppedIncompleteBlock: false };
};

export async function benchDurable(rounds: number, log: (line: string) => void): Promise<DurableFigures> {
  const binary = restateBinary();
  if ('problem' in binary) {
    log(`durable: skipped (${binary.problem})`);
    return { rounds: 0, turns: TURNS, localMsPerTurn: NaN, durableMsPerTurn: NaN, addedMsPerTurn: NaN, ratio: NaN, skipped: binary.problem };
  }
  const server = await startRestateServer(binary.path);
  const cwd = process.cwd();
  const worker = await startWorker({ port: 0, model: 'bench', modelCall: model, tools: [echoTool], cwd, log: () => {} });
  try {
    await registerDeployment(server.admin, worker.url);
    const local = async () => {
      const result = await runAgent('Run the tool until done.', { model: 'bench', modelCall: model, tools: [echoTool], cwd, permissions: { allow: ['echo'] } });
      if (result.context.turnCount !== TURNS) throw new Error(`local run took ${result.context.turnCount} turns`);
    };
    // A durable run's calls are judged in the default mode (one journalled permission step each): the rule allows the tool, in both runs.
    const durable = async () => {
      const id = `bench-${randomUUID()}`;
      const { invocationId } = await submitRun(server.ingress, id, { prompt: 'Run the tool until done.', allowedTools: ['echo'] }, id);
      const result = await attachRun(server.ingress, invocationId);
      if (result.context.turnCount !== TURNS) throw new Error(`durable run took ${result.context.turnCount} turns`);
    };
    await local();
    await durable(); // warm-up: the first invocation opens the server's connection to the worker
    const times = { local: [] as number[], durable: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      for (const [side, run] of [['local', local], ['durable', durable]] as const) {
        const started = now();
        await run();
        times[side].push((now() - started) / TURNS);
      }
      log(`durable: round ${round + 1}/${rounds}: local ${fmt(times.local.at(-1) as number, 3)} ms a turn, durable ${fmt(times.durable.at(-1) as number, 2)} ms a turn`);
    }
    const localMsPerTurn = median(times.local);
    const durableMsPerTurn = median(times.durable);
    return { rounds, turns: TURNS, localMsPerTurn, durableMsPerTurn, addedMsPerTurn: durableMsPerTurn - localMsPerTurn, ratio: durableMsPerTurn / localMsPerTurn };
  } finally {
    await worker.close();
    await server.close();
  }
}

export function durableSection(d: DurableFigures): string {
  if (d.skipped) return `## Durable runs\n\nNot measured: ${d.skipped}.`;
  return `## Durable runs

[bench/durable.ts](bench/durable.ts): the ${d.turns}-turn conversation of benchmark 1 with a zero-latency model and a
tool that does no I/O, run in the process (\`runAgent\`) and as a durable run on a local restate-server with one worker
(submitted over the ingress, awaited by attaching), interleaved, median of ${d.rounds} rounds.

| | ms a turn |
|---|---|
| local run | ${fmt(d.localMsPerTurn, 3)} |
| durable run (Restate) | ${fmt(d.durableMsPerTurn, 2)} |
| added by durability | ${fmt(d.addedMsPerTurn, 2)} |

Each durable turn waits for three journal entries to be persisted (model reply, tool start, tool result) plus the
transcript's state writes: the cost is round trips to the Restate server, the same whatever the model or tool, and
small next to a real model call (seconds).`;
}
