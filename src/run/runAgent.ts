/**
 * `runAgent`: one run of the loop, from a prompt to a final state, with the world plugged in
 * (the model call, the tools, the hooks) and the machine's events handed on as they happen.
 */
import { randomUUID } from 'node:crypto';
import { createActor, toPromise, type InspectionEvent } from 'xstate';
import type { RunEvent } from '../core/events.js';
import type { RunHooks } from '../core/hooks.js';
import type { MessageParam } from '../core/messages.js';
import type { ModelCall } from '../core/model.js';
import type { Redactor } from '../core/redact.js';
import { toolDefinition, type DenyRule, type Tool } from '../core/tool.js';
import { toRunError } from '../core/outcome.js';
import { appendUser, appendUserText, textOf } from '../history/messages.js';
import { historyProblems, InvalidHistoryError } from '../history/validate.js';
import { credentialRedactor } from '../tools/bash/judge/secrets.js';
import type { RunSpans } from '../otel/runSpans.js';
import { createAgentMachine } from './actors.js';
import { mcpRedactor, withMcpServers } from './mcpRun.js';
import type { Question } from '../transcript/records.js';
import { checkSessionId } from '../transcript/paths.js';
import { writeAhead, type WriteAhead } from './writeAhead.js';
import { denyRulesOf, gatedHooks, gateOf } from './permissionHooks.js';
import { configOf, pick } from './pick.js';
import { describedEvents } from './toolStarts.js';
import { listenerOf, openRecorder, runEndOf, startSpans, systemPrompt } from './runParts.js';
import { subagentHost, withAgentTool } from './subagents.js';
import { resumeCutAgents } from './childResume.js';
import type { FinalState, RunAgentOptions, RunResult } from './runOptions.js';
import type { SubagentHost } from '../core/agents.js';

export type { FinalState, RunAgentOptions, RunResult } from './runOptions.js';

/** The leaf state of a snapshot value, e.g. `callingModel` for `{ turn: 'callingModel' }`. */
export function leafState(value: unknown): string {
  let current = value;
  while (current && typeof current === 'object') current = Object.values(current)[0];
  return String(current);
}

/**
 * Runs the agent on `prompt` (or on the history alone) until the machine reaches a final state.
 * The prompt is text, or the content blocks of a user message (text, images, documents).
 */
export async function runAgent(question: Question | null, options: RunAgentOptions): Promise<RunResult> {
  if (options.sessionId !== undefined) checkSessionId(options.sessionId, 'runAgent'); // with a session to write or without
  if (options.mcpServers !== undefined && Object.keys(options.mcpServers).length > 0) return runWithMcp(question, options);
  const started = Date.now();
  const cwd = options.cwd ?? process.cwd();
  const prompt = question !== null && question.length > 0 ? question : null; // '' asks nothing
  let startMessages = withPrompt(options.messages ?? [], prompt);
  if (startMessages[startMessages.length - 1]?.role !== 'user') {
    throw new Error('runAgent needs a prompt, or a history that ends with a user message');
  }
  const problems = historyProblems(startMessages); // what the API would refuse, refused before anything is recorded or sent
  if (problems.length > 0) throw new InvalidHistoryError(problems);
  const tools = withAgentTool([...(options.tools ?? []), ...(options.addTools ?? [])], options.agents);
  const gate = options.permissions ? gateOf(options.permissions, cwd, tools) : undefined; // bad settings throw before anything starts
  const redactor = options.redactor ?? credentialRedactor(process.env, options.client);
  // The prompt is on disk before anything that takes time (a kill from here on loses nothing of it).
  const recorder = openRecorder(options, cwd, prompt, redactor);
  if (prompt) recorder?.prompt(prompt);
  // The SDK is loaded only for a run that uses it (not for a scripted model, nor the demo).
  const modelCall = options.modelCall ?? (await import('../anthropic/call.js')).createAnthropicModel(options.client ?? {});
  const [startedAs, sessionId] = [recorder?.id, options.sessionId ?? recorder?.id ?? randomUUID()];
  const spans = options.tracing ? await startSpans(options, sessionId, redactor, tools) : undefined;
  const ahead = writeAhead(recorder);
  const emit = listenerOf(options.onEvent, recorder, spans, ahead, describedEvents(tools));
  const hooks = gate ? gatedHooks(options.hooks, gate, emit) : options.hooks;
  const subagents = subagentHost({ options, cwd, tools, modelCall, gate, redactor, spans, emit, runAgent }); // the Agent tool's children (./subagents.ts)
  if (options.cutAgents?.length) startMessages = withPrompt(await resumeCutAgents(options.cutAgents, options.messages ?? [], { host: subagents, emit, signal: options.signal, tools, cwd, hooks }), prompt); // a resumed session's cut-off children first (./childResume.ts)
  const ended = tools.some((tool) => tool.prepare) ? new AbortController() : undefined; // what tools start ahead (Tool.prepare) stops at the run's end
  const actor = actorOf(options, { cwd, tools, modelCall, spans, emit, ahead: emit ? ahead : undefined, redactor, startMessages, hooks, denyRules: gate && denyRulesOf(gate.current), subagents, runSignal: ended?.signal });
  if (emit && prompt) emitPrompt(emit, startMessages);
  const abort = () => actor.send({ type: 'ABORT' });
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    actor.start();
    if (options.signal?.aborted) abort();
    const context = await toPromise(actor);
    const lastAssistant = context.messages.slice(startMessages.length).reverse().find((m) => m.role === 'assistant');
    const result: RunResult = {
      // A transcript lost during the run goes on in a fork of it: the recorder knows its id.
      sessionId: recorder && sessionId === startedAs ? recorder.id : sessionId,
      state: leafState(actor.getSnapshot().value) as FinalState,
      context,
      text: lastAssistant ? textOf(lastAssistant.content) : '',
      durationMs: Date.now() - started,
    };
    await stepAtTheEnd(options, result);
    recorder?.finish(result);
    spans?.end({ ...runEndOf(context), state: result.state });
    return result;
  } catch (error) {
    spans?.end({ ...runEndOf(actor.getSnapshot().context), state: 'failed', error: toRunError(error) });
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', abort);
    actor.stop();
    ended?.abort();
    if (recorder && recorder !== options.session) recorder.close();
  }
}

/** The history with the prompt added (`null`: as it is). */
function withPrompt(history: MessageParam[], prompt: Question | null): MessageParam[] {
  return prompt === null ? [...history] : typeof prompt === 'string' ? appendUserText(history, prompt) : appendUser(history, prompt);
}

/** The prompt's message, the last of the run's start (a listener hears of it as the run begins). */
function emitPrompt(emit: (event: RunEvent) => void, startMessages: MessageParam[]): void {
  const index = startMessages.length - 1;
  emit({ type: 'message', index, message: startMessages[index] as MessageParam, origin: 'prompt' });
}

/** Stepping: the run is over; its answer goes to the caller once the learner says so (the chapter's ⑧). An abort lets it go. */
async function stepAtTheEnd({ gate, signal }: RunAgentOptions, { state, context, text }: RunResult): Promise<void> {
  if (gate) await gate.wait({ type: 'end', state, exitReason: context.exitReason, text }, signal ?? new AbortController().signal).catch(() => undefined);
}

/** What is plugged into the machine for one run. */
interface Plugged {
  cwd: string;
  tools: Tool[];
  modelCall: ModelCall;
  spans: RunSpans | undefined;
  emit: ((event: RunEvent) => void) | undefined;
  /** The write-ahead of a run that anyone listens to (a recorder, spans, `onEvent`): tools wait for their record. */
  ahead: WriteAhead | undefined;
  redactor: Redactor;
  startMessages: MessageParam[];
  /** The run's hooks, the permission gate's judgement in them. */
  hooks: RunHooks | undefined;
  /** The gate's deny rules with a specifier, for the tools. */
  denyRules: DenyRule[] | undefined;
  subagents: SubagentHost | undefined;
  runSignal: AbortSignal | undefined;
}

/** The machine with the model call, the tools and the hooks plugged in, as an actor (not started) that emits to `emit`. */
function actorOf(options: RunAgentOptions, { cwd, tools, modelCall, spans, emit, ahead, redactor, startMessages, hooks, denyRules, subagents, runSignal }: Plugged) {
  const machine = createAgentMachine({
    model: spans ? spans.wrapModel(modelCall) : modelCall,
    tools,
    cwd,
    ...(emit ? { onCallEvent: emit } : {}),
    ...(spans ? { toolEnv: (block: { id: string }) => spans.toolEnv(block.id) } : {}),
    ...(ahead ? { writeAhead: ahead.started } : {}),
    ...pick(options, 'includeStreamEvents', 'machine', 'gate'),
    ...(hooks ? { hooks } : {}),
    ...(denyRules?.length ? { denyRules } : {}),
    ...(subagents ? { subagents } : {}),
    redactor,
    ...(runSignal ? { runSignal } : {}),
  });
  const inspect = options.inspect;
  const actor = createActor(machine, {
    input: {
      messages: startMessages,
      ...pick(options, 'turnCount'),
      config: { ...configOf(options), model: options.model, system: systemPrompt(options, cwd), tools: tools.map(toolDefinition) },
      seed: options.seed ?? Math.floor(Math.random() * 2 ** 32),
    },
    ...(inspect ? { inspect: typeof inspect === 'function' ? inspect : (event: InspectionEvent) => inspect.next?.(event) } : {}),
    ...pick(options, 'clock'),
  });
  if (emit) actor.on('*', emit);
  return actor;
}

/** The run with its MCP servers' tools after the others, the servers started for it and stopped after it. */
function runWithMcp(question: Question | null, { mcpServers = {}, ...options }: RunAgentOptions): Promise<RunResult> {
  const settings = { mcpServers, cwd: options.cwd ?? process.cwd(), ...pick(options, 'sandbox', 'signal') };
  const redactor = mcpRedactor(mcpServers, options.redactor, options.client);
  return withMcpServers(settings, (tools) => runAgent(question, { ...options, redactor, addTools: [...(options.addTools ?? []), ...tools] }));
}
