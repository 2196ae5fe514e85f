/**
 * What a resumed session's first run says on stderr of the subagents its last run cut off (run/childResume.ts), as
 * the resume's own repairs are said (./start.ts): each child that goes on where it stopped, with what its history's
 * repair did (a cut-off call of its own answered as interrupted, never run again), or why it cannot go on (its Agent
 * call then stays answered as interrupted). A nested child's is said the same way.
 */
import { env, stderr } from 'node:process';
import type { RunEvent } from '../../core/events.js';
import { palette } from '../printers/output.js';
import { shown } from '../printers/terminal.js';

/** The line of an `agent_resume` event (nested ones unwrapped), or undefined for any other event. */
export function childResumeNotice(sessionId: string, event: RunEvent): string | undefined {
  if (event.type === 'agent_event') return childResumeNotice(sessionId, event.event);
  if (event.type !== 'agent_resume') return undefined;
  const child = `subagent ${event.agentType} (${event.agentId}) of Agent call ${event.toolUseId}`;
  if (event.why !== undefined) return `resuming ${sessionId}: ${child} cannot go on (${event.why}): its call stays answered as interrupted`;
  return `resuming ${sessionId}: ${child} goes on where it stopped${event.repaired.length > 0 ? `; ${event.repaired.join('; ')}` : ''}`;
}

/** Writes the lines of `childResumeNotice` on stderr. */
export function childResumeNotices(sessionId: string): (event: RunEvent) => void {
  const colors = palette(stderr, env);
  return (event) => {
    const notice = childResumeNotice(sessionId, event);
    if (notice !== undefined) stderr.write(colors.dim(`${shown(notice)}\n`));
  };
}
