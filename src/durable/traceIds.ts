/**
 * The trace of a durable run's children. Each attempt of an invocation is a run of its own, its spans sent as it goes;
 * a child invocation, started once and journalled, must hang under a span that every attempt of its parent makes the
 * same. So a durable run chooses two ids (otel/ids.ts), derived from its invocation's id, which all its attempts share:
 * its trace's id when the run starts a trace of its own, and the span id of each Agent call's `execute_tool` span.
 * The trace context a child gets is journalled in its parent (children.ts) before the child's call, and goes in the
 * child's request.
 */
import { createHash } from 'node:crypto';
import type * as restate from '@restatedev/restate-sdk';
import type { StableIds } from '../otel/ids.js';
import { firstValid, type TraceCarrier } from '../otel/traceContext.js';
import { AGENT_TOOL_NAME } from '../tools/agent/agentTool.js';

const digest = (text: string, hexDigits: number) => createHash('sha256').update(text).digest('hex').slice(0, hexDigits);

/** The span id of the `execute_tool` span of Agent call `toolUseId` of invocation `invocationId`. */
export const agentCallSpanId = (invocationId: string, toolUseId: string) => digest(`execute_tool ${invocationId} ${toolUseId}`, 16);

/** The ids the spans of invocation `invocationId` take: the same in each of its attempts. */
export function durableIds(invocationId: string): StableIds {
  return {
    traceId: digest(`trace ${invocationId}`, 32),
    toolSpanId: (block) => (block.name === AGENT_TOOL_NAME ? agentCallSpanId(invocationId, block.id) : undefined),
  };
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The trace context an invocation came with: the attempt's (Restate's own span of it, when its tracing is on), else its
 * `traceparent` header (`agentloop submit` forwards TRACEPARENT), else none.
 */
export function requestTrace(request: restate.Request): TraceCarrier[] {
  const carrier = (headers: ReadonlyMap<string, string | string[] | undefined>) => ({
    traceparent: headerValue(headers.get('traceparent')),
    tracestate: headerValue(headers.get('tracestate')),
  });
  return [carrier(request.attemptHeaders), carrier(request.headers)];
}

/**
 * The trace context of the child of Agent call `toolUseId`: its `execute_tool` span's when the parent traces (`env`, the
 * running Agent call's TRACEPARENT, names the trace: a later call of the same reply, whose span is not started yet, gets
 * the id its span will take), else the parent run's own (`runTrace`: a traceparent that came with the run), else none.
 */
export function childTrace(invocationId: string, toolUseId: string, running: { id: string; env?: Readonly<Record<string, string>> | undefined }, runTrace: TraceCarrier | undefined): TraceCarrier | undefined {
  const current = firstValid([{ traceparent: running.env?.TRACEPARENT, tracestate: running.env?.TRACESTATE }]);
  if (!current) return firstValid(runTrace ? [runTrace] : []);
  if (toolUseId === running.id) return current;
  const [version, traceId, , flags] = current.traceparent.split('-');
  return { ...current, traceparent: `${version}-${traceId}-${agentCallSpanId(invocationId, toolUseId)}-${flags}` };
}
