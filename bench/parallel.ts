/**
 * Benchmark 4: parallel and streaming tools, through runAgent, the real SDK and the local server
 * (in its own process).
 *
 * - Four `sleep 0.5` bash calls in one reply: the run's wall time with the bash tool as it is
 *   (sleep is concurrency-safe) ÷ the same run with the same tool marked unsafe, so the four run
 *   one after another. Also the tool phase alone (first tool_start to last tool_result).
 * - Streaming: a reply whose tool_use block is followed by more streamed text. From the
 *   tool_use's content_block_stop (seen by the model call) to the tool's start, and to the end of
 *   an `echo` through the bash tool (an upper bound on its process start), while the reply is
 *   still streaming.
 */
import { createClient } from '../src/anthropic/client.js';
import { createAnthropicModel } from '../src/anthropic/call.js';
import type { ModelCall } from '../src/core/model.js';
import { runAgent } from '../src/run/runAgent.js';
import { type RunEvent } from '../src/core/events.js';
import { createBashTool } from '../src/tools/bash/bashTool.js';
import type { Tool } from '../src/core/tool.js';
import type { ScriptedBlock } from '../test/support/messagesServer.js';
import { startRemoteServer } from './serverClient.js';
import { installSpawnProbe, spawns } from './spawnProbe.js';
import { median, now } from './stats.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ParallelFigures {
  runs: number;
  parallelMs: number;
  sequentialMs: number;
  /** Whole run, parallel ÷ sequential. */
  ratio: number;
  parallelToolPhaseMs: number;
  sequentialToolPhaseMs: number;
  toolPhaseRatio: number;
}

const sleepCalls = (run: number): ScriptedBlock[] =>
  [1, 2, 3, 4].map((i) => ({ type: 'tool_use', id: `toolu_sleep_${run}_${i}`, name: 'bash', input: { command: 'sleep 0.5' } }));

/** The bash tool, but never concurrency-safe: the executor runs its calls one after another. */
function sequential(tool: Tool): Tool {
  return { ...tool, isConcurrencySafe: () => false };
}

export async function benchParallel(runs = 5, log: (line: string) => void = () => {}): Promise<ParallelFigures> {
  const server = await startRemoteServer();
  const cwd = mkdtempSync(join(tmpdir(), 'agentloop-bench-'));
  try {
    const client = createClient({ apiKey: 'test', baseURL: server.url });
    const bash = createBashTool({ cwd });
    if (!bash.isConcurrencySafe?.({ command: 'sleep 0.5' })) throw new Error('sleep 0.5 is not concurrency-safe');
    let runId = 0;
    const once = async (tool: Tool) => {
      runId += 1;
      await server.enqueue(
        { content: [{ type: 'text', text: 'Four naps.' }, ...sleepCalls(runId)], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'Rested.' }], stop_reason: 'end_turn' },
      );
      const starts: number[] = [];
      const ends: number[] = [];
      const onEvent = (event: RunEvent) => {
        if (event.type === 'tool_start') starts.push(now());
        if (event.type === 'tool_result') ends.push(now());
      };
      const start = now();
      const result = await runAgent('Sleep four times.', { model: 'claude-bench', client: { client }, tools: [tool], cwd, onEvent });
      const ms = now() - start;
      if (result.state !== 'done' || ends.length !== 4) throw new Error(`parallel run ended ${result.state} with ${ends.length} results`);
      await server.clear();
      return { ms, toolPhase: Math.max(...ends) - Math.min(...starts) };
    };
    await once(bash); // warm-up
    const par: Array<{ ms: number; toolPhase: number }> = [];
    const seq: Array<{ ms: number; toolPhase: number }> = [];
    for (let i = 0; i < runs; i++) {
      par.push(await once(bash));
      seq.push(await once(sequential(bash)));
      log(`parallel run ${i + 1}/${runs}: four at once ${par.at(-1)?.ms.toFixed(0)} ms, one after another ${seq.at(-1)?.ms.toFixed(0)} ms`);
    }
    const parallelMs = median(par.map((r) => r.ms));
    const sequentialMs = median(seq.map((r) => r.ms));
    const parallelToolPhaseMs = median(par.map((r) => r.toolPhase));
    const sequentialToolPhaseMs = median(seq.map((r) => r.toolPhase));
    return {
      runs,
      parallelMs,
      sequentialMs,
      ratio: parallelMs / sequentialMs,
      parallelToolPhaseMs,
      sequentialToolPhaseMs,
      toolPhaseRatio: parallelToolPhaseMs / sequentialToolPhaseMs,
    };
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

export interface StreamingFigures {
  runs: number;
  /** content_block_stop → the tool's `run` is called (median / max over runs), ms. */
  toRunMs: number;
  toRunMaxMs: number;
  /** content_block_stop → RunEvent `tool_start`, ms. */
  toToolStartEventMs: number;
  /** content_block_stop → the tool calls spawn for the command's bash process, ms. */
  toSpawnCalledMs: number;
  /** content_block_stop → spawn returned: the command's process runs (libuv waits for its exec), ms. */
  toProcessStartMs: number;
  toProcessStartMaxMs: number;
  /** How long spawn() of the command's bash took (fork + exec; the OS's share of the start), ms. */
  spawnCallMs: number;
  /** Processes spawned per command (the bash process and any helper, such as mkfifo). */
  spawnsPerCommand: number;
  /** The commands of the helper processes, e.g. `mkfifo`. */
  helpers: string[];
  /** content_block_stop → `echo` finished through the bash tool, ms. */
  toEchoDoneMs: number;
  /** How long the reply went on streaming after the tool_use block ended, ms (median). */
  streamAfterBlockMs: number;
  /** Runs in which the echo finished before the stream ended. */
  finishedWhileStreaming: number;
}

export async function benchStreaming(runs = 10, log: (line: string) => void = () => {}): Promise<StreamingFigures> {
  const frameDelayMs = 40;
  const server = await startRemoteServer({ eventDelayMs: frameDelayMs });
  const cwd = mkdtempSync(join(tmpdir(), 'agentloop-bench-'));
  try {
    const client = createClient({ apiKey: 'test', baseURL: server.url });
    const bash = createBashTool({ cwd });
    if (!bash.isConcurrencySafe?.({ command: 'echo streamed' })) throw new Error('echo is not concurrency-safe');
    installSpawnProbe();
    const samples: Array<{
      toRun: number;
      toEvent: number;
      toSpawnCalled: number;
      toStart: number;
      spawnCall: number;
      spawned: number;
      helpers: string[];
      toDone: number;
      streamAfter: number;
      whileStreaming: boolean;
    }> = [];
    for (let run = 0; run <= runs; run++) {
      let blockStop = 0;
      let runCalled = 0;
      let runDone = 0;
      let toolStartEvent = 0;
      let streamEnd = 0;
      const model = createAnthropicModel({ client });
      const timedModel: ModelCall = async (input, signal) => {
        const reply = await model(
          {
            ...input,
            onToolUse: (block) => {
              if (blockStop === 0) blockStop = now();
              input.onToolUse(block);
            },
          },
          signal,
        );
        if (streamEnd === 0) streamEnd = now();
        return reply;
      };
      const tool: Tool = {
        ...bash,
        run: async (input, context) => {
          runCalled = now();
          const out = await bash.run(input, context);
          runDone = now();
          return out;
        },
      };
      spawns.splice(0);
      await server.enqueue(
        {
          content: [
            { type: 'tool_use', id: `toolu_stream_${run}`, name: 'bash', input: { command: 'echo streamed' } },
            { type: 'text', text: 'While that runs, here is a longer explanation of what I am doing, streamed slowly.' },
            { type: 'text', text: 'And a second paragraph, so that the stream goes on for a while after the tool_use.' },
          ],
          stop_reason: 'tool_use',
        },
        { content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn', delayMs: 0 },
      );
      const result = await runAgent('Echo something.', {
        model: 'claude-bench',
        modelCall: timedModel,
        tools: [tool],
        cwd,
        onEvent: (event) => {
          if (event.type === 'tool_start' && toolStartEvent === 0) toolStartEvent = now();
        },
      });
      await server.clear();
      if (result.state !== 'done') throw new Error(`streaming run ended ${result.state}: ${result.context.error?.message}`);
      if (run === 0) continue; // warm-up
      const during = spawns.filter((s) => s.calledAt >= runCalled && s.calledAt <= runDone);
      const shell = during.find((s) => s.file === 'bash' || s.file.endsWith('/bash') || s.args.includes('echo streamed'));
      if (!shell) throw new Error(`no bash process was spawned: ${during.map((s) => s.file).join(', ')}`);
      samples.push({
        toRun: runCalled - blockStop,
        toEvent: toolStartEvent - blockStop,
        toSpawnCalled: shell.calledAt - blockStop,
        toStart: shell.startedAt - blockStop,
        spawnCall: shell.startedAt - shell.calledAt,
        spawned: during.length,
        helpers: during.filter((p) => p !== shell).map((p) => p.file),
        toDone: runDone - blockStop,
        streamAfter: streamEnd - blockStop,
        whileStreaming: runDone < streamEnd,
      });
      const s = samples.at(-1);
      log(
        `streaming run ${run}/${runs}: block stop → run ${s?.toRun.toFixed(2)} ms, → spawn ${s?.toSpawnCalled.toFixed(2)} ms, ` +
          `→ process start ${s?.toStart.toFixed(2)} ms (${s?.spawned} spawns), → echo done ${s?.toDone.toFixed(2)} ms; stream went on ${s?.streamAfter.toFixed(0)} ms`,
      );
    }
    return {
      runs,
      toRunMs: median(samples.map((s) => s.toRun)),
      toRunMaxMs: Math.max(...samples.map((s) => s.toRun)),
      toToolStartEventMs: median(samples.map((s) => s.toEvent)),
      toSpawnCalledMs: median(samples.map((s) => s.toSpawnCalled)),
      toProcessStartMs: median(samples.map((s) => s.toStart)),
      toProcessStartMaxMs: Math.max(...samples.map((s) => s.toStart)),
      spawnCallMs: median(samples.map((s) => s.spawnCall)),
      spawnsPerCommand: median(samples.map((s) => s.spawned)),
      helpers: [...new Set(samples.flatMap((s) => s.helpers))],
      toEchoDoneMs: median(samples.map((s) => s.toDone)),
      streamAfterBlockMs: median(samples.map((s) => s.streamAfter)),
      finishedWhileStreaming: samples.filter((s) => s.whileStreaming).length,
    };
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] !== "streaming") console.log(await benchParallel(3, console.log));
  console.log(await benchStreaming(5, console.log));
}
