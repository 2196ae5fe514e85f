/**
 * Which trace context a durable run's `invoke_agent` span takes as its parent (agentSession.ts `runParent`): the
 * attempt's (Restate's own span, when its tracing is on) before the invocation's `traceparent` header (the
 * submitter's), a valid one before an invalid one, and none when neither is there. The run against the real server is
 * trace.test.ts; a Restate server with its tracing on is not run in the tests (it exports over gRPC only).
 */
import { trace, type Tracer } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type * as restate from '@restatedev/restate-sdk';
import { runParent } from '../../src/durable/agentSession.js';

const tracer = trace.getTracer('test') as Tracer;
const SUBMITTER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const RESTATE = '00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01';

const request = (attempt: Record<string, string>, headers: Record<string, string>) =>
  ({ attemptHeaders: new Map(Object.entries(attempt)), headers: new Map(Object.entries(headers)) }) as unknown as restate.Request;

async function parentSpan(attempt: Record<string, string>, headers: Record<string, string>): Promise<string | undefined> {
  const { parent } = await runParent({ tracer }, request(attempt, headers));
  return parent ? trace.getSpanContext(parent)?.spanId : undefined;
}

describe('the parent of a durable run’s span', () => {
  it("is the attempt's trace context when Restate sends one, else the submitter's traceparent", async () => {
    expect(await parentSpan({ traceparent: RESTATE }, { traceparent: SUBMITTER })).toBe('b7ad6b7169203331');
    expect(await parentSpan({}, { traceparent: SUBMITTER })).toBe('00f067aa0ba902b7');
    expect(await parentSpan({ traceparent: 'not a traceparent' }, { traceparent: SUBMITTER })).toBe('00f067aa0ba902b7');
  });

  it('is none (a trace of its own) without a valid traceparent', async () => {
    expect(await parentSpan({}, {})).toBeUndefined();
    expect(await parentSpan({}, { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' })).toBeUndefined();
  });

  it('keeps the tracestate that goes with the chosen traceparent', async () => {
    const { parent } = await runParent({ tracer }, request({}, { traceparent: SUBMITTER, tracestate: 'vendor=abc' }));
    expect(parent && trace.getSpanContext(parent)?.traceState?.get('vendor')).toBe('abc');
  });
});
