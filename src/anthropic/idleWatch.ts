/**
 * The idle watch of the API streams: a stream that sends nothing for its `idleTimeoutMs` is given up (its controller
 * aborted). Every stream of the process is watched by one timer, set for the earliest moment one of them could have
 * been quiet that long; when it fires, each watch is checked, the quiet ones are cut, and the timer is set again for
 * the next. A timer a stream cost 1,000 streams at once a Timeout and its closure each (bench/many.ts); an event only
 * notes its time, as before (re-arming a timer on every event costs more than the event).
 */

export interface IdleWatch {
  /** Whether the stream was given up for its quiet. */
  readonly stalled: boolean;
  /** Something arrived: the quiet starts again. */
  note(): void;
  /** The stream is over: no longer watched. */
  stop(): void;
}

class Watch implements IdleWatch {
  stalled = false;
  lastEventAt = performance.now();
  constructor(
    readonly idleTimeoutMs: number,
    private readonly local: AbortController,
  ) {}

  note(): void {
    this.lastEventAt = performance.now();
  }

  stop(): void {
    watches.delete(this);
    if (watches.size === 0) disarm();
  }

  /** When its quiet reaches the bound, as things stand. */
  get deadline(): number {
    return this.lastEventAt + this.idleTimeoutMs;
  }

  cut(): void {
    this.stalled = true;
    watches.delete(this);
    this.local.abort(new Error('stalled'));
  }
}

const watches = new Set<Watch>();
let timer: NodeJS.Timeout | undefined;
/** When the timer fires (`performance.now()`), while it is set. */
let firesAt = Infinity;

/** Watches a stream: aborts `local` once the stream has been quiet for `idleTimeoutMs`. */
export function idleWatch(idleTimeoutMs: number, local: AbortController): IdleWatch {
  const watch = new Watch(idleTimeoutMs, local);
  watches.add(watch);
  if (watch.deadline < firesAt) arm(watch.deadline);
  return watch;
}

function arm(at: number): void {
  disarm();
  firesAt = at;
  timer = setTimeout(check, Math.max(0, Math.ceil(at - performance.now())));
}

function disarm(): void {
  clearTimeout(timer);
  timer = undefined;
  firesAt = Infinity;
}

/** Cuts every stream quiet for its bound, and sets the timer for the earliest of the others. */
function check(): void {
  timer = undefined;
  firesAt = Infinity;
  const now = performance.now();
  let next = Infinity;
  for (const watch of watches) {
    const deadline = watch.deadline;
    if (deadline <= now) watch.cut();
    else next = Math.min(next, deadline);
  }
  if (next < Infinity) arm(next);
}
