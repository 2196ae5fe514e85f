/**
 * What a run leaves in a transcript: the record each run event becomes (without its `at`), the
 * line a record is written as, and the records that start a session or a resume. The recorder
 * (recorder.ts) writes them; durable runs (src/durable/) keep the same records elsewhere.
 */
import { CACHED_TAIL, messageCacheMarks } from '../anthropic/cache.js';
import type { RunEvent } from '../core/events.js';
import { textOf } from '../history/messages.js';
import type { AgentOutput } from '../machine/context.js';
import type { PromptRecord, Question, SessionRecord } from './records.js';
import type { RestoredConversation } from './resume.js';

/** What the recorder writes of a finished run (runAgent's `RunResult` is one). */
export interface FinishedRun {
  state: string;
  context: AgentOutput;
  durationMs: number;
}

/** A record without its timestamp; `at` is added on write. */
export type Draft = SessionRecord extends infer R ? (R extends { at: string } ? Omit<R, 'at'> : never) : never;

/** The `prompt` record of a question, without its timestamp. */
export function promptDraft(question: Question): Omit<PromptRecord, 'at'> {
  return typeof question === 'string' ? { type: 'prompt', text: question } : { type: 'prompt', text: textOf(question), content: question };
}

/** Compares questions: the same text, or the same blocks. */
export const questionKey = (question: Question) => (typeof question === 'string' ? `text:${question}` : `blocks:${JSON.stringify(question)}`);

/**
 * The `resume` record and the messages a resume goes on from that are not in the transcript yet:
 * its repair (synthetic); for a fork, the whole history (the copied part as it was recorded).
 */
export function resumeDrafts(conversation: RestoredConversation, forkedFrom?: string): Draft[] {
  const { messages, turnCount, repaired } = conversation;
  const recordedCount = forkedFrom === undefined ? conversation.recordedCount : 0;
  return [
    { type: 'resume', turnCount, repaired, messageCount: recordedCount, ...(forkedFrom !== undefined ? { forkedFrom } : {}) },
    ...messages.slice(recordedCount).map((message, i): Draft => {
      const index = recordedCount + i;
      return { type: 'message', index, message, ...(index >= conversation.recordedCount ? { synthetic: true as const } : {}) };
    }),
  ];
}

/** A draft's line: its JSON with `at` last (as `{ ...draft, at }` would give), and the newline. */
export function lineOf(draft: Draft, at: string): string {
  const json = JSON.stringify(draft);
  return `${json.slice(0, -1)},"at":${JSON.stringify(at)}}\n`;
}

/** The time for `at`: `now()`, or the clock, whose ISO string is made once a millisecond. */
export function timestamps(now: (() => Date) | undefined): () => string {
  if (now) return () => now().toISOString();
  let ms = NaN;
  let iso = '';
  return () => {
    const t = Date.now();
    if (t !== ms) {
      ms = t;
      iso = new Date(t).toISOString();
    }
    return iso;
  };
}

/**
 * The record a run event becomes in a transcript (without its `at`), or `undefined` for what a
 * transcript leaves out. Also used by durable runs, which keep the same records elsewhere.
 */
export function draftOf(event: RunEvent): Draft | undefined {
  switch (event.type) {
    case 'transition':
      return { ...event, type: 'transition' };
    case 'decision':
      return { type: 'decision', state: event.state, guard: event.guard, target: event.target };
    case 'message':
      return { type: 'message', index: event.index, message: event.message, origin: event.origin };
    case 'request': {
      const { messages, ...body } = event.body;
      return {
        type: 'request',
        turnCount: event.turnCount,
        messageCount: event.messageCount,
        body,
        // The loop's own messages carry no cache_control: the breakpoints the model service
        // adds are on the last messages of the copy it sends (anthropic/cache.ts), so only
        // those are looked at; marks a caller wrote are in the message records already.
        messageCacheMarks: messageCacheMarks(messages, Math.max(0, event.messageCount - CACHED_TAIL)),
      };
    }
    case 'reply':
      return {
        type: 'usage',
        turnCount: event.turnCount,
        usage: event.usage,
        total: event.total,
        ...(event.id ? { id: event.id } : {}),
        model: event.model,
        stopReason: event.stopReason,
        costUsd: event.costUsd,
        needsFollowUp: event.needsFollowUp,
      };
    case 'tool_start':
      return startDraft(event);
    case 'tool_result':
      return { type: 'tool_result', toolUseId: event.block.id, name: event.block.name, result: event.result };
    case 'retry':
      return {
        type: 'retry',
        attempt: event.attempt,
        delayMs: event.delayMs,
        error: event.error.message,
        kind: event.error.kind,
        ...(event.error.apiType ? { apiType: event.error.apiType } : {}),
        turnCount: event.turnCount,
        model: event.model,
      };
    case 'permission_denied':
      return deniedDraft(event);
    case 'reply_refused':
      return { type: 'reply_refused', turnCount: event.turnCount, error: event.error.message, startedToolIds: event.startedToolIds };
    case 'compact_boundary': return { type: 'compact_boundary', turnCount: event.turnCount, ...event.boundary };
    case 'agent_start': case 'agent_end': case 'agent_event': case 'agent_resume': // a subagent's run
      return agentDraft(event);
    default: // tool_use (the block arrives whole in the assistant message), text, thinking, stream_event
      return undefined;
  }
}

/**
 * A subagent's start and end (the event is the record), each of its records wrapped (records.ts `agent`), and its
 * resume as its own `resume` record (one that cannot go on leaves none: its call's answer says it).
 */
function agentDraft(event: Extract<RunEvent, { type: 'agent_start' | 'agent_end' | 'agent_event' | 'agent_resume' }>): Draft | undefined {
  if (event.type === 'agent_resume') {
    if (event.why !== undefined) return undefined;
    const record = { type: 'resume', turnCount: event.turnCount, repaired: event.repaired, messageCount: event.messageCount };
    return { type: 'agent', toolUseId: event.toolUseId, agentId: event.agentId, record };
  }
  if (event.type !== 'agent_event') return { ...event } as Draft;
  const inner = draftOf(event.event);
  return inner && { type: 'agent', toolUseId: event.toolUseId, agentId: event.agentId, record: inner as Draft & Record<string, unknown> };
}

/** The record of a tool's start: its block, and (from runAgent) its public name and the line that shows the call. */
function startDraft({ block, publicName, display }: Extract<RunEvent, { type: 'tool_start' }>): Draft {
  return { type: 'tool_start', block, ...(publicName !== undefined ? { publicName } : {}), ...(display !== undefined ? { display } : {}) };
}

/** The record of a call the permission gate denied. */
function deniedDraft({ block, toolName, reason, rule, decidedBy }: Extract<RunEvent, { type: 'permission_denied' }>): Draft {
  return { type: 'permission_denied', toolUseId: block.id, toolName, input: block.input, reason, rule, decidedBy };
}

/** The `result` record of a finished run (without its `at`). */
export function resultDraft(result: FinishedRun): Draft {
  const { context } = result;
  return {
    type: 'result',
    state: result.state,
    exitReason: context.exitReason,
    stopReason: context.stopReason,
    turnCount: context.turnCount,
    usage: context.usage,
    turnUsage: context.turnUsage,
    durationMs: result.durationMs,
    ...(context.error ? { error: context.error.message } : {}),
  };
}
