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
import type { Redactor } from '../core/redact.js';
import { redactingModel } from '../run/actors.js';
import { credentialRedactor } from '../tools/bash/judge/secrets.js';
import type { Tool } from '../core/tool.js';
import type { RunTracing } from '../otel/runSpans.js';
import { defaultRunConfig } from '../core/config.js';
import { recordedMessages } from '../transcript/resume.js';
import { runAgent, type RunAgentOptions, type RunResult } from '../run/runAgent.js';
import { durableSteps, durableTools, journalledModel, journalTimers } from './journal.js';
import { agentDefinitions } from '../tools/agent/definitions.js';
import type { Journal } from './steps.js';
import { openRecords, readRecords, type DurableRecorder, type RecordState } from './records.js';
import { askDurably } from './approvals.js';
import { durableGate, runPermissions, type WorkerPermissions } from './permissions.js';
import { checkRootRule } from '../permissions/root.js';
import { requestProblem, SERVICE_NAME, toDurableResult, type DurableRunResult, type RunRequest, type RunStatus } from './protocol.js';

/** What every run of a worker uses. */
export interface WorkerSettings {
  /** The model when a request names none (MODEL_ID). */
  model: string;
  modelCall: ModelCall;
  /** The tools of every run, or (as the CLI's worker gives them: run/defaultTools.ts) the tools of a session's run. */
  tools: Tool[] | ((sessionId: string) => Tool[]);
  /** Working directory of the tools. */
  cwd: string;
  /** Traces each run (run/runAgent.ts `tracing`); the parent of a run's span comes from its invocation (`runParent`). */
  tracing?: Omit<RunTracing, 'parent'>;
  /** What no record, result, message or journal entry may hold (default: the credentials of the environment, as runAgent's). */
  redactor?: Redactor;
  /** The floor of every run's permissions: deny rules and the most permissive mode (permissions.ts). Without a mode a
   *  run's calls are judged in its own, `default` when it names none: what is not read-only nor allowed waits for approval. */
  permissions?: WorkerPermissions;
}

/**
 * How long a run may show no progress before Restate takes it from its worker (a frozen or cut-off
 * worker): it asks the handler to suspend after `inactivityTimeout`, and aborts the attempt
 * `abortTimeout` later (and Restate drains the stream 5 s more); the run is then retried. A model call or a tool
 * that runs long journals a heartbeat every 3 s (steps.ts), so only a worker that stopped
 * answering goes quiet that long. Sent to Restate when the worker registers (service discovery).
 *
 * Short, because the retry goes to the same address: a proxy without health checks may hand it to the frozen worker
 * again, and each such attempt costs these timeouts once more (20 s, not the 45 s of 30 + 10: failover.test.ts).
 */
export const RUN_TIMEOUTS = { inactivityTimeout: 10_000, abortTimeout: 5_000 };

/**
 * Retries of a run whose attempt failed (its worker died, no worker answers): soon at first, then
 * every 10 s, for about a day; then Restate pauses the run (its UI or CLI resumes it).
 */
const RUN_RETRIES = { initialInterval: 250, exponentiationFactor: 2, maxInterval: 10_000, maxAttempts: 8640 };

/** A read through the ingress that no worker answers gives up (`agentloop result` reads the state through the admin API). */
const READ_RETRIES = { initialInterval: 200, maxAttempts: 3, onMaxAttempts: 'kill' as const };

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The parent of a run's `invoke_agent` span: the trace context of this attempt, which Restate sends when its own
 * tracing is on (its span of the attempt), else the `traceparent` the run was submitted with (`agentloop submit`
 * forwards TRACEPARENT), else none: a trace of its own. Loads OpenTelemetry only for a worker that traces.
 */
export async function runParent(tracing: Omit<RunTracing, 'parent'>, request: restate.Request): Promise<RunTracing> {
  const { parentOf } = await import('../otel/traceContext.js');
  const carrier = (headers: ReadonlyMap<string, string | string[] | undefined>) => ({
    traceparent: headerValue(headers.get('traceparent')),
    tracestate: headerValue(headers.get('tracestate')),
  });
  const { parent } = await parentOf([carrier(request.attemptHeaders), carrier(request.headers)]);
  return { ...tracing, parent };
}

/** The object's state, every value set redacted. */
function redactedState(ctx: restate.ObjectContext, redactor: Redactor): RecordState {
  return { get: (name) => ctx.get(name), set: (name, value) => ctx.set(name, redactor.value(value)) };
}

function journalOf(ctx: restate.ObjectContext): Journal {
  return { id: ctx.request().id, run: (name, action) => ctx.run(name, action), sleep: (ms) => ctx.sleep(ms) };
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

/** The same runAgent as the CLI's, its model call, tools and timers journalled (journal.ts), going on from the session as it stands. */
async function runOptions(ctx: restate.ObjectContext, settings: WorkerSettings, request: RunRequest, run: Started, clock: { now: number }): Promise<RunAgentOptions> {
  const { redactor, turnCount } = run;
  const journal = journalOf(ctx);
  const steps = durableSteps(journal, clock);
  const permissions = runPermissions(request, settings.permissions);
  const agents = request.agents ? agentDefinitions(request.agents, '"agents"') : undefined;
  const ask = { redactor, ...(permissions?.timeoutMs !== undefined ? { timeoutMs: permissions.timeoutMs } : {}) };
  return {
    ...(permissions ? { permissions: durableGate(journal, permissions, settings.cwd, (question) => askDurably(ctx, question, ask)) } : {}),
    model: run.model,
    // The journal gets a reply, a failed call's message and a tool's result redacted: a gateway's echo of the key never reaches Restate.
    modelCall: journalledModel(steps, redactingModel(settings.modelCall, redactor), redactor),
    // The Agent tool of the request's agents stays out of the wrapper: its child's own calls are journalled steps (journal.ts).
    tools: durableTools(steps, typeof settings.tools === 'function' ? settings.tools(ctx.key) : settings.tools, agents, redactor),
    ...(agents ? { agents } : {}),
    clock: journalTimers(journal),
    cwd: settings.cwd,
    sessionId: ctx.key,
    messages: run.messages,
    turnCount,
    seed: Math.floor(ctx.rand.random() * 2 ** 32),
    ...(settings.tracing ? { tracing: await runParent(settings.tracing, ctx.request()) } : {}),
    redactor,
    onEvent: run.records.onEvent,
    // --max-turns counts the model calls of this run: a session's later runs start further on.
    maxTurns: (request.maxTurns ?? defaultRunConfig.maxTurns) + turnCount - 1,
    ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    ...(request.maxRetries !== undefined ? { maxRetries: request.maxRetries } : {}),
    ...(request.appendSystemPrompt !== undefined ? { appendSystemPrompt: redactor.text(request.appendSystemPrompt) } : {}),
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
