/**
 * What a built-in tool loads ahead of its first call, while the run's first model call is under way: the bash tool's
 * shell parser, the file tools' packages. Each would otherwise sit on the path of that first call (a reply that comes at
 * once), or on the start-up of every run that never calls it. A tool call of the process (`toolCalled`) calls off what
 * has not started: the reply came, and what its calls need they load themselves.
 */
import { performance } from 'node:perf_hooks';

/** How often `whileModelThinks` looks whether the process has been waiting, ms. */
const THINKING_MS = 50;
/** The most of that time the event loop may have been busy for it to count as waiting (the model thinks). */
const IDLE_SHARE = 0.25;

/** Calls of the built-in tools in this process (the bash tool's commands, the file tools' calls). */
let calls = 0;

/** Notes a call of a tool: what is loaded ahead gives way to it. */
export function toolCalled(): void {
  calls++;
}

/**
 * Started (the function it returns), calls `warm` once the event loop has been mostly idle for `THINKING_MS` with no
 * tool called since `whileModelThinks` was: the model has not answered yet (a real model takes 0.5-2 s to its first
 * token). A call first, or the run's end, calls it off. Busy (the reply streaming in), it looks again later.
 */
export function whileModelThinks(warm: () => void, ended: AbortSignal | undefined): () => void {
  const before = calls;
  let since = performance.eventLoopUtilization();
  const look = () => {
    if (calls !== before || ended?.aborted) return;
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, since).utilization;
    since = now;
    if (busy <= IDLE_SHARE) warm();
    else setTimeout(look, THINKING_MS).unref();
  };
  return () => {
    since = performance.eventLoopUtilization();
    setTimeout(look, THINKING_MS).unref();
  };
}
