/**
 * The machine alone: a turn of `runAgent` against a turn of the smallest XState loop (bench/xstateLoop.ts),
 * both with the same in-process model that answers at once (the conversation of benchmark 1, no HTTP, no
 * serialising) and the same no-op tool. What is left is each loop's own work: XState's steps, the events,
 * the tool runner, the checks. CPU time of this process per turn (`process.cpuUsage`), interleaved rounds.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import type { ModelCall } from '../src/core/model.js';
import { agentMachine } from '../src/machine/agentMachine.js';
import { runAgent } from '../src/run/runAgent.js';
import { TURNS, conversationStep, echoTool } from './conversation.js';
import { summarizeProfiles } from './profileSummary.js';
import { median } from './stats.js';
import { xstateLoopWith } from './xstateLoop.js';

export interface MachineTurnFigures {
  rounds: number;
  /** Median CPU µs per turn. */
  agentloopUs: number;
  minimalUs: number;
  ratio: number;
  /**
   * agentloop's machine with the plain runner protocol for the tool that starts when the reply is in: the runner
   * announces it (TOOL_STARTED, an event of its own) instead of the machine in the step that takes the reply (FINISH's
   * `announced`, the guard `runnerStartsAtFinish`): one event more a tool turn. Median CPU µs per turn.
   */
  plainProtocolUs: number;
  /**
   * The events each machine takes in a tool turn (each one an XState macrostep: a snapshot, its observers), counted
   * with XState's inspection over one run and divided by its turns; `agentloopTurn` names those of one turn.
   */
  eventsPerTurn: { agentloop: number; minimal: number; agentloopTurn: string[] };
  /** A CPU profile of agentloop's side: share of the main thread's busy time by where the code lives. */
  profile: { turns: number; shares: Array<{ place: string; percent: number }> };
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

/** Counts the events the root actor of a run takes (`@xstate.event` to it), by turn of the conversation. */
function eventCounter() {
  const byTurn: string[][] = [[]];
  const inspect = (e: InspectionEvent) => {
    if (e.type !== '@xstate.event' || e.actorRef.sessionId !== e.rootId) return;
    byTurn.at(-1)?.push(e.event.type);
    // agentloop's turn ends once its results are in (the minimal loop's events are only counted).
    if (e.event.type === 'RESULTS_APPENDED') byTurn.push([]);
  };
  return { byTurn, inspect };
}

async function eventsPerTurn(): Promise<MachineTurnFigures['eventsPerTurn']> {
  const a = eventCounter();
  await runAgent('go', { model: 'claude-bench', modelCall: inProcessModel, tools: [echoTool], cwd: '/', maxTurns: TURNS + 10, inspect: a.inspect });
  const m = eventCounter();
  await xstateLoopWith('go', minimalStep, m.inspect);
  const count = (turns: string[][]) => turns.flat().filter((type) => type !== 'xstate.init').length / TURNS;
  return { agentloop: count(a.byTurn), minimal: count(m.byTurn), agentloopTurn: a.byTurn[2] ?? [] };
}

/** The plain protocol: no start announced at FINISH, every start the runner's (as the stepped runner has it). */
const plainProtocol = agentMachine.provide({ guards: { runnerStartsAtFinish: () => false } });

const sides = {
  agentloop: async () => {
    const result = await runAgent('go', { model: 'claude-bench', modelCall: inProcessModel, tools: [echoTool], cwd: '/', maxTurns: TURNS + 10 });
    if (result.context.turnCount !== TURNS) throw new Error(`agentloop ran ${result.context.turnCount} turns`);
  },
  plainProtocol: async () => {
    const result = await runAgent('go', { model: 'claude-bench', modelCall: inProcessModel, tools: [echoTool], cwd: '/', maxTurns: TURNS + 10, machine: plainProtocol });
    if (result.context.turnCount !== TURNS) throw new Error(`agentloop (plain protocol) ran ${result.context.turnCount} turns`);
  },
  minimal: async () => {
    const result = await xstateLoopWith('go', minimalStep);
    if (result.turns !== TURNS) throw new Error(`the minimal machine ran ${result.turns} turns`);
  },
};

export async function benchMachineTurn(rounds: number, log: (line: string) => void): Promise<MachineTurnFigures> {
  const cpu: Record<keyof typeof sides, number[]> = { agentloop: [], plainProtocol: [], minimal: [] };
  const order = Object.keys(sides) as Array<keyof typeof sides>;
  for (let round = -20; round < rounds; round++) {
    for (const name of round % 2 ? [...order].reverse() : order) {
      const start = process.cpuUsage();
      await sides[name]();
      const used = process.cpuUsage(start);
      if (round >= 0) cpu[name].push((used.user + used.system) / TURNS);
    }
  }
  const agentloopUs = median(cpu.agentloop);
  const minimalUs = median(cpu.minimal);
  const figures = {
    rounds,
    agentloopUs,
    minimalUs,
    ratio: agentloopUs / minimalUs,
    plainProtocolUs: median(cpu.plainProtocol),
    eventsPerTurn: await eventsPerTurn(),
    profile: await profileAgentloop(Math.max(20, rounds / 2)),
  };
  log(`machine alone: agentloop ${figures.agentloopUs.toFixed(0)} µs (plain protocol ${figures.plainProtocolUs.toFixed(0)}), minimal machine ${figures.minimalUs.toFixed(0)} µs CPU a turn`);
  return figures;
}

/** Where agentloop's turn spends the main thread: a V8 CPU profile (node:inspector) of `rounds` runs of its side. */
async function profileAgentloop(rounds: number): Promise<MachineTurnFigures['profile']> {
  const session = new Session();
  session.connect();
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-machine-profile-'));
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
    for (let i = 0; i < rounds; i++) await sides.agentloop();
    const { profile } = await session.post('Profiler.stop');
    const path = join(dir, 'agentloop.cpuprofile');
    writeFileSync(path, JSON.stringify(profile));
    const busy = summarizeProfiles([path], 0).byPlace.filter((p) => p.place !== '(idle)' && p.place !== '(program)');
    const total = busy.reduce((sum, p) => sum + p.ms, 0);
    // agentloop's own folders as one place: src/machine, src/session, src/tools, ...
    const grouped = new Map<string, number>();
    for (const p of busy) {
      const place = p.place.startsWith('src/')
        ? "agentloop's own code (src/)"
        : p.place.startsWith('node:') || p.place === '(native)'
          ? 'Node (internals, native)'
          : p.place.includes('/bench/')
            ? "the benchmark's model and tool"
            : p.place;
      grouped.set(place, (grouped.get(place) ?? 0) + p.ms);
    }
    const shares = [...grouped]
      .map(([place, ms]) => ({ place, percent: (100 * ms) / total }))
      .filter((s) => s.percent >= 1)
      .sort((a, b) => b.percent - a.percent);
    return { turns: rounds * TURNS, shares };
  } finally {
    session.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}
