/**
 * Stepping a live run (`--step`): the actors that touch the world await a gate before each effect of
 * the chapter's loop, so the machine rests until someone lets it go on (the machine itself stays pure):
 * - `request` (③ ⑦): the model actor, before the body goes out (the machine rests in `callingModel`);
 * - `reply` (④): the model actor, with the whole reply in hand (its stop_reason, its tool_use blocks),
 *   before the machine takes it in: nothing of it is in messages yet and no tool has started;
 * - `tool_start` (⑤): the stepped tool runner, before each tool (the machine rests in `executingTools`);
 * - `append` (⑥): the stepped tool runner, every result in, before the machine appends them to messages;
 * - `end` (⑧): runAgent, the machine in its final state, before the answer goes to the caller.
 * A `request` and a `tool_start` are the very events the recorder sees once they happen.
 */
import type { RunEvent } from '../core/events.js';
import type { ContentBlock, StopReason, ToolResultBlockParam } from '../core/messages.js';

/** The effect the run is parked before. */
export type Effect =
  | Extract<RunEvent, { type: 'request' } | { type: 'tool_start' }>
  /** The reply is in (the model call is over): the loop has not read it yet. */
  | {
      type: 'reply';
      turnCount: number;
      stopReason: StopReason | null;
      content: ContentBlock[];
      /** Each tool_use block of `content`, in order, as its tool shows the call (`$ ls -A`, `Read /abs/a.txt`). */
      calls?: string[];
    }
  /** Every tool of the turn has returned: the tool_result blocks about to be appended as one user message. */
  | { type: 'append'; results: ToolResultBlockParam[] }
  /** The run reached its final state: its answer (the last assistant text) is about to go to the user. */
  | { type: 'end'; state: string; exitReason: string | null; text: string };

export interface StepGate {
  /** Resolves when `effect` may happen; rejects when `signal` aborts first (the run was interrupted). */
  wait(effect: Effect, signal: AbortSignal): Promise<void>;
}

export interface StepperState {
  /** The effect the run waits before, or null while it runs. */
  waiting: Effect | null;
  /** Effects let through so far. */
  released: number;
  /** `run`: the learner let it run to the end; no more stops. */
  mode: 'step' | 'run';
  /** The run is over (its result written): nothing more will happen. */
  ended: boolean;
}

/** A gate the learner opens one effect at a time (`next`), or for good (`runToEnd`). */
export class Stepper implements StepGate {
  private state: StepperState = { waiting: null, released: 0, mode: 'step', ended: false };
  private open: (() => void) | undefined;
  private readonly listeners = new Set<(state: StepperState) => void>();

  get current(): StepperState {
    return this.state;
  }

  wait(effect: Effect, signal: AbortSignal): Promise<void> {
    if (this.state.mode === 'run') return this.pass();
    return new Promise<void>((resolve, reject) => {
      const abort = () => {
        this.open = undefined;
        this.set({ waiting: null });
        reject(signal.reason ?? new Error('aborted'));
      };
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      this.open = () => {
        signal.removeEventListener('abort', abort);
        resolve();
      };
      this.set({ waiting: effect });
    });
  }

  /** Lets the waiting effect happen (nothing when none waits). */
  next(): boolean {
    const open = this.open;
    if (!open) return false;
    this.open = undefined;
    this.set({ waiting: null, released: this.state.released + 1 });
    open();
    return true;
  }

  /** Lets this effect and every later one happen. */
  runToEnd(): void {
    this.set({ mode: 'run' });
    this.next();
  }

  /** The run is over: the page says so (nothing waits, nothing will). */
  end(): void {
    this.open = undefined;
    this.set({ waiting: null, ended: true });
  }

  /** Calls `listener` with each new state; returns the unsubscribe. */
  subscribe(listener: (state: StepperState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private pass(): Promise<void> {
    this.set({ released: this.state.released + 1 });
    return Promise.resolve();
  }

  private set(change: Partial<StepperState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener(this.state);
  }
}
