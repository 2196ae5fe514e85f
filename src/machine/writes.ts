/**
 * The machine's record actions that write and announce together (agentMachine.ts): each enqueues the context's
 * change (a pure update of updates.ts) and the event that says what happened, in that order.
 */
import type { MachineEvent, MessageOrigin } from '../core/events.js';
import type { MessageParam, ToolUseBlock } from '../core/messages.js';
import type { ModelReply } from '../core/model.js';
import type { AgentContext } from './context.js';
import { errorUpdate, type ContextUpdate } from './updates.js';

export type Enqueue = {
  assign: (update: ContextUpdate) => void;
  emit: (event: MachineEvent) => void;
};

/** Applies `update` and announces the message it wrote, if it wrote one (appended, or replaced the last). */
export function applyWrite(enqueue: Enqueue, context: AgentContext, update: (c: AgentContext) => ContextUpdate, origin: MessageOrigin): void {
  const changes = update(context);
  enqueue.assign(changes);
  const messages = changes.messages;
  if (messages === undefined || messages === context.messages) return;
  const index = messages.length - 1;
  enqueue.emit({ type: 'message', index, message: messages.at(index) as MessageParam, origin });
}

/** `block` has started: it joins the turn's started tools and is announced (`tool_start`). */
export function recordStart(enqueue: Enqueue, context: AgentContext, block: ToolUseBlock): void {
  enqueue.assign({ turn: { ...context.turn, startedToolIds: [...context.turn.startedToolIds, block.id] } });
  enqueue.emit({ type: 'tool_start', block });
}

/** A failed model call's error joins the context; a refused reply is announced, with the tools of it that had started. */
export function recordFailure(enqueue: Enqueue, context: AgentContext, error: unknown): void {
  const update = errorUpdate(context, error);
  enqueue.assign(update);
  if (update.error?.kind !== 'invalid_reply') return;
  enqueue.emit({ type: 'reply_refused', turnCount: context.turnCount, error: update.error, startedToolIds: [...context.turn.startedToolIds] });
}

/** The `reply` event: the metadata of the reply just written, read from the context after it (`after`). */
export function replyEvent(after: AgentContext, reply: ModelReply): MachineEvent {
  return {
    type: 'reply',
    turnCount: after.turnCount,
    index: after.messages.length - 1,
    ...(reply.id ? { id: reply.id } : {}),
    ...(reply.requestId ? { requestId: reply.requestId } : {}),
    model: reply.model ?? after.model,
    stopReason: reply.stopReason,
    usage: reply.usage,
    total: after.usage,
    costUsd: after.costUsd,
    needsFollowUp: after.needsFollowUp,
    droppedIncompleteBlock: reply.droppedIncompleteBlock,
  };
}
