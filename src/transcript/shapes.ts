/**
 * The shape of every transcript record, checked when a transcript is read (store.ts): a line of
 * valid JSON but the wrong shape (a hand edit, a bad disk, a bug, an attacker) is reported by its
 * line number and skipped, so that resuming and the viewer only ever see records of the types in
 * records.ts. Adding a record type is one entry in `RECORD_SHAPES` (the compiler asks for it).
 *
 * Hand-written rather than taken from a schema library: the checks are few, and a library such as
 * zod adds 65-180 ms to the start of every CLI run on these machines (see tools/schema.ts). Only
 * the fields the readers use are checked; other fields are left as they are (newer writers may
 * add some). Nothing here allocates in proportion to a number in the file: a message index is
 * checked against the line it is on (the message at index i needs i records before it).
 */
import type { RecordType } from './records.js';

/** Gives the problem with `value` in a few words, or `undefined` when it fits. */
export type Check = (value: unknown, line: number) => string | undefined;

/** A field that may be absent (or `undefined`). */
interface OptionalCheck {
  optional: Check;
}
type Field = Check | OptionalCheck;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

export const string: Check = (v) => (typeof v === 'string' ? undefined : `${typeName(v)}, not a string`);
export const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : `${typeName(v)}, not a boolean`);
export const number: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : `${typeName(v)}, not a number`);
export const count: Check = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : `${typeof v === 'number' ? v : typeName(v)}, not a count`;
export const any: Check = () => undefined;

/** A count that is at most the record's line number (a message index, a message count). */
export const withinLine: Check = (v, line) => count(v, line) ?? ((v as number) <= line ? undefined : `${v} is beyond the ${line} lines read so far`);

export const literal =
  (...values: readonly unknown[]): Check =>
  (v) =>
    values.includes(v) ? undefined : `${JSON.stringify(v) ?? typeName(v)}, not ${values.map((x) => JSON.stringify(x)).join(' or ')}`;

export const nullable =
  (check: Check): Check =>
  (v, line) =>
    v === null ? undefined : check(v, line);

export const optional = (check: Check): OptionalCheck => ({ optional: check });

export const oneOf =
  (...checks: Check[]): Check =>
  (v, line) => {
    const problems = checks.map((c) => c(v, line));
    return problems.includes(undefined) ? undefined : problems.join('; or ');
  };

export const arrayOf =
  (item: Check): Check =>
  (v, line) => {
    if (!Array.isArray(v)) return `${typeName(v)}, not an array`;
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i], line);
      if (problem !== undefined) return `[${i}]: ${problem}`;
    }
    return undefined;
  };

export const object =
  (fields: Record<string, Field>): Check =>
  (v, line) => {
    if (!isObject(v)) return `${typeName(v)}, not an object`;
    for (const [key, field] of Object.entries(fields)) {
      const value = Object.hasOwn(v, key) ? v[key] : undefined;
      if (typeof field !== 'function') {
        if (value === undefined) continue;
        const problem = field.optional(value, line);
        if (problem !== undefined) return `${key}: ${problem}`;
        continue;
      }
      if (value === undefined) return `${key} is missing`;
      const problem = field(value, line);
      if (problem !== undefined) return `${key}: ${problem}`;
    }
    return undefined;
  };

/** An object whose `type` picks its shape; a type not listed only needs to be a string. */
export const tagged =
  (shapes: Record<string, Check>): Check =>
  (v, line) => {
    if (!isObject(v)) return `${typeName(v)}, not an object`;
    if (typeof v.type !== 'string') return `type: ${typeName(v.type)}, not a string`;
    const shape = Object.hasOwn(shapes, v.type) ? shapes[v.type] : undefined;
    const problem = shape?.(v, line);
    return problem === undefined ? undefined : `(${v.type}) ${problem}`;
  };

// ---- the conversation -------------------------------------------------------------------------

const toolUse = object({ type: literal('tool_use'), id: string, name: string, input: any });
const resultContent = oneOf(string, arrayOf(tagged({ text: object({ text: string }) })));
const toolResult = object({
  type: literal('tool_result'),
  tool_use_id: string,
  content: optional(resultContent),
  is_error: optional(boolean),
});

/** A content block: the blocks agentloop reads are checked; others (images, documents) pass. */
export const block = tagged({
  text: object({ text: string }),
  tool_use: toolUse,
  tool_result: toolResult,
  thinking: object({ thinking: string, signature: string }),
  redacted_thinking: object({ data: string }),
});

export const message = object({ role: literal('user', 'assistant'), content: oneOf(string, arrayOf(block)) });

const usage = object({
  input_tokens: number,
  output_tokens: number,
  cache_creation_input_tokens: optional(nullable(number)),
  cache_read_input_tokens: optional(nullable(number)),
});

// ---- the records ------------------------------------------------------------------------------

const at = string;

/** Every record type and its shape (and those of records.ts's coming types). */
export const RECORD_SHAPES: { readonly [T in RecordType]: Check } & Readonly<Record<string, Check>> = {
  session: object({ version: literal(1), id: string, cwd: string, createdAt: string, model: string, forkedFrom: optional(string), label: optional(string) }),
  prompt: object({ at, text: string, content: optional(arrayOf(block)) }),
  transition: object({
    at,
    state: string,
    event: string,
    turnCount: count,
    transitionReason: nullable(string),
    exitReason: optional(nullable(string)),
  }),
  /** Which guard of a choice fired (the machine's `decision` event, issue 13). */
  decision: object({ at, state: string, guard: string, target: string }),
  message: object({ at, index: withinLine, message, synthetic: optional(literal(true)), origin: optional(string) }),
  request: object({
    at,
    turnCount: count,
    messageCount: withinLine,
    body: object({}),
    messageCacheMarks: optional(arrayOf(arrayOf(count))),
  }),
  tool_start: object({ at, block: toolUse, publicName: optional(string), display: optional(string) }),
  tool_result: object({ at, toolUseId: string, name: string, result: toolResult }),
  retry: object({ at, attempt: count, delayMs: number, error: string }),
  permission_denied: object({ at, toolUseId: string, toolName: string, input: any, reason: string, rule: nullable(string), decidedBy: string }),
  reply_refused: object({ at, turnCount: count, error: string, startedToolIds: arrayOf(string) }),
  usage: object({ at, turnCount: count, usage, total: usage }),
  result: object({
    at,
    state: string,
    exitReason: nullable(string),
    stopReason: nullable(string),
    turnCount: count,
    usage,
    turnUsage: arrayOf(usage),
    durationMs: number,
    error: optional(string),
  }),
  compact_boundary: object({
    at,
    turnCount: count,
    trigger: literal('threshold', 'prompt_too_long', 'manual'),
    kind: literal('summary', 'cleared'),
    tokensBefore: number,
    tokensAfter: number,
    summary: optional(string),
    messages: arrayOf(message),
  }),
  agent_start: object({ at, toolUseId: string, agentId: string, agentType: string, description: string, prompt: string, model: string }),
  agent: object({ at, toolUseId: string, agentId: string, record: (value, line) => recordProblem({ ...(isObject(value) ? value : {}), at: '' }, line) }),
  agent_end: object({ at, toolUseId: string, agentId: string, agentType: string, state: string, exitReason: nullable(string), text: string, usage, toolUses: count, durationMs: number }),
  resume: object({ at, turnCount: count, repaired: arrayOf(string), messageCount: optional(withinLine), forkedFrom: optional(string) }),
};

/**
 * Why the value read from line `line` (1-based) is not a transcript record, or `undefined` when it
 * is one.
 */
export function recordProblem(value: unknown, line: number): string | undefined {
  if (!isObject(value)) return `${typeName(value)}, not a transcript record`;
  const type = value.type;
  if (typeof type !== 'string') return 'not a transcript record (no type)';
  if (!Object.hasOwn(RECORD_SHAPES, type)) return `unknown record type ${JSON.stringify(type.slice(0, 40))} (written by a newer agentloop?)`;
  const problem = (RECORD_SHAPES[type] as Check)(value, line);
  return problem === undefined ? undefined : `${type} record: ${problem}`;
}
