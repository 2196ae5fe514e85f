/**
 * No secret in what a run writes: the real SDK, through runAgent, against a local server that echoes the key (its
 * `x-api-key`, or the token of `Authorization: Bearer`) and a withheld credential of the environment back, in a 401
 * JSON error, a 502 HTML page, a mid-stream `event: error`, and 529s that are retried. The transcript (every record:
 * `retry`, `result`, ...), the run's events and its result hold none of them; a property places them at random in
 * random bodies, in the forms the redactor promises to find.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { runAgent } from '../../src/run/runAgent.js';
import { credentialRedactor } from '../../src/tools/bash/judge/secrets.js';
import { startMessagesServer, type MessagesServer, type RecordedRequest, type Step } from '../support/messagesServer.js';

const KEY = 'sk-ant-api03-Kx9_secretKEY-0123456789abcdefghij';
const TOKEN = 'gw-token-4f1c2e-tokenSECRET-9988776655';
/** A credential of the environment, withheld from the tools: JSON, URLs and HTML each write it otherwise. */
const PASSWORD = 'p@ss w"rd&<é>/7%';
const ENV = { PATH: process.env.PATH, DB_PASSWORD: PASSWORD };

let server: MessagesServer;
let dir: string;
beforeAll(async () => {
  server = await startMessagesServer();
  dir = mkdtempSync(join(tmpdir(), 'agentloop-secrets-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the request carried: the key, or the bearer token. */
const credential = (request: RecordedRequest) => request.headers['x-api-key'] ?? (request.headers.authorization ?? '').replace(/^Bearer /, '');

/** The faults, each echoing what the request carried (and the password) in `form`. */
const FAULTS = {
  '401 JSON': (form: Form): Step => (_b, _i, req) => ({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${form(credential(req))} (db ${form(PASSWORD)})` } }),
  '502 HTML': (form: Form): Step => (_b, _i, req) => ({
    error: { status: 502, type: 'api_error', message: '' },
    raw: { contentType: 'text/html', body: `<html><body><h1>502 Bad Gateway</h1><pre>${form(JSON.stringify(req.headers))}\n${form(PASSWORD)}</pre></body></html>` },
  }),
  'event: error': (form: Form): Step => (_b, _i, req) => ({
    fault: 'error-event-mid-stream',
    content: [{ type: 'text', text: 'Starting.' }],
    errorType: 'invalid_request_error',
    message: `upstream said: authorization=${form(credential(req))}; ${form(PASSWORD)}`,
  }),
} as const;
type Form = (text: string) => string;
const FORMS: Record<string, Form> = {
  raw: (t) => t,
  'JSON-escaped': (t) => JSON.stringify(t).slice(1, -1),
  'URL-encoded': (t) => encodeURIComponent(t),
  'HTML-escaped': (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
};

let runs = 0;
/** One run against `steps`; the text of its transcript, its events and its result, as JSON. */
async function runWith(steps: Step[], client: { apiKey?: string; authToken?: string }, maxRetries = 0) {
  server.enqueue(...steps);
  const events: RunEvent[] = [];
  const home = join(dir, `home${runs++}`);
  const result = await runAgent('hello', {
    model: 'claude-test',
    client: { ...client, baseURL: server.url },
    redactor: credentialRedactor(ENV, client),
    tools: [],
    session: { home },
    maxRetries,
    retryBaseMs: 1,
    retryMaxMs: 2,
    onEvent: (event) => events.push(event),
  });
  const sessions = join(home, 'sessions');
  const transcript = readdirSync(sessions).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(sessions, f), 'utf8')).join('');
  return { result, transcript, events: JSON.stringify(events), context: JSON.stringify(result.context) };
}

/** Every form of every secret that must not be anywhere in `text`. */
function expectNoSecret(where: string, text: string): void {
  for (const value of [KEY, TOKEN, PASSWORD]) for (const [name, form] of Object.entries(FORMS)) expect(text, `${where}: ${name} ${value}`).not.toContain(form(value));
}

describe('a gateway that echoes the credentials in its errors', () => {
  for (const [fault, step] of Object.entries(FAULTS)) {
    for (const [auth, client] of [['x-api-key', { apiKey: KEY }], ['Authorization: Bearer', { authToken: TOKEN }]] as const) {
      it(`${fault}, ${auth}: nothing the run wrote holds them, and the error says what it can`, async () => {
        const out = await runWith([step(FORMS.raw as Form)], client);
        expect(out.result.context.exitReason).toBe('model_error');
        for (const [where, text] of Object.entries({ transcript: out.transcript, events: out.events, context: out.context })) expectNoSecret(where, text);
        const message = out.result.context.error?.message ?? '';
        expect(message).toContain(`[redacted ${'apiKey' in client ? 'ANTHROPIC_API_KEY' : 'ANTHROPIC_AUTH_TOKEN'}]`);
        expect(message).toContain('[redacted DB_PASSWORD]');
        expect(out.transcript).toMatch(/"type":"result".*\[redacted DB_PASSWORD\]/);
      });
    }
  }

  it('529s that are retried: every retry record and event, and the result, hold no secret', async () => {
    const overloaded: Step = (_b, _i, req) => ({ error: { status: 529, type: 'overloaded_error', message: `Overloaded (key ${credential(req)}, ${PASSWORD})` } });
    const out = await runWith([overloaded, overloaded, overloaded], { apiKey: KEY }, 2);
    expect(out.result.context.exitReason).toBe('model_error');
    const retries = out.transcript.split('\n').filter((line) => line.includes('"type":"retry"'));
    expect(retries).toHaveLength(2);
    for (const line of retries) expect(line).toContain('Overloaded (key [redacted ANTHROPIC_API_KEY], [redacted DB_PASSWORD])');
    for (const [where, text] of Object.entries({ transcript: out.transcript, events: out.events, context: out.context })) expectNoSecret(where, text);
  });

  it('a property: each fault, the secrets in any promised form, anywhere in the body, never reach what the run wrote', async () => {
    const faultName = fc.constantFrom(...(Object.keys(FAULTS) as (keyof typeof FAULTS)[]));
    const formName = fc.constantFrom(...Object.keys(FORMS));
    const filler = fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ' '));
    await fc.assert(
      fc.asyncProperty(faultName, formName, filler, filler, fc.boolean(), async (fault, formKey, before, after, bearer) => {
        const form = FORMS[formKey] as Form;
        const placed: Form = (t) => `${before}${form(t)}${after}`;
        const client = bearer ? { authToken: TOKEN } : { apiKey: KEY };
        const out = await runWith([FAULTS[fault](placed)], client);
        for (const [where, text] of Object.entries({ transcript: out.transcript, events: out.events, context: out.context })) expectNoSecret(where, text);
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it('by default (no redactor given), the client key and the credentials of process.env are cut', async () => {
    process.env.AGENTLOOP_TEST_SECRET_TOKEN = 'env-token-value-0123456789';
    try {
      server.enqueue((_b, _i, req) => ({ error: { status: 401, type: 'authentication_error', message: `bad ${credential(req)} / ${process.env.AGENTLOOP_TEST_SECRET_TOKEN}` } }));
      const result = await runAgent('hello', { model: 'claude-test', client: { apiKey: KEY, baseURL: server.url }, tools: [], maxRetries: 0 });
      expect(result.context.error?.message).toBe('bad [redacted ANTHROPIC_API_KEY] / [redacted AGENTLOOP_TEST_SECRET_TOKEN]');
    } finally {
      delete process.env.AGENTLOOP_TEST_SECRET_TOKEN;
    }
  });
});
