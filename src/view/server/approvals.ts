/**
 * The calls of a durable run that wait for an approval, as `agentloop view --restate` shows them (client/approvals.ts
 * draws the card): the tool, its display line, why it is asked, since when, the deadline, the commands that answer
 * it; and once answered, how. The CLI fills the feed from Restate (cli/commands/durableView.ts); the server sends the list to
 * the page each time it changes (server.ts, the `approvals` event).
 */

export interface WaitingCallView {
  toolUseId: string;
  /** The tool's name, as the model called it. */
  tool: string;
  /** The call's display line: `$ touch x`. */
  call: string;
  /** Why it is asked (the mode and the rules did not decide it). */
  reason: string;
  /** ISO 8601. */
  since: string;
  /** When --approval-timeout denies it, ISO 8601. */
  deadline?: string;
  /** The commands that answer it, as typed in a terminal. */
  approve: string;
  deny: string;
  /** Waits; or no longer: it ran (approved), was denied (`message`: what the model got), or its answer is not in the records yet. */
  state: 'waiting' | 'approved' | 'denied' | 'answered';
  message?: string;
}

export interface ApprovalFeed {
  readonly current: readonly WaitingCallView[];
  /** Hears each change of the list; gives the function that stops it. */
  subscribe(listener: () => void): () => void;
}

/** A feed its owner sets: the listeners hear a list only when it differs from the one before. */
export function approvalFeed(): ApprovalFeed & { set(calls: readonly WaitingCallView[]): void } {
  let current: readonly WaitingCallView[] = [];
  let text = '[]';
  const listeners = new Set<() => void>();
  return {
    get current() {
      return current;
    },
    set(calls) {
      const next = JSON.stringify(calls);
      if (next === text) return;
      current = calls;
      text = next;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
