/**
 * What the reading commands (`result`, `messages`, `view --restate`) and `submit --wait` say of a durable run that has
 * no result to give yet, and their exit codes: the same for the same situation.
 */
import type { PendingRun, SessionView } from '../../durable/admin.js';
import type { DurableIo } from './durableIo.js';
import { shown } from '../printers/terminal.js';

/** Exit codes of the reading commands (`result`, `messages`, `view --restate`): the same for the same situation. */
export const NO_SUCH_SESSION = 2;
export const STILL_RUNNING = 3;

/** What a reading command says of a session that has no result to give. */
export function notDone(view: Exclude<SessionView, { state: 'done' }>, options: { restate: string; id: string }, io: DurableIo): number {
  if (view.state === 'unknown') {
    io.stderr.write(`agentloop: no durable run of session ${options.id} at ${options.restate}\n`);
    return NO_SUCH_SESSION;
  }
  if (view.state === 'ended') {
    io.stderr.write(`agentloop: the run of session ${options.id} ended without a result (cancelled or killed in Restate)\n`);
    return 1;
  }
  io.stderr.write(`${shown(stillRunning(options.id, view.run))}\n`);
  return STILL_RUNNING;
}

/** "still running", and why it may not move: no worker answers, or Restate paused it. */
export function stillRunning(id: string, run: PendingRun): string {
  const failure = run.lastFailure ? `: ${run.lastFailure.split('\n')[0]?.slice(0, 200)}` : '';
  if (run.status === 'paused') {
    return `session ${id}: still running, but paused by Restate after ${run.retryCount} failed attempts${failure}; resume invocation ${run.invocationId} with Restate's UI or CLI`;
  }
  if (run.status === 'backing-off') {
    return `session ${id}: still running, but no worker answers (attempt ${run.retryCount} failed${failure}); it goes on when a worker is back`;
  }
  return `session ${id}: still running`;
}
