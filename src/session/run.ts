import { randomUUID } from 'node:crypto';
import { createActor, toPromise, type InspectionEvent, type Observer } from 'xstate';
import { appendUserText, textOf } from '../history/messages.js';
import type { AgentContext } from '../machine/context.js';
import type { RunConfig } from '../core/config.js';
import type { TransitionReason } from '../core/run.js';
import { withCacheBreakpoints } from '../anthropic/cache.js';
import type { AnthropicModelOptions } from '../anthropic/call.js';
import type { MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import type { ModelCall, ModelRequest } from '../core/model.js';
import type { Usage } from '../core/usage.js';
import { createBashTool } from '../tools/bash.js';
import { toolDefinition, type Tool } from '../core/tool.js';
import { createAgentMachine } from './actors.js';

/** What a run reports while it goes, in order. */
export type RunEvent =
  /** The machine settled in a new state (one macrostep). */
  | { type: 'transition'; state: string; event: string; turnCount: number; transitionReason: TransitionReason | null }
  /** A piece of the model's text, as it streams. */
  | { type: 'text'; delta: string }
  /**
   * A message was written to the history at `index`. The same index again means the message was
   * replaced (user content joined into the last user message).
   */
  | { type: 'message'; index: number; message: MessageParam }
  | { type: 'tool_start'; block: ToolUseBlock }
  | { type: 'tool_result'; block: ToolUseBlock; result: ToolResultBlockParam }
  | { type: 'retry'; attempt: number; delayMs: number; error: string }
  /** A request is about to be sent to the model: exactly the body the model gets. */
  | { type: 'request'; turnCount: number; body: ModelRequest }
  /** A model call finished: its token counts, and the run's total so far. */
  | { type: 'usage'; turnCount: number; usage: Usage; total: Usage };

export interface RunAgentOptions extends Partial<Omit<RunConfig, 'tools' | 'model'>> {
  /** Model id (e.g. from MODEL_ID). */
  model: string;
  /** The model call; default: the Anthropic API through the SDK, with `client` settings. */
  modelCall?: ModelCall;
  /** Key, token and base URL for the default model call. */
  client?: AnthropicModelOptions;
  /** Tools the model may use; default: the bash tool. */
  tools?: Tool[];
  /** For the default bash tool: run commands under bubblewrap (see createBashTool). */
  sandbox?: boolean;
  /** For the default bash tool: credential variables the commands may see. */
  allowEnv?: string[];
  /** For the default bash tool: where the full output of long commands is kept (a session's folder). */
  outputDir?: string;
  /** Working directory of the tools; default: `process.cwd()`. */
  cwd?: string;
  /** The conversation so far; the prompt is added to it. */
  messages?: MessageParam[];
  /** Turn count to go on from when resuming a run (default 1). */
  turnCount?: number;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  sessionId?: string;
  /** Receives the machine's inspection events too, e.g. the Stately inspector's `inspect`. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

export type FinalState = 'done' | 'failed' | 'aborted';

export interface RunResult {
  sessionId: string;
  state: FinalState;
  context: AgentContext;
  /** The text of the last assistant message. */
  text: string;
  durationMs: number;
}

export function defaultSystemPrompt(cwd: string): string {
  return `You are a coding agent working in ${cwd}. Use the tools to look and act; answer briefly when the task is done.`;
}

/** The leaf state of a snapshot value, e.g. `callingModel` for `{ turn: 'callingModel' }`. */
export function leafState(value: unknown): string {
  let current = value;
  while (current && typeof current === 'object') current = Object.values(current)[0];
  return String(current);
}

/**
 * Runs the agent on `prompt` until the machine reaches a final state, and returns the final
 * context. Aborting `signal` ends the run with a valid history (`exitReason: 'aborted'`).
 */
export async function runAgent(prompt: string | null, options: RunAgentOptions): Promise<RunResult> {
  const started = Date.now();
  const cwd = options.cwd ?? process.cwd();
  const tools = options.tools ?? [
    createBashTool({
      cwd,
      ...(options.sandbox ? { sandbox: true } : {}),
      ...(options.allowEnv ? { allowEnv: options.allowEnv } : {}),
      ...(options.outputDir ? { outputDir: options.outputDir } : {}),
    }),
  ];
  const emit = options.onEvent ?? (() => {});
  // The SDK is loaded only for a run that uses it (not for a scripted model, nor the demo).
  const modelCall = options.modelCall ?? (await import('../anthropic/call.js')).createAnthropicModel(options.client ?? {});
  const { model, modelCall: _m, client: _c, tools: _t, cwd: _w, messages = [], signal, onEvent: _e, sessionId: _s, turnCount, inspect, sandbox: _x, allowEnv: _a, outputDir: _o, ...limits } =
    options;
  const inspector = typeof inspect === 'function' ? inspect : inspect?.next?.bind(inspect);
  const startMessages = prompt ? appendUserText(messages, prompt) : messages;
  if (startMessages[startMessages.length - 1]?.role !== 'user') {
    throw new Error('runAgent needs a prompt, or a history that ends with a user message');
  }

  // The body as it goes out: the Anthropic service adds cache breakpoints; a model call of the
  // caller's own gets the request as it is. Copied only when someone listens.
  const sentBody = options.modelCall ? (request: ModelRequest) => ({ ...request, messages: request.messages.slice() }) : withCacheBreakpoints;
  const recordingModel: ModelCall = (input, callSignal) => {
    emit({ type: 'request', turnCount: input.turnCount, body: sentBody(input.request) });
    return modelCall(input, callSignal);
  };
  const machine = createAgentMachine({
    model: options.onEvent ? recordingModel : modelCall,
    tools,
    cwd,
    ...(options.onEvent ? { onText: (delta: string) => emit({ type: 'text', delta }) } : {}),
  });
  const actor = createActor(machine, {
    input: {
      messages: startMessages,
      ...(turnCount !== undefined ? { turnCount } : {}),
      config: { system: defaultSystemPrompt(cwd), ...limits, model, tools: tools.map(toolDefinition) },
    },
    // Observed only when someone listens: inspection events cost the machine work on every step.
    ...(options.onEvent || inspector
      ? {
          inspect: (event: InspectionEvent) => {
            if (options.onEvent) observe(event);
            inspector?.(event);
          },
        }
      : {}),
  });

  let lastState = '';
  // The new prompt (merged into the last user message or not) is reported as a message too.
  let written = prompt ? startMessages.length - 1 : startMessages.length;
  let lastWritten: MessageParam | undefined = startMessages[written - 1];
  let usageReported = 0;
  // A tool start is reported with the snapshot that records it, so never before the message that
  // asked for it (the inspection event of TOOL_STARTED comes before the snapshot of the step it
  // is sent in).
  const startedBlocks = new Map<string, ToolUseBlock>();
  const startsReported = new Set<string>();
  function observe(event: InspectionEvent): void {
    if (event.actorRef.sessionId !== event.rootId) return; // only the agent machine itself
    if (event.type === '@xstate.event') {
      const e = event.event;
      if (e.type === 'TOOL_STARTED') startedBlocks.set(e.block.id, e.block);
      if (e.type === 'TOOL_RESULT') emit({ type: 'tool_result', block: e.block, result: e.result });
      if (e.type === 'TOOLS_DONE' && e.last) emit({ type: 'tool_result', block: e.last.block, result: e.last.result });
      return;
    }
    if (event.type !== '@xstate.snapshot') return;
    const snapshot = event.snapshot as { value?: unknown; context?: AgentContext };
    const context = snapshot.context;
    if (!context) return;
    // Messages are never changed in place: a new object at the last index means it was replaced.
    if (written > 0 && context.messages[written - 1] !== lastWritten) written -= 1;
    for (; written < context.messages.length; written++) {
      const message = context.messages[written];
      if (message) emit({ type: 'message', index: written, message });
      lastWritten = message;
    }
    for (const id of context.startedToolIds) {
      const block = startedBlocks.get(id);
      if (!block || startsReported.has(id)) continue;
      startsReported.add(id);
      emit({ type: 'tool_start', block });
    }
    for (; usageReported < context.turnUsage.length; usageReported++) {
      const usage = context.turnUsage[usageReported];
      if (usage) emit({ type: 'usage', turnCount: context.turnCount, usage, total: context.usage });
    }
    const state = leafState(snapshot.value);
    if (state === lastState) return;
    lastState = state;
    if (state === 'waitingToRetry') {
      emit({ type: 'retry', attempt: context.retryAttempt, delayMs: context.retryDelayMs, error: context.error?.message ?? '' });
    }
    emit({
      type: 'transition',
      state,
      event: event.event.type,
      turnCount: context.turnCount,
      transitionReason: context.transitionReason,
    });
  }

  const abort = () => actor.send({ type: 'ABORT' });
  signal?.addEventListener('abort', abort, { once: true });
  try {
    actor.start();
    if (signal?.aborted) abort();
    const context = await toPromise(actor);
    const state = leafState(actor.getSnapshot().value) as FinalState;
    const lastAssistant = context.messages.slice(startMessages.length).reverse().find((m) => m.role === 'assistant');
    return {
      sessionId: options.sessionId ?? randomUUID(),
      state,
      context,
      text: lastAssistant ? textOf(lastAssistant.content) : '',
      durationMs: Date.now() - started,
    };
  } finally {
    signal?.removeEventListener('abort', abort);
    actor.stop();
  }
}
