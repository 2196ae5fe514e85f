/**
 * The chapter's steps (s01, "the agent loop"), ① to ⑧, on the steps of a run: which one a step is,
 * read from what it is (its state, the reply it got, the reason it goes on), and a short title.
 * A step the chapter's loop does not have (a retry, a continuation, a failure) is a production path:
 * no number. The page shows them in its lesson view; the chapter's own words are in docs/view.md.
 */
import type { TimelineStep } from './timeline.js';

/** ① … ⑧, and what the chapter calls each step. */
export const CHAPTER_STEPS = {
  1: 'The user gives the prompt to the agent',
  2: 'The agent writes it into state.messages',
  3: 'The agent calls the model (turn 1)',
  4: 'The model says: I want a tool',
  5: 'The agent runs the tool',
  6: 'The tool result is written back into state',
  7: 'The agent calls the model again',
  8: 'The agent returns the answer to the user',
} as const;

const MARKS = ['', '①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧'];
const marks = (...n: number[]) => n.map((k) => MARKS[k]).join('');

/** The first callingModel step of a run (its turn is not carried over from a tool result, a retry, ...). */
const opensRun = (step: TimelineStep) => step.state === 'callingModel' && step.transitionReason === null;

export function lessonOf(step: TimelineStep): TimelineStep['lesson'] {
  if (step.kind === 'reply') {
    const asks = (step.reply?.toolUses.length ?? 0) > 0;
    return asks ? { marks: marks(4), title: 'The model asks for a tool' } : { marks: marks(7), title: 'The model answers' };
  }
  switch (step.state) {
    case 'callingModel':
      if (opensRun(step)) return step.facts.prompt !== undefined ? { marks: marks(1, 2, 3), title: 'Prompt → messages → model' } : { marks: marks(3), title: 'The loop calls the model' };
      if (step.transitionReason === 'tool_result') return { marks: marks(7), title: 'The loop calls the model again' };
      return { marks: '', title: `Production path: call again (${step.transitionReason})` };
    case 'executingTools':
      return { marks: marks(5), title: 'The loop runs the tool' };
    case 'appendingResults':
      // TOOLS_DONE: the tools ran (an older transcript marks transitionReason one step later).
      return step.transitionReason === 'tool_result' || step.event === 'TOOLS_DONE'
        ? { marks: marks(6), title: 'Results go back into messages' }
        : { marks: '', title: `Production path: ${step.transitionReason ?? 'continue'}` };
    case 'done':
      return step.exitReason === 'completed' || step.exitReason === null
        ? { marks: marks(8), title: 'The answer goes to the user' }
        : { marks: '', title: `Production exit: ${step.exitReason}` };
    case 'waitingToRetry':
      return { marks: '', title: 'Production path: wait, then retry' };
    default:
      return { marks: '', title: `Production exit: ${step.exitReason ?? step.state}` };
  }
}
