/**
 * The history and the requests of a timeline as they were at a step: what the server's sentences
 * and the page's panes both read (no DOM here; the page bundles it).
 */
import type { MessageParam } from '../../core/messages.js';
import type { Timeline, TimelineMessage, TimelineRequest } from './shape.js';

/** The states a run ends in. */
export const FINAL_STATES: ReadonlySet<string> = new Set(['done', 'failed', 'aborted']);

/** The history as it was at step `index` (only the first `limit` messages when given): up to its first gap. */
export function messagesAt(t: Pick<Timeline, 'messages'>, index: number, limit?: number): TimelineMessage[] {
  const out: TimelineMessage[] = [];
  for (const m of t.messages) {
    if (m.step > index || (limit !== undefined && m.index >= limit)) continue;
    if (m.removedAt !== undefined && m.removedAt <= index) continue;
    out[m.index] = m;
  }
  const gap = out.findIndex((m) => m === undefined);
  return gap < 0 ? out : out.slice(0, gap);
}

/** Messages the loop deleted from the history at step `index`. */
export function removedAt(t: Pick<Timeline, 'messages'>, index: number): TimelineMessage[] {
  return t.messages.filter((m) => m.removedAt === index);
}

/** The messages request `req` carried, as the transcript holds them. */
export function requestMessages(t: Pick<Timeline, 'messages'>, req: TimelineRequest): TimelineMessage[] {
  return messagesAt(t, req.step, req.messageCount);
}

/** What request `k` (from 0) adds to the one before: messages new or changed, and those it no longer carries. */
export function requestDelta(t: Pick<Timeline, 'messages' | 'requests'>, k: number): { added: number[]; removed: number[] } {
  const req = t.requests[k];
  if (!req) return { added: [], removed: [] };
  const now = requestMessages(t, req);
  const before = k > 0 ? requestMessages(t, t.requests[k - 1] as TimelineRequest) : [];
  return {
    added: now.filter((m, i) => before[i] !== m).map((m) => m.index),
    removed: before.filter((m, i) => now[i] !== m).map((m) => m.index),
  };
}

/** The request of a step: its body as sent (messages from the history, cache marks put back). */
export function requestBody(t: Pick<Timeline, 'messages'>, req: TimelineRequest): Record<string, unknown> {
  const messages: MessageParam[] = requestMessages(t, req).map((m) => structuredClone(m.message));
  for (const [mi, bi] of req.messageCacheMarks) {
    const content = messages[mi]?.content;
    const block = typeof content === 'string' ? undefined : content?.[bi];
    if (block) Object.assign(block, { cache_control: { type: 'ephemeral' } });
  }
  return { ...req.body, messages };
}
