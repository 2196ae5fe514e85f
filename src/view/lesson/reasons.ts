/**
 * The chapter's reasons, one plain sentence at the step where each idea shows (its five learning
 * goals): the model only asks, the harness runs; the tool_use_id binds a result to its call; what is
 * not in messages the model never sees; the model remembers nothing, the whole messages[] goes each
 * time; state holds more than the request body; stop_reason comes last in a stream, so production
 * follows the tool_use blocks; this loop plus bash is the whole agent. Each is shown only where the
 * step's records make it visible (test/support/lessonCheck.ts checks where).
 */
import { messagesAt } from '../timeline/history.js';
import { line, type Line } from '../texts/line.js';
import type { Timeline, TimelineStep } from '../timeline/shape.js';

/** Whether request `number` (from 1) carries every message the history held when it was sent. */
function carriesAll(t: Timeline, i: number): boolean {
  const r = t.steps[i]?.facts.request;
  return r !== undefined && r.readable === messagesAt(t, i).length;
}

export function reasonOf(t: Timeline, step: TimelineStep, i: number): Line | null {
  const f = step.facts;
  if (step.kind === 'reply') {
    const r = step.reply;
    if (!r) return null;
    const n = r.toolUses.length;
    if (n > 0 && r.stopReason !== 'tool_use') return line('why.streaming');
    if (n > 0) return line('why.onlyAsks');
    return r.target === 'done' && step.exitReason === null && r.stopReason !== 'max_tokens' && r.stopReason !== 'refusal' ? line('why.noToolUse') : null;
  }
  switch (step.state) {
    case 'callingModel':
      if (!f.request) return null;
      if (f.request.number === 1) return line('why.state');
      if (f.removed.length || f.request.removed.some((k) => !f.request?.added.includes(k))) return line('why.forgets');
      return carriesAll(t, i) ? line('why.memory') : null;
    case 'executingTools':
      return f.toolResults.length ? line('why.bound') : null;
    case 'appendingResults':
      return step.lesson.marks ? line('why.append') : null;
    case 'done':
      return step.lesson.marks ? line('why.wholeAgent') : null;
    default:
      return null;
  }
}
