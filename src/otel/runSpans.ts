/**
 * A run's trace, built from the machine's events as they come (core/events.ts): one `invoke_agent agentloop` span
 * (INTERNAL) around the run, a `chat {model}` span (CLIENT) for each model call (a retried call is a span of its own
 * that ends in its error, with the wait before the next attempt), and an `execute_tool {name}` span (INTERNAL) for each
 * tool call, both children of the run's span. Attributes follow the GenAI semantic conventions (./conventions.ts); the
 * loop's own facts are in the `agentloop.*` namespace. Only `@opentelemetry/api` is used: the caller brings the tracer.
 */
import { context as contextApi, trace, SpanKind, SpanStatusCode, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { MessageParam, ToolUseBlock } from '../core/messages.js';
import type { RunEvent } from '../core/events.js';
import type { ModelCall } from '../core/model.js';
import type { ExitReason, RunError, TransitionReason } from '../core/outcome.js';
import type { Redactor } from '../core/redact.js';
import type { Usage } from '../core/usage.js';
import { AGENT_NAME, conventionsFromEnv, providerKey, PROVIDER, type GenAiConventions } from './conventions.js';
import { inputMessages, outputMessages, systemInstructions, toolContent } from './content.js';
import { withIds, type StableIds } from './ids.js';

/** What a run is given to trace itself (`runAgent({ tracing })`). */
export interface RunTracing {
  /** An OpenTelemetry tracer (`trace.getTracer('my-app')`, or a provider's). */
  tracer: Tracer;
  /** The parent of the run's `invoke_agent` span; default: the active context. */
  parent?: Context;
  /** The conventions' shape and whether content is recorded; default: from the environment (./conventions.ts). */
  conventions?: GenAiConventions;
  /** The agent the run's `invoke_agent` span names (`gen_ai.agent.name`); default `agentloop`. A subagent's run: its name. */
  agentName?: string;
  /** Ids some spans take instead of random ones (./ids.ts): a durable run's, the same on every attempt. */
  ids?: StableIds;
}

/** What the run's span is told when it starts. */
export interface RunFacts {
  conversationId: string;
  model: string;
  /** The API's base URL, for `server.address` and `server.port`. */
  baseURL?: string;
  /** Removes secrets from every string recorded as content (the run's redactor). */
  redactor: Redactor;
  /** A tool's own attributes for its `execute_tool` span (core/tool.ts `spanAttributes`), by the name the model calls. */
  toolAttributes?: (name: string) => Attributes | undefined;
}

/** How the run ended, for the run's span. */
export interface RunEnd {
  state: string;
  exitReason: ExitReason | null;
  turnCount: number;
  usage: Usage;
  costUsd: number;
  error: RunError | null;
}

const usageAttributes = (usage: Usage): Attributes => ({
  'gen_ai.usage.input_tokens': usage.input_tokens,
  'gen_ai.usage.output_tokens': usage.output_tokens,
  'gen_ai.usage.cache_read.input_tokens': usage.cache_read_input_tokens,
  'gen_ai.usage.cache_creation.input_tokens': usage.cache_creation_input_tokens,
});

/** `error.type`: the API's error type, else its HTTP status, else the kind of failure. */
export const errorTypeOf = (error: RunError): string => error.apiType ?? (error.status !== undefined ? String(error.status) : error.kind);

function fail(span: Span, type: string, message: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

function serverOf(baseURL: string | undefined): Attributes {
  if (!baseURL) return {};
  try {
    const url = new URL(baseURL);
    return { 'server.address': url.hostname, 'server.port': url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443 };
  } catch {
    return {};
  }
}

/** A W3C `traceparent` for a span, as a process's `TRACEPARENT` carries it. */
function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

interface OpenCall {
  span: Span;
  started: number;
  firstChunk: boolean;
  reply?: MessageParam;
}

/** The spans of one run: hand it every event, wrap the model call with it, end it once. */
export class RunSpans {
  private readonly conventions: GenAiConventions;
  private readonly run: Span;
  private readonly runContext: Context;
  private call: OpenCall | undefined;
  private readonly tools = new Map<string, Span>();
  private transitionReason: TransitionReason | null = null;
  private retryAttempt = 0;

  constructor(
    private readonly tracer: Tracer,
    parent: Context,
    conventions: GenAiConventions,
    private readonly facts: RunFacts,
    agentName = AGENT_NAME,
    private readonly ids: StableIds = {},
  ) {
    this.conventions = conventions;
    const attributes = { ...this.common('invoke_agent'), 'gen_ai.agent.name': agentName, 'gen_ai.request.model': facts.model };
    this.run = withIds({ traceId: ids.traceId }, () => tracer.startSpan(`invoke_agent ${agentName}`, { kind: SpanKind.INTERNAL, attributes }, parent));
    this.runContext = trace.setSpan(parent, this.run);
  }

  private common(operation: string): Attributes {
    return { 'gen_ai.operation.name': operation, [providerKey(this.conventions)]: PROVIDER, 'gen_ai.conversation.id': this.facts.conversationId };
  }

  onEvent(event: RunEvent): void {
    switch (event.type) {
      case 'transition':
        this.transitionReason = event.transitionReason;
        this.run.addEvent('agentloop.transition', {
          'agentloop.state': event.state,
          'agentloop.event': event.event,
          'agentloop.turn_count': event.turnCount,
          ...(event.transitionReason ? { 'agentloop.transition_reason': event.transitionReason } : {}),
        });
        return;
      case 'decision':
        this.run.addEvent('agentloop.decision', { 'agentloop.state': event.state, 'agentloop.guard': event.guard, 'agentloop.target': event.target });
        return;
      case 'request':
        return this.startCall(event.turnCount, event.body.model, event.body.max_tokens, () => event.body.messages.slice(0, event.messageCount), event.body.system);
      case 'message':
        if (event.origin === 'model' && this.call) this.call.reply = event.message;
        return;
      case 'reply':
        return this.endCall(event);
      case 'retry':
        return this.retry(event);
      case 'tool_start':
        return this.startTool(event.block);
      case 'tool_result':
        return this.endTool(event.block, event.result.is_error === true, event.result.content);
      default:
        return;
    }
  }

  private startCall(turnCount: number, model: string, maxTokens: number, messages: () => MessageParam[], system: unknown): void {
    const attributes: Attributes = {
      ...this.common('chat'),
      'gen_ai.request.model': model,
      'gen_ai.request.max_tokens': maxTokens,
      ...serverOf(this.facts.baseURL),
      'agentloop.turn_count': turnCount,
      ...(this.transitionReason ? { 'agentloop.transition_reason': this.transitionReason } : {}),
      ...(this.retryAttempt ? { 'agentloop.retry.attempt': this.retryAttempt } : {}),
    };
    const span = this.tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes }, this.runContext);
    this.call = { span, started: performance.now(), firstChunk: false };
    if (this.conventions.captureContent) this.recordInput(span, messages(), system);
  }

  private recordInput(span: Span, messages: MessageParam[], system: unknown): void {
    const input = inputMessages(messages, this.facts.redactor);
    const instructions = systemInstructions(system, this.facts.redactor);
    if (!this.conventions.latest) {
      span.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': input });
      return;
    }
    span.setAttribute('gen_ai.input.messages', input);
    if (instructions) span.setAttribute('gen_ai.system_instructions', instructions);
  }

  /** The first chunk of the current call's response (the first stream event, or the response's start). */
  private firstChunk(): void {
    const call = this.call;
    if (!call || call.firstChunk) return;
    call.firstChunk = true;
    call.span.setAttribute('gen_ai.response.time_to_first_chunk', (performance.now() - call.started) / 1000);
  }

  private endCall(event: Extract<RunEvent, { type: 'reply' }>): void {
    const call = this.call;
    if (!call) return;
    this.call = undefined;
    this.retryAttempt = 0;
    const { span } = call;
    span.setAttributes({
      ...(event.id ? { 'gen_ai.response.id': event.id } : {}),
      'gen_ai.response.model': event.model,
      'gen_ai.response.finish_reasons': [event.stopReason ?? 'unknown'],
      ...usageAttributes(event.usage),
      'agentloop.needs_follow_up': event.needsFollowUp,
    });
    if (this.conventions.captureContent && call.reply) {
      const output = outputMessages(call.reply, event.stopReason, this.facts.redactor);
      if (this.conventions.latest) span.setAttribute('gen_ai.output.messages', output);
      else span.addEvent('gen_ai.content.completion', { 'gen_ai.completion': output });
    }
    span.end();
  }

  private retry(event: Extract<RunEvent, { type: 'retry' }>): void {
    const span = this.call?.span ?? this.tracer.startSpan(`chat ${event.model}`, { kind: SpanKind.CLIENT, attributes: this.common('chat') }, this.runContext);
    this.call = undefined;
    this.retryAttempt = event.attempt;
    span.setAttributes({ 'agentloop.retry.delay_ms': event.delayMs, 'agentloop.retry.next_model': event.model });
    fail(span, errorTypeOf(event.error), this.facts.redactor.text(event.error.message));
    span.end();
  }

  private startTool(block: ToolUseBlock): void {
    // The name is the model's output, as its id: a secret written there is cut as from content.
    const name = this.facts.redactor.text(block.name);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': this.facts.redactor.text(block.id),
      'gen_ai.tool.type': 'function',
      ...this.facts.toolAttributes?.(block.name),
      ...(this.conventions.captureContent && this.conventions.latest ? { 'gen_ai.tool.call.arguments': toolContent(block.input, this.facts.redactor) } : {}),
    };
    this.tools.set(block.id, withIds({ spanId: this.ids.toolSpanId?.(block) }, () => this.tracer.startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes }, this.runContext)));
  }

  private endTool(block: ToolUseBlock, isError: boolean, content: unknown): void {
    const span = this.tools.get(block.id);
    if (!span) return;
    this.tools.delete(block.id);
    if (this.conventions.captureContent && this.conventions.latest) span.setAttribute('gen_ai.tool.call.result', toolContent(content, this.facts.redactor));
    if (isError) fail(span, 'tool_error', 'the tool answered with an error');
    span.end();
  }

  /** `TRACEPARENT` (and `TRACESTATE`) for what a tool call runs: the call's own span. */
  toolEnv(toolUseId: string): Record<string, string> | undefined {
    const span = this.tools.get(toolUseId);
    if (!span) return undefined;
    const state = span.spanContext().traceState?.serialize();
    return { TRACEPARENT: traceparentOf(span), ...(state ? { TRACESTATE: state } : {}) };
  }

  /** The context of a tool call's own span: a subagent's run started by the call is its child (run/subagents.ts). */
  toolContext(toolUseId: string): Context | undefined {
    return this.tools.has(toolUseId) ? trace.setSpan(this.runContext, this.tools.get(toolUseId) as Span) : undefined;
  }

  /** The model call, reporting the first chunk of each response to the call's span. */
  wrapModel(model: ModelCall): ModelCall {
    return (input, signal) =>
      model(
        {
          ...input,
          onResponse: () => {
            if (!this.call?.firstChunk && !input.onStreamEvent) this.firstChunk();
            input.onResponse?.();
          },
          onStreamEvent: (event) => {
            this.firstChunk();
            input.onStreamEvent?.(event);
          },
        },
        signal,
      );
  }

  /** Ends every open span: the run's with how it ended, a call or tool still open with the run's error. */
  end(end: RunEnd): void {
    const type = end.error ? errorTypeOf(end.error) : end.state === 'aborted' ? 'aborted' : undefined;
    if (this.call) {
      if (type) fail(this.call.span, type, this.facts.redactor.text(end.error?.message ?? 'the run was aborted'));
      this.call.span.end();
      this.call = undefined;
    }
    for (const span of this.tools.values()) {
      fail(span, 'interrupted', 'the run ended before the tool did');
      span.end();
    }
    this.tools.clear();
    this.run.setAttributes({
      ...usageAttributes(end.usage),
      'agentloop.state': end.state,
      'agentloop.turn_count': end.turnCount,
      'agentloop.cost_usd': end.costUsd,
      ...(end.exitReason ? { 'agentloop.exit_reason': end.exitReason } : {}),
    });
    if (type) fail(this.run, type, this.facts.redactor.text(end.error?.message ?? `the run ended: ${end.exitReason ?? end.state}`));
    this.run.end();
  }
}

/** Starts a run's spans; the parent is the given context, else the active one. */
export function startRunSpans(tracing: RunTracing, facts: RunFacts): RunSpans {
  return new RunSpans(tracing.tracer, tracing.parent ?? contextApi.active(), tracing.conventions ?? conventionsFromEnv(process.env), facts, tracing.agentName, tracing.ids);
}
