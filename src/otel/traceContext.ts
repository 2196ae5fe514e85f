/**
 * W3C trace context in, an OpenTelemetry parent out: a `traceparent` (and its `tracestate`) from wherever it came, a
 * process's `TRACEPARENT` or the headers of a request (a durable run's invocation). `@opentelemetry/api` and
 * `@opentelemetry/core` load when this is called, not before.
 */
import type { Context } from '@opentelemetry/api';

/**
 * A package's named exports. The OpenTelemetry packages are CommonJS to the CLI's bundler (their ES build is only named
 * by a `module` field), and a bundled CommonJS module imported on demand comes as its `default`.
 */
export async function load<T extends object>(loading: Promise<T>, name: keyof T): Promise<T> {
  const module = await loading;
  return name in module ? module : ((module as { default: T }).default ?? module);
}

/** A `traceparent` and its `tracestate`, as headers or variables carry them. */
export interface TraceCarrier {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

/**
 * The span context of the first carrier whose `traceparent` is valid, as a parent; the root context (a new trace) when
 * none is. `found` says whether one was.
 */
export async function parentOf(carriers: TraceCarrier[]): Promise<{ parent: Context; found: boolean }> {
  const { ROOT_CONTEXT, trace, defaultTextMapGetter } = await load(import('@opentelemetry/api'), 'defaultTextMapGetter');
  const present = carriers.filter((c) => c.traceparent);
  if (present.length === 0) return { parent: ROOT_CONTEXT, found: false };
  const { W3CTraceContextPropagator } = await load(import('@opentelemetry/core'), 'W3CTraceContextPropagator');
  const propagator = new W3CTraceContextPropagator();
  for (const { traceparent, tracestate } of present) {
    const carrier = { traceparent, ...(tracestate ? { tracestate } : {}) };
    const parent = propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
    if (trace.getSpanContext(parent)) return { parent, found: true };
  }
  return { parent: ROOT_CONTEXT, found: false };
}

const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The first carrier whose `traceparent` is well formed (W3C's form; read without loading OpenTelemetry), with its own `tracestate`. */
export function firstValid(carriers: TraceCarrier[]): { traceparent: string; tracestate?: string } | undefined {
  const found = carriers.find((c) => c.traceparent !== undefined && TRACEPARENT.test(c.traceparent.trim().toLowerCase()));
  if (!found?.traceparent) return undefined;
  return { traceparent: found.traceparent.trim().toLowerCase(), ...(found.tracestate ? { tracestate: found.tracestate } : {}) };
}
