/**
 * Benchmark 1: loop overhead. agentloop's runAgent and the plain loop drive the same SDK client
 * against the same local server (in its own process) through the same 50-turn conversation with
 * the same echo tool. Runs are interleaved in rotating order so that drift hits every side alike.
 *
 * Two servers answer, identical but for how a streamed reply goes out: all of it in one write
 * (a zero-latency model has the whole reply at once), or one write per SSE event (the client
 * then reads every event separately, as it does from the real API, where events come apart in
 * time). A `messages.create` reply is one write either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnthropicModel } from '../src/anthropic/call.js';
import { createClient } from '../src/anthropic/client.js';
import { startSession } from '../src/transcript/recorder.js';
import type { ModelCall } from '../src/core/model.js';
import { defaultSystemPrompt } from '../src/core/prompts.js';
import { runAgent } from '../src/run/runAgent.js';
import { assertValidHistory } from '../src/history/validate.js';
import { defaultRunConfig } from '../src/core/config.js';
import type { MessageParam } from '../src/core/messages.js';
import { TURNS, conversationStep, echoTool } from './conversation.js';
import { plainLoop } from './plainLoop.js';
import { xstateLoop } from './xstateLoop.js';
import { startRemoteServer, type RemoteServer } from './serverClient.js';
import { median, now } from './stats.js';

const MODEL = 'claude-bench';
const PROMPT = 'Run the tool 49 times, then say done.';

export const SIDES = ['agentloop', 'agentloopObserved', 'plain', 'plainStreamed', 'plainEvents', 'xstateMinimal'] as const;
export type OverheadSide = (typeof SIDES)[number];
export const SERVER_MODES = ['perReply', 'perEvent'] as const;
export type ServerMode = (typeof SERVER_MODES)[number];

export interface SideFigures {
  /** Median wall ms per turn. */
  ms: number;
  /** Median CPU ms per turn of this process (user + system): the client's own work. */
  cpuMs: number;
  /** Median ms per turn inside the model call (agentloop sides only; the plain loops' is all of it). */
  inCallMs: number;
  samples: number[];
}

export interface ModeFigures {
  sides: Record<OverheadSide, SideFigures>;
  /** agentloop ÷ plain (messages.create): ratio of the medians, and median of the per-round ratios. */
  ratio: number;
  ratioPaired: number;
  /** agentloop ÷ plain streamed (MessageStream). */
  ratioStreamed: number;
  ratioStreamedPaired: number;
  /** The bare event loop ÷ plain: what streaming alone costs through the SDK, with no harness. */
  floorRatio: number;
  /** The same event loop as a minimal XState machine ÷ plain: the floor of a loop built as a machine. */
  machineFloorRatio: number;
}

export interface OverheadFigures {
  rounds: number;
  modes: Record<ServerMode, ModeFigures>;
  /** µs a turn spends, on average over the conversation, checking the history before it is sent. */
  historyCheckUsPerTurn: number;
}

/**
 * µs a turn spends checking the history before it is sent, on average over the conversation: the
 * conversation's append-only log, checked before each request as the model call does
 * (`assertValidHistory`, which checks only what was appended since the last check).
 */
export function historyCheckUsPerTurn(): number {
  const replies: MessageParam[][] = [];
  let messages: MessageParam[] = [{ role: 'user', content: PROMPT }];
  for (let turn = 0; turn < TURNS; turn++) {
    const reply = conversationStep({ model: MODEL, max_tokens: 1, messages } as Parameters<typeof conversationStep>[0]);
    const use = reply.content.find((b) => b.type === 'tool_use');
    const added: MessageParam[] = [{ role: 'assistant', content: reply.content } as MessageParam];
    if (use?.type === 'tool_use') added.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'x' }] });
    replies.push(added);
    messages = [...messages, ...added];
  }
  const conversation = () => {
    const log: MessageParam[] = [{ role: 'user', content: PROMPT }];
    let checking = 0;
    for (const added of replies) {
      const start = now();
      assertValidHistory(log);
      checking += now() - start;
      log.push(...added);
    }
    return checking;
  };
  const repeat = 200;
  for (let i = 0; i < 20; i++) conversation(); // warm-up
  let total = 0;
  for (let i = 0; i < repeat; i++) total += conversation();
  return (total * 1000) / (repeat * TURNS);
}

type Runner = () => Promise<void>;

/**
 * The sides against one server; `addCall` is told the ms of each agentloop model call (not for the CLI's side, which
 * uses the model call runAgent makes of `client`, as the CLI does). Transcripts go to `home`.
 */
export function sidesFor(server: RemoteServer, addCall: (ms: number) => void, home: string): Record<OverheadSide, Runner> {
  const client = createClient({ apiKey: 'test', baseURL: server.url });
  const cwd = process.cwd();
  const anthropic = createAnthropicModel({ client });
  const timedModel: ModelCall = async (input, signal) => {
    const start = now();
    try {
      return await anthropic(input, signal);
    } finally {
      addCall(now() - start);
    }
  };
  const agent = (asTheCli: boolean): Runner => async () => {
    // What the CLI runs: a new session's transcript, durable, fed by every event of the run.
    const recorder = asTheCli ? startSession(home, { cwd, model: MODEL }) : undefined;
    recorder?.prompt(PROMPT);
    const result = await runAgent(PROMPT, {
      model: MODEL,
      ...(recorder ? { client: { client }, onEvent: recorder.onEvent } : { modelCall: timedModel }),
      tools: [echoTool],
      cwd,
      maxTurns: TURNS + 10,
    });
    recorder?.finish(result);
    recorder?.close();
    if (result.state !== 'done' || result.context.turnCount !== TURNS) {
      throw new Error(`agentloop run ended ${result.state} after ${result.context.turnCount} turns: ${result.context.error?.message}`);
    }
  };
  const plain = (stream: boolean | 'events', loop = plainLoop): Runner => async () => {
    const result = await loop(PROMPT, {
      client,
      model: MODEL,
      system: defaultSystemPrompt(cwd),
      maxTokens: defaultRunConfig.maxTokens,
      tools: [echoTool],
      cwd,
      stream,
    });
    if (result.turns !== TURNS) throw new Error(`plain loop (stream: ${stream}) ran ${result.turns} turns`);
  };
  return {
    agentloop: agent(false),
    agentloopObserved: agent(true),
    plain: plain(false),
    plainStreamed: plain(true),
    plainEvents: plain('events'),
    xstateMinimal: plain('events', xstateLoop),
  };
}

export async function benchOverhead(rounds = 15, log: (line: string) => void = () => {}): Promise<OverheadFigures> {
  const servers = {
    perReply: await startRemoteServer({ oneWritePerReply: true }),
    perEvent: await startRemoteServer(),
  } satisfies Record<ServerMode, RemoteServer>;
  const home = mkdtempSync(join(tmpdir(), 'agentloop-overhead-'));
  try {
    let inCallMs = 0;
    const addCall = (ms: number) => {
      inCallMs += ms;
    };
    const runners = {
      perReply: sidesFor(servers.perReply, addCall, home),
      perEvent: sidesFor(servers.perEvent, addCall, home),
    };
    type Series = Record<ServerMode, Record<OverheadSide, number[]>>;
    const series = (): Series =>
      Object.fromEntries(SERVER_MODES.map((m) => [m, Object.fromEntries(SIDES.map((s) => [s, [] as number[]]))])) as Series;
    const wall = series();
    const cpu = series();
    const inCall = series();

    const once = async (mode: ServerMode, side: OverheadSide, record: boolean) => {
      await servers[mode].conversation(TURNS);
      inCallMs = 0;
      const cpuStart = process.cpuUsage();
      const start = now();
      await runners[mode][side]();
      const ms = now() - start;
      const used = process.cpuUsage(cpuStart);
      await servers[mode].clear();
      if (!record) return;
      wall[mode][side].push(ms / TURNS);
      cpu[mode][side].push((used.user + used.system) / 1000 / TURNS);
      inCall[mode][side].push(inCallMs / TURNS);
    };
    const runs = SERVER_MODES.flatMap((mode) => SIDES.map((side) => [mode, side] as const));
    for (let i = 0; i < 3; i++) for (const [mode, side] of runs) await once(mode, side, false); // warm-up
    for (let round = 0; round < rounds; round++) {
      // Rotate the order each round, so no side always follows the same one.
      for (let i = 0; i < runs.length; i++) {
        const [mode, side] = runs[(i + round) % runs.length] as (typeof runs)[number];
        await once(mode, side, true);
      }
      log(
        `overhead round ${round + 1}/${rounds}: ` +
          SIDES.map((s) => `${s} ${wall.perReply[s].at(-1)?.toFixed(3)}/${wall.perEvent[s].at(-1)?.toFixed(3)}`).join(', ') +
          ' ms/turn (one write per reply / per event)',
      );
    }

    const figures = (mode: ServerMode): ModeFigures => {
      const sides = Object.fromEntries(
        SIDES.map((s) => [
          s,
          { ms: median(wall[mode][s]), cpuMs: median(cpu[mode][s]), inCallMs: median(inCall[mode][s]), samples: wall[mode][s] },
        ]),
      ) as Record<OverheadSide, SideFigures>;
      const paired = (other: OverheadSide) =>
        median(wall[mode].agentloop.map((a, i) => a / (wall[mode][other][i] as number)));
      return {
        sides,
        ratio: sides.agentloop.ms / sides.plain.ms,
        ratioPaired: paired('plain'),
        ratioStreamed: sides.agentloop.ms / sides.plainStreamed.ms,
        ratioStreamedPaired: paired('plainStreamed'),
        floorRatio: sides.plainEvents.ms / sides.plain.ms,
        machineFloorRatio: sides.xstateMinimal.ms / sides.plain.ms,
      };
    };
    return {
      rounds,
      modes: { perReply: figures('perReply'), perEvent: figures('perEvent') },
      historyCheckUsPerTurn: historyCheckUsPerTurn(),
    };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.close()));
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchOverhead(Number(process.argv[2] ?? 8), console.log);
  for (const mode of SERVER_MODES) {
    const f = figures.modes[mode];
    console.log(mode, `÷ create ${f.ratio.toFixed(2)}, ÷ stream ${f.ratioStreamed.toFixed(2)}, floor ${f.floorRatio.toFixed(2)}, machine floor ${f.machineFloorRatio.toFixed(2)}`);
    for (const side of SIDES) {
      const s = f.sides[side];
      console.log(`  ${side.padEnd(18)} ${s.ms.toFixed(3)} ms/turn, cpu ${s.cpuMs.toFixed(3)}, in call ${s.inCallMs.toFixed(3)}`);
    }
  }
  console.log('history check µs/turn', figures.historyCheckUsPerTurn.toFixed(1));
}
