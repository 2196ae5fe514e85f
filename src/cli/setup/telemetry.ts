/**
 * OpenTelemetry traces for the CLI, off unless the standard variables ask for them:
 * - on when `OTEL_TRACES_EXPORTER` names an exporter (`otlp`, `console`), or `OTEL_EXPORTER_OTLP_ENDPOINT` /
 *   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; off with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`;
 * - `otlp` sends OTLP over HTTP, `http/protobuf` (the default) or `http/json` (`OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL`),
 *   where the exporter's own variables say (endpoint, headers, timeout); `console` writes each span to stderr as a line
 *   of JSON (stdout stays the run's); `grpc` is not supported (a warning, and no traces);
 * - the service is `agentloop` unless `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say otherwise;
 * - `TRACEPARENT` (and `TRACESTATE`) in the environment make the caller's span the parent of every run's span: a
 *   script's trace, or the Agent SDK's, which passes its active span that way.
 * The OpenTelemetry SDK loads only when traces are on. At the end, the spans are flushed within FLUSH_MS: a collector
 * that is down costs at most that, and one warning.
 */
import type { Context } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { RunTracing } from '../../otel/runSpans.js';
import { load, parentOf } from '../../otel/traceContext.js';
import { chosenIds } from '../../otel/ids.js';
import { createRedactor } from '../../core/redact.js';
import { secretValues } from '../../tools/bash/judge/secrets.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The longest the CLI waits for its spans to leave when it ends. */
export const FLUSH_MS = 3000;

export interface Telemetry {
  tracing: RunTracing;
  /** Sends what is left and stops; never rejects, never waits longer than FLUSH_MS. */
  shutdown(): Promise<void>;
}

type ExporterChoice = { kind: 'otlp'; protocol: 'http/protobuf' | 'http/json' } | { kind: 'console' } | { kind: 'none' } | { kind: 'unsupported'; why: string };

/** Which exporter the variables ask for; `none` when tracing is off. Cheap: no OpenTelemetry code is loaded. */
export function exporterWanted(env: Env): ExporterChoice {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return { kind: 'none' };
  const named = (env.OTEL_TRACES_EXPORTER ?? '').split(',')[0]?.trim().toLowerCase() ?? '';
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (named === 'none' || (named === '' && !endpoint)) return { kind: 'none' };
  if (named === 'console') return { kind: 'console' };
  if (named !== '' && named !== 'otlp') return { kind: 'unsupported', why: `OTEL_TRACES_EXPORTER=${named} is not supported (otlp, console or none)` };
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim().toLowerCase();
  if (protocol === 'http/protobuf' || protocol === 'http/json') return { kind: 'otlp', protocol };
  return { kind: 'unsupported', why: `the OTLP protocol ${protocol} is not supported (http/protobuf or http/json)` };
}

/** Where spans go, for a warning: the endpoint without its user, password and query (an `?api_key=`). */
function destinationOf(env: Env, choice: ExporterChoice): string {
  if (choice.kind !== 'otlp') return 'stderr';
  const raw = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || 'http://localhost:4318';
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'the OTLP endpoint';
  }
}

const KINDS = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUS = ['UNSET', 'OK', 'ERROR'];
const ms = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;

/** One span as a line of JSON: names for kinds and status codes, times in ms. */
function spanLine(span: ReadableSpan): string {
  const { traceId, spanId } = span.spanContext();
  const parent = span.parentSpanContext?.spanId;
  return JSON.stringify({
    name: span.name,
    kind: KINDS[span.kind],
    traceId,
    spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    start: new Date(ms(span.startTime)).toISOString(),
    durationMs: Math.round(ms(span.duration) * 1000) / 1000,
    attributes: span.attributes,
    status: { code: STATUS[span.status.code], ...(span.status.message ? { message: span.status.message } : {}) },
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
  });
}

/** Spans as JSON lines on stderr (`OTEL_TRACES_EXPORTER=console`). */
function consoleExporter(write: (line: string) => void): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      for (const span of spans) write(`${spanLine(span)}\n`);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
}

async function exporterOf(choice: ExporterChoice, write: (line: string) => void): Promise<SpanExporter> {
  if (choice.kind === 'console') return consoleExporter(write);
  if (choice.kind === 'otlp' && choice.protocol === 'http/json') return new (await load(import('@opentelemetry/exporter-trace-otlp-http'), 'OTLPTraceExporter')).OTLPTraceExporter();
  return new (await load(import('@opentelemetry/exporter-trace-otlp-proto'), 'OTLPTraceExporter')).OTLPTraceExporter();
}

/** The exporter, telling `onFailure` when a batch could not be sent. */
function watched(exporter: SpanExporter, onFailure: (error: Error | undefined) => void): SpanExporter {
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== 0) onFailure(result.error);
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => (exporter.forceFlush as () => Promise<void>)() } : {}),
  };
}

/** The caller's span from `TRACEPARENT` / `TRACESTATE`, as the parent of the runs' spans. */
async function parentFrom(env: Env, warn: (line: string) => void): Promise<Context> {
  const { parent, found } = await parentOf([{ traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE }]);
  if (env.TRACEPARENT && !found) warn('agentloop: TRACEPARENT is not a W3C traceparent; the trace starts anew');
  return parent;
}

/** Starts tracing when the variables ask for it; `undefined` when they do not (nothing of OpenTelemetry loaded). */
export async function startTelemetry(env: Env, version: string, warnLine: (line: string) => void): Promise<Telemetry | undefined> {
  // A warning never holds the exporters' credentials (a header's token, an endpoint's `?api_key=`), whoever prints it.
  const redactor = createRedactor(secretValues(env));
  const warn = (line: string) => warnLine(redactor.text(line));
  const choice = exporterWanted(env);
  if (choice.kind === 'none') return undefined;
  if (choice.kind === 'unsupported') {
    warn(`agentloop: no traces: ${choice.why}`);
    return undefined;
  }
  const [{ BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator }, { resourceFromAttributes, detectResources, envDetector }] = await Promise.all([
    load(import('@opentelemetry/sdk-trace-base'), 'BasicTracerProvider'),
    load(import('@opentelemetry/resources'), 'resourceFromAttributes'),
  ]);
  let failure: string | undefined;
  const exporter = watched(await exporterOf(choice, (line) => process.stderr.write(line)), (error) => {
    failure ??= error?.message ?? 'the export failed';
  });
  const resource = resourceFromAttributes({ 'service.name': 'agentloop', 'service.version': version }).merge(detectResources({ detectors: [envDetector] }));
  // Random ids, but those a durable run chooses for the spans its child invocations hang under (otel/ids.ts).
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)], idGenerator: chosenIds(new RandomIdGenerator()) });
  const tracing: RunTracing = { tracer: provider.getTracer('agentloop', version), parent: await parentFrom(env, warn) };
  return {
    tracing,
    async shutdown() {
      const timedOut = await Promise.race([
        provider.shutdown().then(
          () => false,
          (error: unknown) => {
            failure ??= error instanceof Error ? error.message : String(error);
            return false;
          },
        ),
        new Promise<boolean>((resolve) => setTimeout(resolve, FLUSH_MS, true).unref()),
      ]);
      if (timedOut) failure ??= `no answer within ${FLUSH_MS} ms`;
      if (failure) warn(`agentloop: the trace could not be sent to ${destinationOf(env, choice)}: ${failure}`);
    },
  };
}
