/**
 * Benchmark 1: loop overhead. agentloop's runAgent and the plain loop drive the same SDK client
 * against the same local server (in its own process) through the same 50-turn conversation with
 * the same echo tool. Runs are interleaved in rotating order so that drift hits every side alike.
 */
import { createAnthropicModel, createClient } from '../src/model/anthropic.js';
import type { ModelCall } from '../src/model/types.js';
import { defaultSystemPrompt, runAgent } from '../src/session/run.js';
import { historyProblems } from '../src/history/validate.js';
import { defaultRunConfig } from '../src/machine/context.js';
import type { MessageParam } from '../src/model/types.js';
import { TURNS, conversationStep, echoTool } from './conversation.js';
import { plainLoop } from './plainLoop.js';
import { startRemoteServer } from './serverClient.js';
import { median, now } from './stats.js';

const MODEL = 'claude-bench';
const PROMPT = 'Run the tool 49 times, then say done.';

export type OverheadSide = 'agentloop' | 'plain' | 'plainStreamed';

export interface OverheadFigures {
  rounds: number;
  /** Median ms per turn of each side. */
  msPerTurn: Record<OverheadSide, number>;
  samples: Record<OverheadSide, number[]>;
  /** agentloop ÷ plain (messages.create), ratio of the medians. */
  ratio: number;
  /** agentloop ÷ plain streamed (messages.stream), ratio of the medians. */
  ratioStreamed: number;
  /** Median of the per-round ratios, as a cross-check. */
  ratioPaired: number;
  ratioStreamedPaired: number;
  /**
   * Median ms per turn spent inside the model call (agentloop: its ModelCall, history check and
   * stream included; plain: the SDK call) and outside it (the loop itself, the tool included).
   */
  split: Record<OverheadSide, { inCall: number; outside: number }>;
  /** µs a turn spends, on average over the conversation, checking the history before it is sent. */
  historyCheckUsPerTurn: number;
}

/** The conversation's history as it stands before each request, and the average cost of checking it. */
export function historyCheckUsPerTurn(): number {
  const histories: MessageParam[][] = [];
  let messages: MessageParam[] = [{ role: 'user', content: PROMPT }];
  for (let turn = 0; turn < TURNS; turn++) {
    histories.push(messages);
    const reply = conversationStep({ model: MODEL, max_tokens: 1, messages } as Parameters<typeof conversationStep>[0]);
    const use = reply.content.find((b) => b.type === 'tool_use');
    messages = [...messages, { role: 'assistant', content: reply.content } as MessageParam];
    if (use?.type === 'tool_use') {
      messages = [...messages, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'x' }] }];
    }
  }
  const repeat = 200;
  for (const h of histories) historyProblems(h); // warm-up
  const start = now();
  for (let i = 0; i < repeat; i++) for (const h of histories) if (historyProblems(h).length > 0) throw new Error('invalid');
  return ((now() - start) * 1000) / (repeat * histories.length);
}


export async function benchOverhead(rounds = 15, log: (line: string) => void = () => {}): Promise<OverheadFigures> {
  const server = await startRemoteServer();
  try {
    const client = createClient({ apiKey: 'test', baseURL: server.url });
    const cwd = process.cwd();
    const system = defaultSystemPrompt(cwd);

    // Time spent inside model calls during the current run, for the in-call / outside split.
    let inCallMs = 0;
    const addCall = (ms: number) => {
      inCallMs += ms;
    };
    const anthropic = createAnthropicModel({ client });
    const timedModel: ModelCall = async (input, signal) => {
      const start = now();
      try {
        return await anthropic(input, signal);
      } finally {
        addCall(now() - start);
      }
    };

    const sides: Record<OverheadSide, () => Promise<number>> = {
      agentloop: async () => {
        const result = await runAgent(PROMPT, {
          model: MODEL,
          modelCall: timedModel,
          tools: [echoTool],
          cwd,
          maxTurns: TURNS + 10,
        });
        if (result.state !== 'done' || result.context.turnCount !== TURNS) {
          throw new Error(`agentloop run ended ${result.state} after ${result.context.turnCount} turns: ${result.context.error?.message}`);
        }
        return TURNS;
      },
      plain: async () => {
        const result = await plainLoop(PROMPT, {
          client,
          model: MODEL,
          system,
          maxTokens: defaultRunConfig.maxTokens,
          tools: [echoTool],
          cwd,
          onModelCall: addCall,
        });
        if (result.turns !== TURNS) throw new Error(`plain loop ran ${result.turns} turns`);
        return TURNS;
      },
      plainStreamed: async () => {
        const result = await plainLoop(PROMPT, {
          client,
          model: MODEL,
          system,
          maxTokens: defaultRunConfig.maxTokens,
          tools: [echoTool],
          cwd,
          stream: true,
          onModelCall: addCall,
        });
        if (result.turns !== TURNS) throw new Error(`plain streamed loop ran ${result.turns} turns`);
        return TURNS;
      },
    };
    const order: OverheadSide[] = ['agentloop', 'plain', 'plainStreamed'];
    const samples: Record<OverheadSide, number[]> = { agentloop: [], plain: [], plainStreamed: [] };
    const inCall: Record<OverheadSide, number[]> = { agentloop: [], plain: [], plainStreamed: [] };

    const once = async (side: OverheadSide): Promise<number> => {
      await server.conversation(TURNS);
      inCallMs = 0;
      const start = now();
      const turns = await sides[side]();
      const ms = now() - start;
      await server.clear();
      inCall[side].push(inCallMs / turns);
      return ms / turns;
    };
    for (let i = 0; i < 3; i++) for (const side of order) await once(side); // warm-up
    for (const side of order) inCall[side].splice(0);
    for (let round = 0; round < rounds; round++) {
      // Rotate the order each round: A B C, B C A, C A B, ...
      const rotated = order.map((_, i) => order[(i + round) % order.length] as OverheadSide);
      for (const side of rotated) samples[side].push(await once(side));
      log(
        `overhead round ${round + 1}/${rounds}: ` +
          order.map((s) => `${s} ${samples[s].at(-1)?.toFixed(3)} ms/turn`).join(', '),
      );
    }
    const msPerTurn = {
      agentloop: median(samples.agentloop),
      plain: median(samples.plain),
      plainStreamed: median(samples.plainStreamed),
    };
    const paired = (other: OverheadSide) => median(samples.agentloop.map((a, i) => a / (samples[other][i] as number)));
    return {
      rounds,
      msPerTurn,
      samples,
      ratio: msPerTurn.agentloop / msPerTurn.plain,
      ratioStreamed: msPerTurn.agentloop / msPerTurn.plainStreamed,
      ratioPaired: paired('plain'),
      ratioStreamedPaired: paired('plainStreamed'),
      split: Object.fromEntries(
        order.map((side) => {
          const inside = median(inCall[side]);
          return [side, { inCall: inside, outside: median(samples[side].map((t, i) => t - (inCall[side][i] as number))) }];
        }),
      ) as OverheadFigures['split'],
      historyCheckUsPerTurn: historyCheckUsPerTurn(),
    };
  } finally {
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchOverhead(Number(process.argv[2] ?? 8), console.log);
  console.log(figures.msPerTurn, figures.split, figures.ratio, figures.ratioStreamed, figures.historyCheckUsPerTurn);
}
