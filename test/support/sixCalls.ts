/**
 * The run that takes every kind of model call: three replies cut by max_tokens (continuations), a
 * pause_turn, an overloaded error (a retry), then the answer: six calls. The machine's test drives
 * it with the scripted model (test/machine/events.test.ts), the CLI's through the Messages API server
 * (test/cli/everyStep.process.test.ts), the viewer's in the page (test/view/viewer.browser.test.ts).
 * Each file writes its own error and answer (the error's shape differs per side).
 */

/** A reply cut by max_tokens: the loop continues it. */
export const cut = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'max_tokens' as const });

/** A reply the server paused (pause_turn): the loop sends it back to go on. */
export const paused = { content: [{ type: 'text' as const, text: 'searching' }], stop_reason: 'pause_turn' as const };

/** [turnCount, transitionReason] of each of the six transitions into callingModel, in order. */
export const SIX_CALLS: [turnCount: number, transitionReason: string | null][] = [
  [1, null],
  [2, 'max_tokens_continuation'],
  [3, 'max_tokens_continuation'],
  [4, 'max_tokens_continuation'],
  [5, 'pause_turn'],
  [5, 'retry'],
];
