/**
 * Every credential agentloop is given is a secret, as the API key is: a matrix of the kinds (the OTLP exporters'
 * headers, a token in an endpoint's query, an endpoint's password, an MCP server's `env` value, an MCP server's header
 * and a token in its URL) × the outputs (the command's environment, the tool results the model gets, the transcript,
 * the spans a real OTLP receiver decoded and the bytes it got, stderr, stream-json on stdout). The CLI as a process,
 * as this user and as nobody when this one is root; the commands print every credential (a file holds them all), the
 * MCP server prints its environment (server-everything's get-env), the model echoes them all. Each credential still
 * reaches where it is for: the collector gets its header and its query.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashUse } from '../support/agentServer.js';
import { cliEnv, RUN_EVERYTHING } from '../support/cli.js';
import { everything } from '../support/mcp.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlpReceiver.js';
import { cliProjectFor } from '../support/project.js';
import { FORMS, textUnder } from '../support/secretForms.js';
import { runCliAs, testUsers } from '../support/users.js';
import { closedPort } from '../support/closedPort.js';

/** The credentials, by kind: none has a name or a shape that made it a secret before. */
const SECRET = {
  'OTLP header': 'otlpHdrValue-3c8e1f7a9b',
  'OTLP traces header': 'otlpTracesHdr-5d2b8a61',
  'OTLP endpoint query': 'otlpQueryKey-9e4f0c2d',
  'OTLP endpoint password': 'otlpUserPass-6a1d7e3f',
  'MCP env value': 'mcpEnvValue-2f9c4b8e',
  'MCP header': 'mcpHeaderTok-8b3e5a1c',
  'MCP URL query': 'mcpUrlQuery-4e7a2c9d',
} as const;
type Kind = keyof typeof SECRET;

/** `kind in output` for each credential found in an output, in any form (raw, JSON, URL, HTML). */
function leaks(outputs: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [output, text] of Object.entries(outputs))
    for (const kind of Object.keys(SECRET) as Kind[]) if (Object.values(FORMS).some((form) => text.includes(form(SECRET[kind])))) found.push(`${kind} in ${output}`);
  return found;
}

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe.each(testUsers())('the credentials agentloop is given, as $name', (user) => {
  const folder = cliProjectFor('cli-credentials', user);

  /** A project the user owns: `secrets.txt` holds every credential; the environment gives the OTLP ones. */
  function project(endpoint: string) {
    const cwd = folder.next();
    mkdirSync(join(cwd, 'home'));
    writeFileSync(join(cwd, 'secrets.txt'), `${Object.values(SECRET).join('\n')}\n`);
    folder.own(cwd);
    const env = cliEnv({
      ANTHROPIC_BASE_URL: folder.server.url,
      ANTHROPIC_API_KEY: 'sk-ant-api03-credentialsTEST_0123456789-abcdefghij',
      MODEL_ID: 'claude-test',
      AGENTLOOP_HOME: join(cwd, 'home'),
      OTEL_EXPORTER_OTLP_HEADERS: `x-honeycomb-team=${SECRET['OTLP header']}`,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `authorization=Bearer%20${SECRET['OTLP traces header']}`,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces?api_key=${SECRET['OTLP endpoint query']}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://agent:${SECRET['OTLP endpoint password']}@127.0.0.1:9/`,
      OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    return { cwd, env, home: join(cwd, 'home') };
  }

  const mcpConfig = (port: number) =>
    JSON.stringify({
      mcpServers: {
        every: everything(`credentials-${process.pid}`, { SERVICE_CONFIG: SECRET['MCP env value'] }),
        remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp?token=${SECRET['MCP URL query']}`, headers: { Authorization: `Bearer ${SECRET['MCP header']}` } },
      },
    });

  it.skipIf(user.skip !== undefined)('no credential in any output: commands, tool results, the model, the transcript, the spans, stderr, stream-json', async () => {
    const p = project(receiver.url);
    const from = { spans: receiver.spans.length, bodies: receiver.bodies.length, requests: receiver.requests.length };
    const asked = folder.server.requests.length;
    folder.server.enqueue(
      {
        content: [bashUse('t1', 'env > env.txt; cat secrets.txt'), { type: 'tool_use', id: 't2', name: 'mcp__every__get-env', input: {} }],
        stop_reason: 'tool_use',
      },
      { content: [{ type: 'text', text: `All of them: ${Object.values(SECRET).join(' ')}` }], stop_reason: 'end_turn' },
    );
    const args = ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--mcp-config', mcpConfig(await closedPort()), RUN_EVERYTHING];
    const run = await runCliAs(user, args, { cwd: p.cwd, env: p.env });
    expect(run.code, run.stderr).toBe(0);
    const model = JSON.stringify(folder.server.requests.slice(asked).map((r) => r.body));
    const spans = receiver.spans.slice(from.spans);
    const outputs = {
      'the command environment': readFileSync(join(p.cwd, 'env.txt'), 'utf8'),
      'the model': model,
      'the transcript': textUnder(p.home),
      'the spans': JSON.stringify(spans, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      'the OTLP bodies': receiver.bodies.slice(from.bodies).map((b) => b.toString('latin1')).join('\n'),
      stderr: run.stderr,
      'stream-json': run.stdout,
    };
    expect(leaks(outputs)).toEqual([]);
    // The commands ran and the server answered: what they printed reached the model and the spans, redacted.
    expect(model).toContain('[redacted OTEL_EXPORTER_OTLP_HEADERS]');
    expect(model).toContain('[redacted mcp server every]');
    expect(spans.some((s) => s.name === 'execute_tool bash' && String(s.attributes['gen_ai.tool.call.result']).includes('[redacted'))).toBe(true);
    // The collector still gets its credentials.
    const requests = receiver.requests.slice(from.requests);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => r.url === `/v1/traces?api_key=${SECRET['OTLP endpoint query']}`)).toBe(true);
    expect(requests.some((r) => JSON.stringify(r.headers).includes(SECRET['OTLP traces header']))).toBe(true);
  });

  it.skipIf(user.skip !== undefined)("the collector's warning names the endpoint without its query: no api_key on stderr", async () => {
    const p = project(`http://127.0.0.1:${await closedPort()}`);
    folder.server.enqueue({ content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
    const run = await runCliAs(user, ['-p', 'go'], { cwd: p.cwd, env: p.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/the trace could not be sent to http:\/\/127\.0\.0\.1:\d+\/v1\/traces:/);
    expect(leaks({ stderr: run.stderr, stdout: run.stdout })).toEqual([]);
  });
});
