/**
 * The pieces runAgent (./runAgent.ts) plugs together for a run: the recorder it opens, the one listener of its events,
 * its spans, how it ended for them, its system prompt.
 */
import type { RunEvent } from '../core/events.js';
import { defaultSystemPrompt } from '../core/prompts.js';
import type { Redactor } from '../core/redact.js';
import type { Tool } from '../core/tool.js';
import type { AgentOutput } from '../machine/context.js';
import type { RunSpans, RunTracing } from '../otel/runSpans.js';
import type { Question } from '../transcript/records.js';
import { startSession, type SessionRecorder } from '../transcript/recorder.js';
import type { RunAgentOptions } from './runOptions.js';
import type { WriteAhead } from './writeAhead.js';
import { pick } from './pick.js';

export function openRecorder(options: RunAgentOptions, cwd: string, prompt: Question | null, redactor: Redactor): SessionRecorder | undefined {
  const session = options.session;
  if (!session) return undefined;
  if ('onEvent' in session) return session;
  // The prompt goes in the header's write: no transcript exists without it.
  const { home, label } = session;
  const id = options.sessionId !== undefined ? { id: options.sessionId } : {};
  return startSession(home, { cwd, model: options.model, prompt, ...id, ...(label ? { label } : {}) }, { redactor });
}

/** One listener for the recorder, the run's spans, the caller's `onEvent`, then the write-ahead (a `tool_start` it sees
 *  has been seen by all of them), each tool_start with its call's line (toolStarts.ts); `undefined` when none listens. */
export function listenerOf(onEvent: RunAgentOptions['onEvent'], recorder: SessionRecorder | undefined, spans: RunSpans | undefined, ahead: WriteAhead, described: (event: RunEvent) => RunEvent) {
  const listeners = [recorder?.onEvent, spans ? (event: RunEvent) => spans.onEvent(event) : undefined, onEvent, ahead.onEvent].filter((l) => l !== undefined);
  if (listeners.length === 1) return undefined;
  return (event: RunEvent) => {
    const shown = described(event);
    for (const listener of listeners) listener(shown);
  };
}

/** The run's spans (src/otel/, loaded only for a traced run); content goes through the run's redactor. */
export async function startSpans(options: RunAgentOptions, sessionId: string, redactor: Redactor, tools: Tool[]): Promise<RunSpans> {
  const { startRunSpans } = await import('../otel/runSpans.js');
  return startRunSpans(options.tracing as RunTracing, {
    conversationId: sessionId,
    model: options.model,
    ...(options.client?.baseURL ? { baseURL: options.client.baseURL } : {}),
    redactor,
    toolAttributes: (name) => tools.find((tool) => tool.name === name)?.spanAttributes,
  });
}

export function runEndOf(context: Pick<AgentOutput, 'exitReason' | 'turnCount' | 'usage' | 'costUsd' | 'error'>) {
  return pick(context, 'exitReason', 'turnCount', 'usage', 'costUsd', 'error') as Omit<Parameters<RunSpans['end']>[0], 'state'>;
}

export function systemPrompt(options: RunAgentOptions, cwd: string): string {
  const base = options.system ?? defaultSystemPrompt(cwd);
  return options.appendSystemPrompt ? `${base}\n\n${options.appendSystemPrompt}` : base;
}
