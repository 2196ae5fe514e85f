/**
 * Write-ahead, made explicit: a tool is called only once its `tool_start` record is on disk, so that a kill at any
 * moment leaves a transcript that knows every tool that may have run (resume.ts never runs it again).
 *
 * The order, step by step: a start is announced (by the machine, for the tool the runner starts as soon as the reply
 * is in; else by the executor, tools/executor.ts, with TOOL_STARTED), then the executor awaits `started(block)`
 * before it calls the tool. That promise settles once the machine's `tool_start` event has
 * gone through every listener of the run before this one (the recorder wrote the record, the spans opened the call's
 * span, so `toolEnv` can name it) and the recorder says the record is on disk (`SessionRecorder.recorded`, for a
 * recorder that writes later). Nothing rests on how many microtasks pass in between (docs/sessions.md).
 */
import type { RunEvent } from '../core/events.js';
import type { ToolUseBlock } from '../core/messages.js';
import type { SessionRecorder } from '../transcript/recorder.js';

/** One tool start: seen by the listeners (`seen`), awaited by the executor (`awaited`); forgotten once both. */
interface Start {
  promise: Promise<void>;
  resolve: (onDisk: Promise<void>) => void;
  seen: boolean;
  awaited: boolean;
}

export interface WriteAhead {
  /** The run's last listener: a `tool_start` here has been seen by all the others. */
  onEvent(event: RunEvent): void;
  /** Settles once the `tool_start` of `block` is on record; never rejects (a recorder that failed stopped recording). */
  started(block: ToolUseBlock): Promise<void>;
}

/** The write-ahead of one run, with `recorder` (if any) saying when a record is on disk. */
export function writeAhead(recorder: Pick<SessionRecorder, 'recorded'> | undefined): WriteAhead {
  const starts = new Map<string, Start>();
  const startOf = (id: string): Start => {
    let start = starts.get(id);
    if (!start) {
      let resolve: Start['resolve'] = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      start = { promise, resolve, seen: false, awaited: false };
      starts.set(id, start);
    }
    return start;
  };
  const forget = (id: string, start: Start) => {
    if (start.seen && start.awaited) starts.delete(id);
  };
  return {
    onEvent(event) {
      if (event.type !== 'tool_start') return;
      const start = startOf(event.block.id);
      start.seen = true;
      start.resolve((recorder?.recorded?.(event.block.id) ?? Promise.resolve()).catch(() => undefined));
      forget(event.block.id, start);
    },
    started(block) {
      const start = startOf(block.id);
      start.awaited = true;
      forget(block.id, start);
      return start.promise;
    },
  };
}
