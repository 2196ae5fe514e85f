/**
 * Random replies as the Messages API streams them, and random ways a server can break them, for the property test of
 * the stream reader (test/anthropic/protocolProperty.process.test.ts). A reply is generated valid; a mutation then breaks it
 * in a way that is invalid by construction (the oracle is how it was made, not the reader under test), or leaves it
 * valid (a ping, an event type the reader does not know).
 */
import fc from 'fast-check';

export type Event = Record<string, unknown> & { type: string };

/** A block of a generated reply. `safe`/`unsafe`: a tool_use of the concurrency-safe or the unsafe tool. */
export type BlockSpec =
  | { kind: 'text'; text: string; pieces: number[] }
  | { kind: 'thinking'; thinking: string }
  | { kind: 'safe' | 'unsafe'; input: { n: number; s: string }; cuts: number[] };

export interface ReplySpec {
  blocks: BlockSpec[];
  /** The last block is cut by max_tokens: no content_block_stop, stop_reason max_tokens. */
  cut: boolean;
  /** Where pings go (positions in the event list, taken modulo its length). */
  pings: number[];
}

export type MutationKind =
  | 'afterStop'
  | 'restartBlock'
  | 'wrongDelta'
  | 'deltaForClosed'
  | 'deltaForUnopened'
  | 'secondMessageStart'
  | 'noMessageStart'
  | 'indexOutOfOrder'
  | 'stopTwice'
  | 'stopBeforeDelta'
  | 'badUsage'
  | 'duplicateToolId'
  | 'badToolId'
  | 'inputNotObject';

/** Mutations that keep the reply valid. */
export type NeutralKind = 'extraPing' | 'unknownEvent';

export interface Mutation {
  kind: MutationKind | NeutralKind;
  /** Picks the place (an event, a block), modulo what there is. */
  at: number;
  /** Picks among variants (which bad usage value, which wrong delta, ...). */
  variant: number;
}

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', '\n\t '));
const block: fc.Arbitrary<BlockSpec> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), text, pieces: fc.array(fc.nat(12), { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('thinking' as const), thinking: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({
    kind: fc.constantFrom('safe' as const, 'unsafe' as const),
    input: fc.record({ n: fc.integer(), s: fc.string({ maxLength: 6 }) }),
    cuts: fc.array(fc.nat(30), { maxLength: 3 }),
  }),
);

/** A reply that asks for at least one tool (so the run goes on to the next reply) unless it is cut. */
export const replySpec: fc.Arbitrary<ReplySpec> = fc
  .record({ blocks: fc.array(block, { minLength: 1, maxLength: 4 }), cut: fc.boolean(), pings: fc.array(fc.nat(), { maxLength: 2 }) })
  .filter((r) => r.blocks.slice(0, r.cut ? -1 : undefined).some((b) => b.kind === 'safe' || b.kind === 'unsafe'));

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<Mutation['kind']>(
    'afterStop', 'restartBlock', 'wrongDelta', 'deltaForClosed', 'deltaForUnopened', 'secondMessageStart', 'noMessageStart',
    'indexOutOfOrder', 'stopTwice', 'stopBeforeDelta', 'badUsage', 'duplicateToolId', 'badToolId', 'inputNotObject', 'extraPing', 'unknownEvent',
  ),
  at: fc.nat(),
  variant: fc.nat(),
});

export const isNeutral = (m: Mutation | undefined) => m === undefined || m.kind === 'extraPing' || m.kind === 'unknownEvent';

/** The tool_use id of block `k` of reply `r`: unique in a run; its input carries it too, as `tag`. */
export const toolId = (r: number, k: number) => `toolu_r${r}b${k}`;

/** Splits `s` at the given offsets (each modulo its length), in order. */
function split(s: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => (s.length === 0 ? 0 : c % s.length)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const c of at) {
    pieces.push(s.slice(from, c));
    from = c;
  }
  pieces.push(s.slice(from));
  return pieces;
}

function blockEvents(spec: BlockSpec, index: number, id: string, cut: boolean): Event[] {
  const start = (content_block: object): Event => ({ type: 'content_block_start', index, content_block });
  const delta = (d: object): Event => ({ type: 'content_block_delta', index, delta: d });
  let events: Event[];
  if (spec.kind === 'text') {
    const pieces = split(spec.text, spec.pieces).filter((p) => p !== '');
    events = [start({ type: 'text', text: '' }), ...pieces.map((t) => delta({ type: 'text_delta', text: t }))];
  } else if (spec.kind === 'thinking') {
    events = [start({ type: 'thinking', thinking: '' }), delta({ type: 'thinking_delta', thinking: spec.thinking }), delta({ type: 'signature_delta', signature: 'sig' })];
  } else {
    const json = JSON.stringify({ ...spec.input, tag: id });
    const pieces = ['', ...split(cut ? json.slice(0, Math.floor(json.length / 2)) : json, spec.cuts)];
    events = [start({ type: 'tool_use', id, name: spec.kind, input: {} }), ...pieces.map((p) => delta({ type: 'input_json_delta', partial_json: p }))];
  }
  return cut ? events : [...events, { type: 'content_block_stop', index }];
}

/** The events of reply number `r`, as the API streams it. */
export function eventsOf(spec: ReplySpec, r: number): Event[] {
  const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const last = spec.blocks.length - 1;
  const events: Event[] = [
    { type: 'message_start', message: { id: `msg_${r}`, type: 'message', role: 'assistant', model: 'claude-test', content: [], usage } },
    ...spec.blocks.flatMap((b, k) => blockEvents(b, k, toolId(r, k), spec.cut && k === last)),
    { type: 'message_delta', delta: { stop_reason: spec.cut ? 'max_tokens' : 'tool_use' }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ];
  // Pings anywhere after message_start and before message_stop.
  for (const p of spec.pings) events.splice(1 + (p % (events.length - 1)), 0, { type: 'ping' });
  return events;
}

/** What the reply holds once read: its complete blocks, blank text left out (the API refuses it). */
export function contentOf(spec: ReplySpec, r: number): unknown[] {
  const complete = spec.cut ? spec.blocks.slice(0, -1) : spec.blocks;
  return complete.flatMap((b, k): unknown[] => {
    if (b.kind === 'text') return b.text.trim() === '' ? [] : [{ type: 'text', text: b.text }];
    if (b.kind === 'thinking') return [{ type: 'thinking', thinking: b.thinking, signature: 'sig' }];
    return [{ type: 'tool_use', id: toolId(r, k), name: b.kind, input: { ...b.input, tag: toolId(r, k) } }];
  });
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

const BAD_COUNTS: readonly unknown[] = [-1, -6_000_000_000, 2.5, 1e295, '12', 100_000_001];
const BAD_IDS = ['toolu_../../x"<>', 'has space', '', 'ünïcode'];
const NOT_OBJECTS = ['[1,2]', 'null', '"ls"', '5', '{"cut":'];
/** For each kind of block, deltas it must not take. */
const WRONG_DELTAS: Record<string, object[]> = {
  text: [{ type: 'input_json_delta', partial_json: '{}' }, { type: 'thinking_delta', thinking: 'x' }, { type: 'signature_delta', signature: 's' }],
  tool_use: [{ type: 'text_delta', text: 'x' }, { type: 'thinking_delta', thinking: 'x' }, { type: 'signature_delta', signature: 's' }],
  thinking: [{ type: 'text_delta', text: 'x' }, { type: 'input_json_delta', partial_json: '{}' }],
};

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;
const where = (events: Event[], test: (e: Event) => boolean) => events.findIndex(test);
const startOf = (events: Event[], k: number) => where(events, (e) => e.type === 'content_block_start' && e.index === k);
const stopOf = (events: Event[], k: number) => where(events, (e) => e.type === 'content_block_stop' && e.index === k);
const typeOf = (events: Event[], k: number) => (events[startOf(events, k)]?.content_block as { type: string }).type;

/** Blocks that are complete (not cut) and, with `tools`, tool_use blocks. */
function completeBlocks(spec: ReplySpec, tools: boolean): number[] {
  const complete = spec.cut ? spec.blocks.length - 1 : spec.blocks.length;
  return [...Array(complete).keys()].filter((k) => !tools || spec.blocks[k]?.kind === 'safe' || spec.blocks[k]?.kind === 'unsafe');
}

/**
 * The events of reply `r` with `m` applied: each kind of mutation breaks the reply by construction (see the cases), but
 * `extraPing` and `unknownEvent`, which keep it valid. `http`: the events go through the SDK, which drops `ping` frames
 * itself, so a ping is never the event that breaks the protocol.
 */
export function mutate(events: Event[], spec: ReplySpec, r: number, m: Mutation, http: boolean): Event[] {
  const out = events.map((e) => structuredClone(e));
  const blocks = spec.blocks.length;
  const insert = (at: number, ...added: Event[]) => (out.splice(at, 0, ...added), out);
  const between = (from: number, to: number) => from + (m.at % Math.max(1, to - from + 1));
  const messageDelta = where(out, (e) => e.type === 'message_delta');
  const complete = completeBlocks(spec, false);
  const tools = completeBlocks(spec, true);
  switch (m.kind) {
    case 'extraPing':
      return insert(between(1, out.length - 1), { type: 'ping' });
    case 'unknownEvent':
      return insert(between(1, out.length - 1), { type: 'future_event', detail: m.variant });
    case 'afterStop': {
      const late: Event[] = [
        { type: 'content_block_start', index: blocks, content_block: { type: 'tool_use', id: `toolu_r${r}late`, name: 'unsafe', input: { tag: `toolu_r${r}late` } } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'late' } },
        structuredClone(out[0] as Event),
        { type: 'message_stop' },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
        ...(http ? [] : [{ type: 'ping' }]),
      ];
      return insert(out.length, pick(late, m.variant));
    }
    case 'restartBlock': {
      const k = m.variant % blocks;
      const again: Event = { type: 'content_block_start', index: k, content_block: { type: 'tool_use', id: `toolu_r${r}again`, name: 'unsafe', input: {} } };
      return insert(between(startOf(out, k) + 1, messageDelta), again);
    }
    case 'wrongDelta': {
      const k = m.variant % blocks;
      return insert(startOf(out, k) + 1, { type: 'content_block_delta', index: k, delta: pick(WRONG_DELTAS[typeOf(out, k)] ?? [], m.at) });
    }
    case 'deltaForClosed':
    case 'stopTwice': {
      if (complete.length === 0) return mutate(events, spec, r, { ...m, kind: 'deltaForUnopened' }, http);
      const k = pick(complete, m.variant);
      const right = { text: { type: 'text_delta', text: 'x' }, thinking: { type: 'thinking_delta', thinking: 'x' } }[typeOf(out, k)] ?? { type: 'input_json_delta', partial_json: '' };
      const added: Event = m.kind === 'stopTwice' ? { type: 'content_block_stop', index: k } : { type: 'content_block_delta', index: k, delta: right };
      return insert(between(stopOf(out, k) + 1, out.length), added);
    }
    case 'deltaForUnopened':
      return insert(between(1, out.length), { type: 'content_block_delta', index: blocks + (m.variant % 3), delta: { type: 'text_delta', text: 'x' } });
    case 'secondMessageStart':
      return insert(between(1, out.length), structuredClone(out[0] as Event));
    case 'noMessageStart':
      return out.slice(1);
    case 'indexOutOfOrder': {
      const k = m.variant % blocks;
      const start = out[startOf(out, k)] as Event;
      start.index = k > 0 && m.at % 2 === 0 ? k - 1 : k + 1 + (m.at % 2);
      return out;
    }
    case 'stopBeforeDelta':
      return m.at % 2 === 0 ? out.filter((e) => e.type !== 'message_delta') : [...out.slice(0, messageDelta), { type: 'message_stop' }, ...out.slice(messageDelta)];
    case 'badUsage': {
      const target = m.at % 2 === 0 ? (out[0]?.message as { usage: Record<string, unknown> }).usage : (out[messageDelta]?.usage as Record<string, unknown>);
      target[pick(['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'], m.variant)] = pick(BAD_COUNTS, m.at >> 1);
      return out;
    }
    case 'duplicateToolId':
    case 'badToolId': {
      const k = pick(tools, m.variant);
      const other = tools.find((t) => t !== k);
      const id = m.kind === 'duplicateToolId' && other !== undefined ? toolId(r, other) : pick(BAD_IDS, m.at);
      ((out[startOf(out, k)] as Event).content_block as { id: string }).id = id;
      return out;
    }
    case 'inputNotObject': {
      const k = pick(tools, m.variant);
      const kept = out.filter((e) => !(e.type === 'content_block_delta' && e.index === k));
      return [...kept.slice(0, startOf(kept, k) + 1), { type: 'content_block_delta', index: k, delta: { type: 'input_json_delta', partial_json: pick(NOT_OBJECTS, m.at) } }, ...kept.slice(startOf(kept, k) + 1)];
    }
  }
}
