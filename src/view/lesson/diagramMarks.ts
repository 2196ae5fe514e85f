/**
 * What the lesson's drawing marks at a step (no DOM: the page draws it, the checker reads it): the
 * state the loop is in, and the edge it came by with that edge's label as it applies to this run (the
 * way out of the reply says what the reply held: no tool_use block, or the stop_reason the loop went
 * by; the way to done from the append says why the run ended).
 */
import { LESSON_BOXES, LESSON_EDGES } from './layout.js';
import { line, type Line } from '../texts/line.js';
import type { Timeline } from '../timeline/build.js';

export interface DiagramMarks {
  node: string | null;
  edge: string | null;
  label: Line | null;
}

export function diagramMarks(t: Timeline, i: number): DiagramMarks {
  const step = t.steps[i];
  if (!step) return { node: null, edge: null, label: null };
  const node = LESSON_BOXES.some((b) => b.id === step.state) ? step.state : null;
  const previous = i > 0 && step.event !== 'xstate.init' ? (t.steps[i - 1] ?? null) : null;
  const id = previous === null ? (step.state === 'callingModel' ? 'prompt>callingModel' : '') : `${previous.state}>${step.state}`;
  const edge = LESSON_EDGES.find((e) => e.id === id) ?? null;
  if (!edge) return { node, edge: null, label: null };
  let label: Line | null = edge.label ? line(edge.label) : null;
  if (edge.id === 'checkingReply>done') {
    const reply = previous?.reply;
    const uses = reply?.toolUses.length ?? 0;
    label = uses === 0 && reply?.stopReason !== 'max_tokens' && reply?.stopReason !== 'refusal' ? line('edge.noTools') : line('edge.stopReason', { stopReason: String(reply?.stopReason ?? null) });
  }
  if (edge.id === 'appendingResults>done') label = line('edge.exit', { exit: step.exitReason });
  return { node, edge: edge.id, label };
}
