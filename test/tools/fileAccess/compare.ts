/** How a tool's answer is held to Claude Code's recorded one (claudeCode.test.ts, cli.test.ts). */
import type { Call } from './cases.js';
import type { RecordedResult } from './record.js';

/** Glob's durationMs is the run's own. */
export function withoutDuration(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || !('durationMs' in data)) return data;
  const { durationMs: _, ...rest } = data as Record<string, unknown>;
  return rest;
}

/** rg searches files in parallel: the order of content and count lines is not its to keep (nor Claude Code's). */
function anyOrder(result: RecordedResult): RecordedResult {
  const sorted = (text: unknown) => (typeof text === 'string' ? text.split('\n').sort().join('\n') : text);
  const data = result.data as Record<string, unknown> | undefined;
  return { content: sorted(result.content), isError: result.isError, data: typeof data === 'object' && data !== null ? { ...data, content: sorted(data.content) } : data };
}

/** The answer as compared: Glob's duration left out, Grep's lines in any order (unless paginated). */
export function comparable(call: Call, result: RecordedResult): RecordedResult {
  const plain = { ...result, data: withoutDuration(result.data) };
  return call.tool === 'Grep' && call.input.head_limit === undefined ? anyOrder(plain) : plain;
}
