/**
 * A local OTLP/HTTP trace receiver for tests: `POST /v1/traces` in protobuf (decoded with protobufjs against
 * ./otlp/trace.proto, OTLP's own field numbers) or JSON, answered 200 as a collector does. It keeps every span, in a
 * shape that reads the same for both encodings: hex ids, kinds and status codes by name, attributes as plain values.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: 'UNSPECIFIED' | 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status: { code: 'UNSET' | 'OK' | 'ERROR'; message: string };
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The content types of the requests received, in order. */
  readonly contentTypes: string[];
  /** The bodies of the requests received, as they came (what went over the wire). */
  readonly bodies: Buffer[];
  /** The path (with its query) and headers of each request, in order. */
  readonly requests: Array<{ url: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
const CODES = ['UNSET', 'OK', 'ERROR'] as const;

type Json = Record<string, unknown>;

/** An OTLP AnyValue, protobuf (as protobufjs's toObject gives it) or JSON, as a plain value. */
function valueOf(any: Json | undefined): unknown {
  if (!any) return undefined;
  const v = any as Record<string, unknown>;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return ((v.arrayValue as { values?: Json[] }).values ?? []).map(valueOf);
  if ('kvlistValue' in v) return attributesOf((v.kvlistValue as { values?: Json[] }).values);
  return undefined;
}

function attributesOf(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key as string, valueOf(kv.value as Json)]));
}

/** Ids: base64 in protobufjs's objects, hex in OTLP/JSON. */
const hexOf = (id: unknown, base64: boolean) => (typeof id !== 'string' || id === '' ? '' : base64 ? Buffer.from(id, 'base64').toString('hex') : id.toLowerCase());

function spansOf(request: Json, base64: boolean): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (request.resourceSpans as Json[] | undefined) ?? []) {
    const resource = attributesOf((rs.resource as Json | undefined)?.attributes as Json[] | undefined);
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
      for (const s of (ss.spans as Json[] | undefined) ?? []) {
        const status = (s.status as Json | undefined) ?? {};
        out.push({
          traceId: hexOf(s.traceId, base64),
          spanId: hexOf(s.spanId, base64),
          parentSpanId: hexOf(s.parentSpanId, base64),
          name: s.name as string,
          kind: KINDS[Number(s.kind ?? 0)] ?? 'UNSPECIFIED',
          startNs: BigInt(String(s.startTimeUnixNano ?? 0)),
          endNs: BigInt(String(s.endTimeUnixNano ?? 0)),
          attributes: attributesOf(s.attributes as Json[] | undefined),
          events: ((s.events as Json[] | undefined) ?? []).map((e) => ({ name: e.name as string, attributes: attributesOf(e.attributes as Json[] | undefined) })),
          status: { code: CODES[Number(status.code ?? 0)] ?? 'UNSET', message: (status.message as string | undefined) ?? '' },
          resource,
        });
      }
    }
  }
  return out;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const root = await protobuf.load(fileURLToPath(new URL('./otlp/trace.proto', import.meta.url)));
  const Export = root.lookupType('otlp.ExportTraceServiceRequest');
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const bodies: Buffer[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      const type = String(request.headers['content-type'] ?? '');
      contentTypes.push(type);
      bodies.push(body);
      requests.push({ url: request.url ?? '', headers: request.headers });
      if (request.method !== 'POST' || (request.url ?? '').split('?')[0] !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const json = type.includes('json');
      const decoded = json
        ? (JSON.parse(body.toString('utf8')) as Json)
        : (Export.toObject(Export.decode(body), { longs: String, enums: Number, bytes: String, oneofs: false }) as Json);
      spans.push(...spansOf(decoded, !json));
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    bodies,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
