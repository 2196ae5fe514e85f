import type { ContentBlock, StopReason } from '../core/messages.js';
import type { ModelCall, ModelReply, ModelRequest } from '../core/model.js';
import type { Usage } from '../core/usage.js';
import { ModelError } from '../core/model.js';
import { zeroUsage } from '../core/usage.js';
import { asSent } from '../history/messages.js';
import { isCompactRequest, latestRequest } from '../history/compact.js';
import { jsonTokens } from '../history/tokens.js';

/** One scripted reply: what the model "says", as the API would put it. */
export interface ScriptedReply {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage?: Partial<Usage>;
  /** Left out of `content` as if max_tokens cut it mid-input; reported as dropped. */
  cutBlock?: ContentBlock;
}

/** A scripted failure of a model call. */
export interface ScriptedError {
  error: ModelError;
}

export type ScriptStep = ScriptedReply | ScriptedError | ((request: ModelRequest) => ScriptedReply | ScriptedError);

export interface ScriptedModel {
  call: ModelCall;
  /**
   * Every request the loop sent, in order, each as it was when sent. A request keeps its body and
   * a view of the run's append-only history (its length and last message), not a copy of it, so a
   * 10,000-turn run costs memory linear in its length; `messages` is rebuilt when read.
   */
  requests: ModelRequest[];
  /** Steps not used yet. */
  readonly remaining: number;
}

export interface ScriptedModelOptions {
  /** Pause before each reply, e.g. to abort a run mid-call in a test. */
  delayMs?: number;
  /**
   * Compaction's summary requests (history/compact.ts) are answered without taking a step: with this text, or what
   * this function gives (a reply or an error, to test a failed compaction); default a short summary naming the user's
   * latest request (./summary.ts). `false`: they take the next step like any call.
   */
  summary?: string | ((request: ModelRequest) => string | ScriptedReply | ScriptedError) | false;
  /**
   * A context window, in tokens: a request estimated past it (history/tokens.ts) fails as the API refuses it (400
   * "prompt is too long: N tokens > W maximum"), and each reply reports the request's estimate as its input tokens:
   * to test an agent past the window.
   */
  contextWindow?: number;
}

/**
 * A model that plays a list of replies, in order: for tests and the offline demo. Each call takes
 * the next step; a function step sees the request (to answer from a tool's real output). Tool_use
 * blocks are announced through `onToolUse` as a stream would. Running out of steps fails the call.
 */
export function scriptedModel(steps: ScriptStep[], options: ScriptedModelOptions = {}): ScriptedModel {
  const queue = [...steps];
  return playedModel(() => queue.shift(), () => queue.length, options);
}

/**
 * A model that answers every call with `respond(request, call)` (`call` counts from 1): a model
 * that decides from what it was sent alone, for as many calls as the loop makes.
 */
export function respondingModel(
  respond: (request: ModelRequest, call: number) => ScriptedReply | ScriptedError,
  options: ScriptedModelOptions = {},
): ScriptedModel {
  let calls = 0;
  return playedModel(() => (request: ModelRequest) => respond(request, ++calls), () => Infinity, options);
}

function playedModel(take: () => ScriptStep | undefined, left: () => number, options: ScriptedModelOptions): ScriptedModel {
  const requests: ModelRequest[] = [];
  const call: ModelCall = async ({ request, onToolUse, onText, onRequest, onResponse }, signal) => {
    onRequest?.(request);
    onResponse?.();
    requests.push(asSent(request));
    if (options.delayMs) await abortableDelay(options.delayMs, signal);
    const tokens = options.contextWindow === undefined ? 0 : jsonTokens(request.system) + jsonTokens(request.tools) + jsonTokens(request.messages);
    if (options.contextWindow !== undefined && tokens > options.contextWindow) {
      throw new ModelError('prompt_too_long', `prompt is too long: ${tokens} tokens > ${options.contextWindow} maximum`, { status: 400, apiType: 'invalid_request_error' });
    }
    const summary = options.summary !== false && isCompactRequest(request) ? summaryReply(request, options.summary) : undefined;
    const next = summary ?? take();
    if (next === undefined) throw new ModelError('unknown', 'the scripted model has no reply left');
    const step = typeof next === 'function' ? next(request) : next;
    if ('error' in step) throw step.error;
    for (const block of step.content) {
      if (block.type === 'text') onText?.(block.text);
      if (block.type === 'tool_use') onToolUse(block);
    }
    const reply: ModelReply = {
      content: step.content,
      stopReason: step.stop_reason,
      usage: { ...zeroUsage(), ...(tokens > 0 ? { input_tokens: tokens, output_tokens: jsonTokens(step.content) } : {}), ...step.usage },
      droppedIncompleteBlock: step.cutBlock !== undefined,
    };
    return reply;
  };
  return {
    call,
    requests,
    get remaining() {
      return left();
    },
  };
}

/**
 * The answer to compaction's request for a summary (history/compact.ts): the text given, what the function gives, or
 * by default a short summary naming the user's latest request.
 */
function summaryReply(request: ModelRequest, option: ScriptedModelOptions['summary']): ScriptedReply | ScriptedError {
  const given = typeof option === 'function' ? option(request) : option === false ? undefined : option;
  if (given !== undefined && typeof given !== 'string') return given;
  const latest = latestRequest(request.messages) ?? 'none';
  const text = given ?? `<summary>A conversation of ${request.messages.length} messages. The user's latest request: ${latest.split('\n')[0]}</summary>`;
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** Builders that keep scripts short. */
export const reply = {
  text(text: string, usage?: Partial<Usage>): ScriptedReply {
    return { content: [{ type: 'text', text }], stop_reason: 'end_turn', ...(usage ? { usage } : {}) };
  },
  toolUse(calls: Array<{ id: string; name: string; input: unknown }>, text?: string): ScriptedReply {
    return {
      content: [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...calls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.input })),
      ],
      stop_reason: 'tool_use',
    };
  },
};
