/**
 * The branches of the machine's choices (`checkingContext`, `checkingReply`, `checkingError`, `appendingResults`), written once each:
 * `when(guard, target, ...actions)` and `otherwise(target, ...actions)`, turned by `choose` into XState transitions
 * that announce which branch fired (`decide`) before their own actions.
 */
import type { ChoiceState } from '../core/events.js';
import type { ExitReason } from '../core/outcome.js';

/** The guards a choice state picks its way by. */
type ChoiceGuard = 'needsCompaction' | 'canCompactAfterRefusal' | 'needsFollowUp' | 'isRefusal' | 'needsContinuation' | 'isCutByMaxTokens' | 'isPromptTooLong' | 'canRetry' | 'reachedMaxTurns' | 'reachedBudget';
type BranchAction = ReturnType<typeof exit> | 'startNextTurn' | 'markRefused';
/** One branch of a choice: where it leads when its guard holds (`else`: when no guard before it did), and what it does. */
interface Branch {
  guard: ChoiceGuard | 'else';
  target: string;
  actions: BranchAction[];
}

export function when(guard: ChoiceGuard, target: string, ...actions: BranchAction[]): Branch {
  return { guard, target, actions };
}

export function otherwise(target: string, ...actions: BranchAction[]): Branch {
  return { guard: 'else', target, actions };
}

/**
 * A choice state's branches, in order. Each names its guard and target once; the branch announces itself (the
 * `decide` action: which guard fired, where it leads) before its own actions.
 */
export function choose(state: ChoiceState, ...branches: Branch[]) {
  return branches.map(({ guard, target, actions }) => ({
    ...(guard === 'else' ? {} : { guard }),
    target,
    actions: [{ type: 'decide' as const, params: { state, guard, target: target.replace(/^#agent\./, '') } }, ...actions],
  }));
}

/** The `exit` action with its reason. */
export function exit(reason: ExitReason) {
  return { type: 'exit' as const, params: reason };
}
