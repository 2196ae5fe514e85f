/**
 * Growth, side by side (a diagnostic beside benchmark 2): 100 turns from a history of 1,000 turns and from one of
 * 10,000 (built up front, passed as `messages`), interleaved over rounds, with the same model service as
 * bench/growth.ts (agentloop's, over an in-process client that serialises each request, then streams a tool_use).
 * Sides: `recorder` (runAgent with the
 * durable transcript recorder), `none` (runAgent, no recorder), `plain` (a bare loop: serialise, push the reply, run
 * the tool, push its result); a `+ballast` side also serialises a 9,000-turn history in each call at 1,000 turns
 * (inside the timed call), so that it serialises as much as at 10,000 turns and both lengths pay the same aftermath. agentloop's own
 * µs per turn = the turn less the time inside the call; median of each run's turns, median over rounds.
 *
 *   npx tsx bench/growthSides.ts [sides=recorder,none,plain,recorder+ballast,none+ballast] [rounds=3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageParam } from '../src/core/messages.js';
import { createAnthropicModel } from '../src/anthropic/call.js';
import { startSession } from '../src/transcript/recorder.js';
import { runAgent } from '../src/run/runAgent.js';
import { inProcessClient, noopTool } from './inProcessClient.js';
import { fmt, median, now } from './stats.js';

const TURNS = 100;
const LENGTHS = [1_000, 10_000] as const;

/** The history of `turns` noop tool turns after a first question, ending with the model's answer. */
function history(turns: number): MessageParam[] {
  const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_h${t}`, name: 'noop', input: {} }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_h${t}`, content: 'ok' }] });
  }
  messages.push({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
  return messages;
}

async function once(home: string, sideName: string, length: number, ballast: unknown): Promise<number> {
  const side = sideName.replace('+ballast', '');
  const extra = sideName.endsWith('+ballast') && length === LENGTHS[0] ? ballast : undefined;
  const calls: number[] = [];
  const inCall: number[] = [];
  const serialise = (request: object) => {
    const start = now();
    calls.push(start);
    JSON.stringify({ ...request, stream: true });
    if (extra !== undefined) JSON.stringify(extra);
    inCall.push(now() - start);
  };
  const messages = history(length);
  if (side === 'plain') {
    const tools = [{ name: noopTool.name, description: noopTool.description, input_schema: noopTool.inputSchema }];
    messages.push({ role: 'user', content: [{ type: 'text', text: 'go on' }] });
    const signal = new AbortController().signal;
    for (let t = 0; t <= TURNS; t++) {
      serialise({ model: 'bench', max_tokens: 8000, system: 'You are a coding agent.', tools, messages });
      await undefined;
      if (t === TURNS) break;
      const block = { type: 'tool_use' as const, id: `toolu_${t}`, name: 'noop', input: {} };
      messages.push({ role: 'assistant', content: [block] });
      const output = await noopTool.run({}, { cwd: home, signal });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: block.id, content: String(output.content) }] });
    }
  } else {
    const modelCall = createAnthropicModel({ client: inProcessClient(TURNS + 1, serialise) });
    const recorder = side === 'recorder' ? startSession(home, { cwd: process.cwd(), model: 'bench' }) : undefined;
    const result = await runAgent('go on', { model: 'bench', modelCall, tools: [noopTool], messages, maxTurns: TURNS + 5, cwd: process.cwd(), onEvent: recorder?.onEvent ?? (() => {}) });
    recorder?.finish(result);
    recorder?.close();
  }
  const own: number[] = [];
  for (let i = 2; i < calls.length; i++) own.push(((calls[i] ?? NaN) - (calls[i - 1] ?? NaN) - (inCall[i - 1] ?? NaN)) * 1000);
  return median(own);
}

/** Each side's own µs per turn from 1,000 and from 10,000 turns: median of each run's turns, median over `rounds`. */
export async function growthSides(sides: readonly string[], rounds: number): Promise<Map<string, { from1k: number; from10k: number }>> {
  const home = mkdtempSync(join(tmpdir(), 'agentloop-growth-sides-'));
  try {
    const ballast = { messages: history(LENGTHS[1] - LENGTHS[0]) };
    const got = new Map<string, number[]>();
    for (let round = 0; round <= rounds; round++) {
      for (const length of LENGTHS) {
        for (const side of sides) {
          const us = await once(home, side, length, ballast);
          if (round > 0) got.set(`${side}@${length}`, [...(got.get(`${side}@${length}`) ?? []), us]); // round 0 warms up
        }
      }
    }
    const [from1k, from10k] = LENGTHS.map((length) => (side: string) => median(got.get(`${side}@${length}`) ?? []));
    return new Map(sides.map((side) => [side, { from1k: from1k?.(side) ?? NaN, from10k: from10k?.(side) ?? NaN }]));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sides = (process.argv[2] ?? 'recorder,none,plain,recorder+ballast,none+ballast').split(',');
  for (const [side, { from1k, from10k }] of await growthSides(sides, Number(process.argv[3] ?? 3))) {
    console.log(`${side.padEnd(18)} own µs per turn: from 1,000 turns ${fmt(from1k, 0)}, from 10,000 ${fmt(from10k, 0)}, ÷ ${fmt(from10k / from1k)}`);
  }
}
