/**
 * The agent as a Restate virtual object, `AgentSession`, keyed by the session id. Its `run`
 * handler runs the same machine as the CLI (run/runAgent.ts `runAgent`), with the model call and
 * the tools as journalled steps (journal.ts): after a worker dies, Restate replays the handler on
 * a live one, which takes the recorded replies and results from the journal and goes on.
 *
 * One run at a time per session (an exclusive handler); the shared handlers read the session
 * while a run goes on: `status`, `transcript` (the records a local session file would hold) and
 * `messages`.
 */
import * as restate from '@restatedev/restate-sdk';
import type { MessageParam } from '../core/messages.js';
import type { ModelCall } from '../core/model.js';
import type { Tool } from '../core/tool.js';
import { defaultRunConfig } from '../core/config.js';
import { recordedMessages } from '../transcript/resume.js';
import { runAgent } from '../run/runAgent.js';
import { journalledModel, journalledTools } from './journal.js';
import { openRecords, readRecords } from './records.js';
import { requestProblem, toDurableResult, type DurableRunResult, type RunRequest, type RunStatus } from './protocol.js';

/** What every run of a worker uses. */
export interface WorkerSettings {
  /** The model when a request names none (MODEL_ID). */
  model: string;
  modelCall: ModelCall;
  tools: Tool[];
  /** Working directory of the tools. */
  cwd: string;
}

export const SERVICE_NAME = 'AgentSession';

/** Long enough for a tool at its longest timeout: Restate asks a handler that shows no progress to stop. */
const INACTIVITY_TIMEOUT_MS = 15 * 60_000;

export function agentSession(settings: WorkerSettings) {
  return restate.object({
    name: SERVICE_NAME,
    handlers: {
      run: async (ctx: restate.ObjectContext, request: RunRequest): Promise<DurableRunResult> => {
        const problem = requestProblem(request);
        if (problem) throw new restate.TerminalError(problem, { errorCode: 400 });
        const clock = { now: await ctx.date.now() };
        const startedAt = clock.now;
        const model = request.model ?? settings.model;
        const records = await openRecords(ctx, { id: ctx.key, cwd: settings.cwd, model }, clock);
        const messages = (await ctx.get<MessageParam[]>('messages')) ?? [];
        const turnCount = (await ctx.get<number>('nextTurn')) ?? 1;
        records.prompt(request.prompt);
        ctx.set<RunStatus['status']>('status', 'running');
        const run = await runAgent(request.prompt, {
          model,
          modelCall: journalledModel(ctx, settings.modelCall, clock),
          tools: journalledTools(ctx, settings.tools, clock),
          cwd: settings.cwd,
          sessionId: ctx.key,
          messages,
          turnCount,
          seed: Math.floor(ctx.rand.random() * 2 ** 32),
          onEvent: records.onEvent,
          // --max-turns counts the model calls of this run: a session's later runs start further on.
          maxTurns: (request.maxTurns ?? defaultRunConfig.maxTurns) + turnCount - 1,
          ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
          ...(request.maxRetries !== undefined ? { maxRetries: request.maxRetries } : {}),
          ...(request.appendSystemPrompt !== undefined ? { appendSystemPrompt: request.appendSystemPrompt } : {}),
        });
        // The time between journalled steps, not the replay's own: a replay writes the same values.
        const finished = { ...run, durationMs: clock.now - startedAt };
        records.finish(finished);
        const result = toDurableResult(finished);
        ctx.set('messages', run.context.messages);
        ctx.set('nextTurn', run.context.turnCount + 1);
        ctx.set('result', result);
        ctx.set<RunStatus['status']>('status', 'done');
        return result;
      },
      status: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext): Promise<RunStatus> => {
        const status = (await ctx.get<RunStatus['status']>('status')) ?? 'none';
        const result = await ctx.get<DurableRunResult>('result');
        return status === 'done' && result ? { status, result } : { status: status === 'done' ? 'none' : status };
      }),
      transcript: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext) => readRecords(ctx)),
      messages: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext): Promise<MessageParam[]> => {
        return recordedMessages(await readRecords(ctx)).messages;
      }),
    },
    options: { inactivityTimeout: INACTIVITY_TIMEOUT_MS },
  });
}
