/**
 * The Messages API's stream protocol (DESIGN.md §4), as two tables a reader can hold. A reply streams as
 *
 *     message_start  ( content_block_start  content_block_delta*  content_block_stop )*  message_delta  message_stop
 *
 * - `ping` may come anywhere between `message_start` and `message_stop`;
 * - blocks are numbered 0, 1, 2, ... in the order they start, one open at a time, each started once and stopped once;
 * - a block's deltas are of its own kind (`DELTAS`): `text_delta` for text, `input_json_delta` for tool input, ...;
 * - only the last block may be left open when `message_delta` comes (cut by max_tokens): it is left out of the reply;
 * - nothing comes after `message_stop`.
 *
 * Anything else (a block after `message_stop`, a second `content_block_start` for an index, a delta of the wrong kind
 * or for a block that is not open, indexes out of order, a second `message_start`, ...) is a `StreamProtocolError`:
 * the reply is refused, like a broken stream. Event types this table does not know are skipped between `message_start`
 * and `message_stop`: the API says new ones may come and readers should let them pass. (`error` events never get here:
 * the SDK throws them as API errors.)
 */

/** Where the reading of one reply stands. */
export type Phase = 'awaitingStart' | 'inMessage' | 'closing' | 'stopped';

/** The stream events the protocol knows. */
export type EventType =
  | 'message_start'
  | 'ping'
  | 'content_block_start'
  | 'content_block_delta'
  | 'content_block_stop'
  | 'message_delta'
  | 'message_stop';

/** Each phase's events and the phase each leads to; an event missing from its phase's row breaks the protocol. */
export const PHASES: Readonly<Record<Phase, Readonly<Partial<Record<EventType, Phase>>>>> = {
  awaitingStart: { message_start: 'inMessage' },
  inMessage: {
    ping: 'inMessage',
    content_block_start: 'inMessage',
    content_block_delta: 'inMessage',
    content_block_stop: 'inMessage',
    message_delta: 'closing',
  },
  closing: { ping: 'closing', message_stop: 'stopped' },
  stopped: {},
};

/** The deltas each kind of block takes; a kind not listed (a server tool's result, say) takes none. */
export const DELTAS: Readonly<Record<string, readonly string[]>> = {
  text: ['text_delta', 'citations_delta'],
  tool_use: ['input_json_delta'],
  server_tool_use: ['input_json_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  redacted_thinking: [],
};

/** The stream broke the protocol (see above), or carried what no reply can hold (tool input that is not JSON, ...). */
export class StreamProtocolError extends Error {
  override readonly name = 'StreamProtocolError';
}

const KNOWN = new Set<string>(Object.values(PHASES).flatMap((row) => Object.keys(row)));

/**
 * The phase after an event of `type` in `phase`. Throws a `StreamProtocolError` for an event the phase does not
 * take; an unknown type leaves the phase as it is between `message_start` and `message_stop`.
 */
export function nextPhase(phase: Phase, type: string): Phase {
  const next = PHASES[phase][type as EventType];
  if (next !== undefined) return next;
  if (!KNOWN.has(type) && (phase === 'inMessage' || phase === 'closing')) return phase;
  throw new StreamProtocolError(`${JSON.stringify(type)} ${PLACE[phase]}`);
}

const PLACE: Record<Phase, string> = {
  awaitingStart: 'before message_start',
  inMessage: 'between message_start and message_delta',
  closing: 'between message_delta and message_stop',
  stopped: 'after message_stop',
};

// ---------------------------------------------------------------------------------------------
// The fields of an event, checked: the server's JSON is not trusted to have the SDK's types.
// ---------------------------------------------------------------------------------------------

export type Fields = Readonly<Record<string, unknown>>;

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[key]` as an object; a `StreamProtocolError` naming `what` if it is not one. */
export function fieldsOf(value: Fields, key: string, what: string): Fields {
  const inner = value[key];
  if (!isFields(inner)) throw new StreamProtocolError(`${what} has no ${key} object`);
  return inner;
}

/** `value[key]` as a string (`optional`: or absent). */
export function stringOf(value: Fields, key: string, what: string, optional = false): string | undefined {
  const inner = value[key];
  if (typeof inner === 'string' || (optional && inner === undefined)) return inner;
  throw new StreamProtocolError(`${what} has a ${key} that is not a string`);
}

/** The block index of a block event: a non-negative integer. */
export function indexOf(event: Fields): number {
  const index = event.index;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
    throw new StreamProtocolError(`${String(event.type)} has an index that is not a block number`);
  }
  return index;
}

/** The string field each kind of delta carries, its payload. */
const PAYLOAD: Readonly<Record<string, string>> = {
  text_delta: 'text',
  input_json_delta: 'partial_json',
  thinking_delta: 'thinking',
  signature_delta: 'signature',
};

/**
 * Checks a delta for a block of kind `blockType`: of a kind that block takes, carrying its payload as a string.
 * Returns the delta's kind and payload (`undefined` for a kind without one, e.g. `citations_delta`).
 */
export function checkedDelta(delta: Fields, blockType: string, index: number): { kind: string; payload: string | undefined } {
  const kind = stringOf(delta, 'type', `the delta of block ${index}`) as string;
  if (!(DELTAS[blockType] ?? []).includes(kind)) throw new StreamProtocolError(`a ${kind} for block ${index}, which is a ${blockType} block`);
  const field = PAYLOAD[kind];
  return { kind, payload: field === undefined ? undefined : stringOf(delta, field, `the ${kind} of block ${index}`) };
}

/** Checks the fields a block of a known kind starts with (a tool_use's id, name and input object, ...). */
export function checkBlockStart(block: Fields, index: number): void {
  const what = `block ${index}`;
  switch (block.type) {
    case 'text':
      stringOf(block, 'text', what);
      return;
    case 'tool_use':
    case 'server_tool_use':
      stringOf(block, 'id', what);
      stringOf(block, 'name', what);
      fieldsOf(block, 'input', what);
      return;
    case 'thinking':
      stringOf(block, 'thinking', what);
      stringOf(block, 'signature', what, true);
      return;
    case 'redacted_thinking':
      stringOf(block, 'data', what);
      return;
    default:
      stringOf(block, 'type', what);
  }
}
