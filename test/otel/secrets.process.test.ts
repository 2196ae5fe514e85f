/**
 * What a run's spans may hold, as properties over random runs (fast-check), through the real OpenTelemetry SDK's
 * in-memory exporter, and over the wire through the real OTLP exporters (protobuf and JSON) to a receiver on 127.0.0.1
 * (test/support/otlpReceiver.ts: the spans it decoded and the request bodies as they came):
 * - never a secret the run knows (the API key, a credential of the environment), in any of its forms (raw, JSON, URL,
 *   HTML), wherever it came from: the prompt, the system prompt, a tool call's input or name, a tool's output, the
 *   model's text; with content captured or not, in either shape of the conventions;
 * - no content at all without the opt-in: text from any of those places is in no span.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/core/tool.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { credentialRedactor } from '../../src/tools/bash/judge/secrets.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlpReceiver.js';
import { expectNoSecret, FORMS, PASSWORD } from '../support/secretForms.js';

const KEY = 'sk-ant-api03-PROPERTYkey_0123456789-abcdefghij';
const SECRETS = [KEY, PASSWORD];
const PLACES = ['prompt', 'system', 'toolInput', 'toolName', 'toolOutput', 'replyText'] as const;
type Place = (typeof PLACES)[number];

let dir: string;
let receiver: OtlpReceiver;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-otel-secrets-'));
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await receiver.close();
});

type Way = 'memory' | 'http/protobuf' | 'http/json';

/** Where the spans go: the SDK's in-memory exporter, or a real OTLP exporter to the receiver on 127.0.0.1. */
function exporterFor(way: Way): SpanExporter {
  if (way === 'memory') return new InMemorySpanExporter();
  const url = new URL('/v1/traces', receiver.url).href;
  return way === 'http/json' ? new JsonExporter({ url }) : new ProtoExporter({ url });
}

/** What left through `exporter` since `from` requests: the spans as the receiver decoded them, and the bodies as sent. */
function sent(exporter: SpanExporter, from: { spans: number; bodies: number }): string {
  if (exporter instanceof InMemorySpanExporter) return JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events, s.status]));
  const bodies = receiver.bodies.slice(from.bodies);
  expect(bodies.length).toBeGreaterThan(0);
  const spans = receiver.spans.slice(from.spans).map((s) => [s.name, s.attributes, s.events, s.status]);
  return `${JSON.stringify(spans, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}\n${bodies.map((b) => b.toString('utf8')).join('\n')}`;
}

/** A tool that answers with `output`. */
const answering = (output: string): Tool => ({
  name: 'echo',
  description: 'Echoes',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  run: async () => ({ content: output, isError: false }),
});

/** A run in which `text` is at each of `places`; every span it made, as one string. */
async function spansOf(text: string, places: readonly Place[], conventions: { latest: boolean; captureContent: boolean }, way: Way = 'memory'): Promise<string> {
  const at = (place: Place, otherwise: string) => (places.includes(place) ? `${otherwise} ${text}` : otherwise);
  const exporter = exporterFor(way);
  const from = { spans: receiver.spans.length, bodies: receiver.bodies.length };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  try {
    const model = scriptedModel([reply.toolUse([{ id: 't1', name: places.includes('toolName') ? `echo${text}` : 'echo', input: { text: at('toolInput', 'in') } }]), reply.text(at('replyText', 'done'))]);
    await runAgent(at('prompt', 'question'), {
      model: 'claude-test',
      modelCall: model.call,
      system: at('system', 'You help.'),
      tools: [answering(at('toolOutput', 'out'))],
      cwd: dir,
      redactor: credentialRedactor({ DB_PASSWORD: PASSWORD }, { apiKey: KEY }),
      tracing: { tracer: provider.getTracer('test'), conventions },
    });
    await provider.forceFlush();
    return sent(exporter, from);
  } finally {
    await provider.shutdown();
  }
}

const places = fc.subarray([...PLACES], { minLength: 1 });
const conventions = fc.record({ latest: fc.boolean(), captureContent: fc.boolean() });

describe("a run's spans", () => {
  it('never hold a secret the run knows, in any form, from any place, content captured or not', async () => {
    const secretInForm = fc.tuple(fc.constantFrom(...SECRETS), fc.constantFrom(...Object.values(FORMS))).map(([secret, form]) => form(secret));
    await fc.assert(
      fc.asyncProperty(secretInForm, places, conventions, async (text, where, shape) => {
        expectNoSecret(`spans (${where.join(', ')}; ${JSON.stringify(shape)})`, await spansOf(text, where, shape), SECRETS);
      }),
      { numRuns: 60 },
    );
  });

  it('never carry a secret over the wire: the real OTLP exporters (http/protobuf, http/json) to a receiver on 127.0.0.1', async () => {
    const secretInForm = fc.tuple(fc.constantFrom(...SECRETS), fc.constantFrom(...Object.values(FORMS))).map(([secret, form]) => form(secret));
    const way = fc.constantFrom<Way>('http/protobuf', 'http/json');
    await fc.assert(
      fc.asyncProperty(secretInForm, places, conventions, way, async (text, where, shape, how) => {
        expectNoSecret(`${how} (${where.join(', ')}; ${JSON.stringify(shape)})`, await spansOf(text, where, shape, how), SECRETS);
      }),
      { numRuns: 30 },
    );
  });

  it('hold no content without the opt-in: no text from the prompt, the system prompt, a tool or the model', async () => {
    const contentPlaces = fc.subarray(['prompt', 'system', 'toolInput', 'toolOutput', 'replyText'] as Place[], { minLength: 1 });
    const marker = fc.stringMatching(/^[a-z]{12}$/).map((s) => `MARK${s}`);
    await fc.assert(
      fc.asyncProperty(marker, contentPlaces, fc.boolean(), async (text, where, latest) => {
        expect(await spansOf(text, where, { latest, captureContent: false })).not.toContain(text);
      }),
      { numRuns: 40 },
    );
  });
});
