/**
 * The chapter's steps (s01, "the agent loop"), ① to ⑧, on the steps of a run: which one a step is,
 * read from what it is (its state, the reply it got, the reason it goes on), and a short title (a
 * line of the catalogue: texts/). A step the chapter's loop does not have (a retry, a continuation, a
 * failure) is a production path: no number.
 */
import { line } from '../texts/line.js';
import type { TimelineStep } from '../timeline/shape.js';

const MARKS = ['', '①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧'];
const marks = (...n: number[]) => n.map((k) => MARKS[k]).join('');

/** The first callingModel step of a run (its turn is not carried over from a tool result, a retry, ...). */
const opensRun = (step: TimelineStep) => step.state === 'callingModel' && step.transitionReason === null;

export function lessonOf(step: TimelineStep): TimelineStep['lesson'] {
  if (step.kind === 'reply') {
    const asks = (step.reply?.toolUses.length ?? 0) > 0;
    return asks ? { marks: marks(4), title: line('title.asks') } : { marks: marks(7), title: line('title.answers') };
  }
  switch (step.state) {
    case 'callingModel':
      if (opensRun(step)) return step.facts.prompt !== undefined ? { marks: marks(1, 2, 3), title: line('title.first') } : { marks: marks(3), title: line('title.calls') };
      if (step.transitionReason === 'tool_result') return { marks: marks(7), title: line('title.callsAgain') };
      return { marks: '', title: line('title.productionCall', { reason: step.transitionReason }) };
    case 'executingTools':
      return { marks: marks(5), title: line('title.runs') };
    case 'appendingResults':
      // The tools ran (an older transcript marks transitionReason one step later).
      return step.transitionReason === 'tool_result' || step.event === 'TOOLS_DONE'
        ? { marks: marks(6), title: line('title.append') }
        : { marks: '', title: line('title.productionPath', { reason: step.transitionReason ?? 'continue' }) };
    case 'done':
      return step.exitReason === 'completed' || step.exitReason === null
        ? { marks: marks(8), title: line('title.answer') }
        : { marks: '', title: line('title.productionExit', { exit: step.exitReason }) };
    case 'waitingToRetry':
      return { marks: '', title: line('title.retry') };
    case 'compacting':
      return { marks: '', title: line('title.compacting') };
    default:
      return { marks: '', title: line('title.productionExit', { exit: step.exitReason ?? step.state }) };
  }
}
