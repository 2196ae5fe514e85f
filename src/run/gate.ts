/**
 * Stepping a live run (`--step`): the actors that touch the world await a gate before each effect
 * (the model request, each tool), so the machine rests in `callingModel` or `executingTools`
 * until someone lets it go on. What is about to happen is described with the very events the
 * recorder will see once it does happen: a `request` (the body about to be sent) and a
 * `tool_start` (the tool_use about to run).
 */
import type { RunEvent } from '../core/events.js';

/** The effect the run is parked before. */
export type Effect = Extract<RunEvent, { type: 'request' } | { type: 'tool_start' }>;

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
}

/** A gate the learner opens one effect at a time (`next`), or for good (`runToEnd`). */
export class Stepper implements StepGate {
  private state: StepperState = { waiting: null, released: 0, mode: 'step' };
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
