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
import type { Redactor } from '../core/redact.js';
import { credentialRedactor } from '../tools/bash/judge/secrets.js';
import type { Tool } from '../core/tool.js';
import type { RunTracing } from '../otel/runSpans.js';
import { recordedMessages } from '../transcript/resume.js';
import { runAgent, type RunAgentOptions, type RunResult } from '../run/runAgent.js';
import { durableRunOptions, requestMaxTurns } from './durableRun.js';
import { openRecords, readRecords, type DurableRecorder, type RecordState } from './records.js';
import { redactedState, RUN_RETRIES, RUN_TIMEOUTS, type WorkerSettings } from './workerSettings.js';
import { runPermissions } from './permissions.js';
import { firstValid } from '../otel/traceContext.js';
import { durableIds, requestTrace } from './traceIds.js';
import { checkRootRule } from '../permissions/root.js';
import { requestProblem, SERVICE_NAME, toDurableResult, type DurableRunResult, type RunRequest, type RunStatus } from './protocol.js';

export { RUN_TIMEOUTS, type WorkerSettings } from './workerSettings.js';

/** A read through the ingress that no worker answers gives up (`agentloop result` reads the state through the admin API). */
const READ_RETRIES = { initialInterval: 200, maxAttempts: 3, onMaxAttempts: 'kill' as const };

/**
 * The parent of a run's `invoke_agent` span: the trace context of this attempt, which Restate sends when its own
 * tracing is on (its span of the attempt), else the `traceparent` the run was submitted with (`agentloop submit`
 * forwards TRACEPARENT), else none: a trace of its own. Loads OpenTelemetry only for a worker that traces.
 */
export async function runParent(tracing: Omit<RunTracing, 'parent'>, request: restate.Request): Promise<RunTracing> {
  const { parentOf } = await import('../otel/traceContext.js');
  const { parent } = await parentOf(requestTrace(request));
  return { ...tracing, parent };
}

/** A run as it starts: the session as it stands (its records, messages and next turn) and the prompt, redacted. */
interface Started {
  model: string;
  redactor: Redactor;
  state: RecordState;
  records: DurableRecorder;
  messages: MessageParam[];
  turnCount: number;
  prompt: string;
}

/** Opens the session for a run: its records get the prompt, its status says `running`. */
async function startRun(ctx: restate.ObjectContext, settings: WorkerSettings, request: RunRequest, clock: { now: number }): Promise<Started> {
  const model = request.model ?? settings.model;
  // Restate keeps what is set and journalled: the run's secrets are cut out of it first (core/redact.ts).
  const redactor = settings.redactor ?? credentialRedactor(process.env);
  const state = redactedState(ctx, redactor);
  const records = await openRecords(state, { id: ctx.key, cwd: settings.cwd, model }, clock);
  const messages = (await ctx.get<MessageParam[]>('messages')) ?? [];
  const turnCount = (await ctx.get<number>('nextTurn')) ?? 1;
  // The prompt too: a secret only this worker knows (submit cut those it knows) reaches neither the model nor the records.
  const prompt = redactor.text(request.prompt);
  records.prompt(prompt);
  ctx.set<RunStatus['status']>('status', 'running');
  return { model, redactor, state, records, messages, turnCount, prompt };
}

/** The same runAgent as the CLI's, its model call, tools and timers journalled (durableRun.ts), going on from the session as it stands. */
async function runOptions(ctx: restate.ObjectContext, settings: WorkerSettings, request: RunRequest, run: Started, clock: { now: number }): Promise<RunAgentOptions> {
  const setup = {
    sessionId: ctx.key,
    model: run.model,
    redactor: run.redactor,
    records: run.records,
    messages: run.messages,
    turnCount: run.turnCount,
    seed: Math.floor(ctx.rand.random() * 2 ** 32),
    maxTurns: requestMaxTurns(request),
    offered: (tools: Tool[]) => tools,
    trace: firstValid(requestTrace(ctx.request())),
  };
  return {
    ...durableRunOptions(ctx, settings, request, setup, clock),
    sessionId: ctx.key,
    // Its spans' ids that its children hang under are the same in each attempt (traceIds.ts).
    ...(settings.tracing ? { tracing: { ...(await runParent(settings.tracing, ctx.request())), ids: durableIds(ctx.request().id) } } : {}),
    ...(request.appendSystemPrompt !== undefined ? { appendSystemPrompt: run.redactor.text(request.appendSystemPrompt) } : {}),
  };
}

/** The run's end kept in the session: its records finished, the messages and next turn for its next run, the result (redacted). */
function finishRun(ctx: restate.ObjectContext, run: Started, finished: RunResult & { durationMs: number }): DurableRunResult {
  run.records.finish(finished);
  const result = run.redactor.value(toDurableResult(finished));
  run.state.set('messages', finished.context.messages);
  ctx.set('nextTurn', finished.context.turnCount + 1);
  ctx.set('result', result);
  ctx.set<RunStatus['status']>('status', 'done');
  return result;
}

/** Why the request's rules cannot hold (a rule that does not parse), or undefined. */
function rulesProblem(request: RunRequest, settings: WorkerSettings): string | undefined {
  try {
    runPermissions(request, settings.permissions);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The `run` handler: one run of the agent in the session `ctx.key`, going on from where its last run ended. */
async function runSession(settings: WorkerSettings, ctx: restate.ObjectContext, request: RunRequest): Promise<DurableRunResult> {
  const problem = requestProblem(request) ?? rulesProblem(request, settings);
  if (problem) throw new restate.TerminalError(problem, { errorCode: 400 });
  const clock = { now: await ctx.date.now() };
  const startedAt = clock.now;
  const started = await startRun(ctx, settings, request, clock);
  const run = await runAgent(started.prompt, await runOptions(ctx, settings, request, started, clock));
  // The time between journalled steps, not the replay's own: a replay writes the same values.
  return finishRun(ctx, started, { ...run, durationMs: clock.now - startedAt });
}

export { SERVICE_NAME };

/** Throws the root rule's refusal (permissions/root.ts) for a worker whose mode is bypassPermissions as root outside a sandbox. */
export function agentSession(settings: WorkerSettings) {
  if (settings.permissions?.mode) checkRootRule(settings.permissions.mode, undefined, undefined);
  return restate.object({
    name: SERVICE_NAME,
    handlers: {
      run: restate.handlers.object.exclusive({ retryPolicy: RUN_RETRIES }, (ctx: restate.ObjectContext, request: RunRequest) => runSession(settings, ctx, request)),
      status: restate.handlers.object.shared({ retryPolicy: READ_RETRIES }, async (ctx: restate.ObjectSharedContext): Promise<RunStatus> => {
        const status = (await ctx.get<RunStatus['status']>('status')) ?? 'none';
        const result = await ctx.get<DurableRunResult>('result');
        return status === 'done' && result ? { status, result } : { status: status === 'done' ? 'none' : status };
      }),
      transcript: restate.handlers.object.shared({ retryPolicy: READ_RETRIES }, async (ctx: restate.ObjectSharedContext) => readRecords(ctx)),
      messages: restate.handlers.object.shared({ retryPolicy: READ_RETRIES }, async (ctx: restate.ObjectSharedContext): Promise<MessageParam[]> => {
        return recordedMessages(await readRecords(ctx)).messages;
      }),
    },
    options: RUN_TIMEOUTS,
  });
}
