/**
 * No secret in any text the CLI writes: the CLI as a process, against a local server that echoes the key
 * (`x-api-key`, or the token of `Authorization: Bearer`) and a credential of the environment in a 401 JSON error, a
 * 502 HTML page, a mid-stream `event: error`, and 529s that are retried; in text (with --verbose), json and
 * stream-json. stdout, stderr and every file under AGENTLOOP_HOME are searched for every form of each; then a model
 * that echoes the key in its answer (the transcript, the json result, stream-json, the inspector relay's events),
 * a key read from `.env` (the transcript and its copy in Claude Code's place, transcript/claudeMirror.ts), and the viewer's API over a transcript written before redaction. As this user and again as
 * an unprivileged one (nobody) when this one is root.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { answerFromResults, lastToolResults, resultText } from '../support/agentServer.js';
import { everything } from '../support/mcp.js';
import { cliEnv, startCli } from '../support/cli.js';
import { runCliAs, testUsers } from '../support/users.js';
import type { RecordedRequest, Step } from '../support/messagesServer.js';
import { cliProjectFor } from '../support/project.js';
import { waitFor } from '../support/sessions.js';
import { expectNoSecret as expectNone, FORMS, PASSWORD, textUnder } from '../support/secretForms.js';

const KEY = 'sk-ant-api03-CLIsecretKEY_0123456789-abcdefghijkl';
const TOKEN = 'gw-token-CLIsecretTOKEN-5566778899';

const credential = (request: RecordedRequest) => request.headers['x-api-key'] ?? (request.headers.authorization ?? '').replace(/^Bearer /, '');

const FAULTS: Record<string, Step[]> = {
  '401 JSON': [(_b, _i, req) => ({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${credential(req)}; db=${PASSWORD}` } })],
  '502 HTML': [
    (_b, _i, req) => ({
      error: { status: 502, type: 'api_error', message: '' },
      raw: { contentType: 'text/html', body: `<html><h1>502 Bad Gateway</h1><pre>${JSON.stringify(req.headers)}\n${FORMS.html?.(PASSWORD)}</pre></html>` },
    }),
  ],
  'event: error': [
    (_b, _i, req) => ({
      fault: 'error-event-mid-stream',
      content: [{ type: 'text', text: 'Starting.' }],
      errorType: 'invalid_request_error',
      message: `echo ${encodeURIComponent(credential(req))} ${JSON.stringify(PASSWORD)}`,
    }),
  ],
  '529 retried': Array.from({ length: 3 }, (): Step => (_b, _i, req) => ({
    error: { status: 529, type: 'overloaded_error', message: `Overloaded for ${credential(req)} (${PASSWORD})` },
    headers: { 'retry-after-ms': '10' },
  })),
};
const MODES: Record<string, string[]> = { text: ['--verbose'], json: ['--output-format', 'json'], 'stream-json': ['--output-format', 'stream-json', '--verbose'] };


function expectNoSecret(where: string, text: string, secrets = [KEY, TOKEN, PASSWORD]): void {
  expectNone(where, text, secrets);
}

describe.each(testUsers())('the CLI as $name', (user) => {
  const { skip } = user;
  const folder = cliProjectFor('cli-secrets', user);

  /** A directory (with its own AGENTLOOP_HOME) that the user owns, and the environment of a run in it. */
  function project(auth: Record<string, string>, files: Record<string, string> = {}) {
    const cwd = folder.next();
    mkdirSync(join(cwd, 'home'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
    folder.own(cwd);
    // The session's copy for Claude Code's tools (CLAUDE_CONFIG_DIR/projects) is under the home too: searched with it.
    const env = cliEnv({ ANTHROPIC_BASE_URL: folder.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(cwd, 'home'), CLAUDE_CONFIG_DIR: join(cwd, 'home', 'claude'), DB_PASSWORD: PASSWORD, ...auth });
    return { cwd, env, home: join(cwd, 'home') };
  }

  const cli = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => runCliAs(user, args, { cwd, env });

  for (const [fault, steps] of Object.entries(FAULTS)) {
    for (const [mode, flags] of Object.entries(MODES)) {
      it.skipIf(skip !== undefined)(`${fault}, ${mode}: stdout, stderr and the transcript hold neither key nor token nor password`, async () => {
        for (const auth of [{ ANTHROPIC_API_KEY: KEY }, { ANTHROPIC_AUTH_TOKEN: TOKEN }] as Record<string, string>[]) {
          const p = project(auth);
          folder.server.enqueue(...steps);
          // Only the 529s are retried (as many times as there are steps for them); a left-over step would go to the next run.
          const run = await cli(['-p', 'hello', '--max-retries', String(steps.length - 1), ...flags], p.cwd, p.env);
          expect(run.code, run.stderr).toBe(1);
          expectNoSecret('stdout', run.stdout);
          expectNoSecret('stderr', run.stderr);
          expectNoSecret('the transcript', textUnder(p.home));
          const said = mode === 'text' ? run.stderr : run.stdout;
          expect(said).toContain(`[redacted ${'ANTHROPIC_API_KEY' in auth ? 'ANTHROPIC_API_KEY' : 'ANTHROPIC_AUTH_TOKEN'}]`);
          if (fault === '529 retried') expect(textUnder(p.home).match(/"type":"retry"/g)).toHaveLength(2);
        }
      });
    }
  }

  it.skipIf(skip !== undefined)('a model that echoes the key: the answer, the json result, stream-json and the transcript hold it redacted', async () => {
    for (const flags of [[], ['--output-format', 'json'], ['--output-format', 'stream-json', '--verbose']]) {
      const p = project({ ANTHROPIC_API_KEY: KEY });
      folder.server.enqueue({ content: [{ type: 'text', text: `Your key is ${KEY} and the password ${PASSWORD}.` }], stop_reason: 'end_turn' });
      const run = await cli(['-p', `remember ${KEY}`, ...flags], p.cwd, p.env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Your key is [redacted ANTHROPIC_API_KEY] and the password [redacted DB_PASSWORD].');
      for (const [where, text] of [['stdout', run.stdout], ['stderr', run.stderr], ['the transcript', textUnder(p.home)]] as const) expectNoSecret(where, text);
      // The copy in Claude Code's place was written, redacted as the transcript is.
      expect(textUnder(join(p.home, 'claude', 'projects'))).toContain('Your key is [redacted ANTHROPIC_API_KEY]');
    }
  });

  it.skipIf(skip !== undefined)("MCP servers: a tool result that prints the credentials it was given, a failed server's error echoing the key", async () => {
    // An http server behind a gateway that echoes the request's headers in its error page.
    const gateway = createServer((req, res) => res.writeHead(401, { 'content-type': 'text/html' }).end(`<pre>${JSON.stringify(req.headers)}</pre>`));
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/mcp`;
    try {
      for (const flags of [['--verbose'], ['--output-format', 'stream-json', '--verbose']]) {
        const p = project({ ANTHROPIC_API_KEY: KEY });
        const config = {
          mcpServers: {
            every: everything(`secrets-${process.pid}`, { GIVEN_KEY: '${ANTHROPIC_API_KEY}', DB_PASSWORD: '${DB_PASSWORD}' }),
            gate: { type: 'http', url, headers: { Authorization: 'Bearer ${ANTHROPIC_API_KEY}' } },
          },
        };
        folder.server.enqueue({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__every__get-env', input: {} }], stop_reason: 'tool_use' }, answerFromResults);
        // The server's tools run only when allowed, as with Claude Code's -p (docs/cli.md#permissions).
        const run = await cli(['-p', 'env?', '--mcp-config', JSON.stringify(config), ...flags, '--allowedTools', 'mcp__every'], p.cwd, p.env);
        expect(run.code, run.stderr).toBe(0);
        const sent = folder.server.requests.at(-1)?.body;
        const result = resultText(lastToolResults(sent as never)[0]!);
        expect(result).toContain('"GIVEN_KEY": "[redacted ANTHROPIC_API_KEY]"');
        expect(result).toContain('"DB_PASSWORD": "[redacted DB_PASSWORD]"');
        expect(run.stderr + run.stdout).toMatch(/MCP server "gate" failed to start|"name":"gate","status":"failed"/);
        if (flags.length === 1) expect(run.stderr).toContain('Bearer [redacted ANTHROPIC_API_KEY]');
        for (const [where, text] of [['stdout', run.stdout], ['stderr', run.stderr], ['the transcript', textUnder(p.home)], ['the model', JSON.stringify(sent)]] as const) {
          expectNoSecret(where, text, [KEY, PASSWORD]);
        }
      }
    } finally {
      await new Promise((resolve) => gateway.close(resolve));
    }
  });

  it.skipIf(skip !== undefined)('a key read from .env only is cut out too', async () => {
    const p = project({}, { '.env': `ANTHROPIC_API_KEY=${KEY}\n` });
    folder.server.enqueue(...(FAULTS['401 JSON'] as Step[]));
    const run = await cli(['-p', 'hello', '--output-format', 'json', '--max-retries', '0'], p.cwd, p.env);
    expect(JSON.parse(run.stdout).error).toContain('invalid x-api-key: [redacted ANTHROPIC_API_KEY]');
    expectNoSecret('stdout', run.stdout);
    expectNoSecret('the transcript', textUnder(p.home));
  });
});

describe('the pages', () => {
  const pages = cliProjectFor('page-secrets');

  it("the viewer's API, over a transcript written before redaction, answers without the key", async () => {
    const home = join(pages.dir, 'view-home');
    mkdirSync(join(home, 'sessions'), { recursive: true });
    const id = '0f0e0d0c-1111-4222-8333-444455556666';
    const at = new Date().toISOString();
    const records = [
      { type: 'session', version: 1, id, cwd: pages.dir, createdAt: at, model: 'm' },
      { type: 'prompt', text: `my key is ${KEY}`, at },
      { type: 'transition', state: 'callingModel', event: 'START', turnCount: 1, transitionReason: null, exitReason: null, at },
      { type: 'retry', attempt: 1, delayMs: 5, error: `Overloaded for ${KEY}`, kind: 'overloaded', turnCount: 1, model: 'm', at },
      { type: 'result', state: 'failed', exitReason: 'model_error', stopReason: null, turnCount: 1, usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, turnUsage: [], durationMs: 5, error: `401 invalid x-api-key: ${KEY}`, at },
    ];
    writeFileSync(join(home, 'sessions', `${id}.jsonl`), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const env = cliEnv({ AGENTLOOP_HOME: home, ANTHROPIC_API_KEY: KEY });
    const view = startCli(['view', id], { cwd: pages.dir, env });
    try {
      const url = new URL((await waitFor('the URL', () => /^http:\S+/m.exec(view.output().stdout)?.[0])) as string);
      const auth = { headers: { authorization: `Bearer ${url.searchParams.get('token')}` } };
      const base = `http://127.0.0.1:${url.port}`;
      const list = await (await fetch(`${base}/api/sessions`, auth)).text();
      const timeline = await (await fetch(`${base}/api/sessions/${id}`, auth)).text();
      const controller = new AbortController();
      const events = await fetch(`${base}/api/sessions/${id}/events`, { ...auth, signal: controller.signal });
      const reader = events.body?.getReader();
      let stream = '';
      while (!stream.includes('\n\n')) stream += new TextDecoder().decode((await reader?.read())?.value);
      controller.abort();
      for (const [where, text] of [['/api/sessions', list], ['/api/sessions/ID', timeline], ['the event stream', stream]] as const) {
        expectNoSecret(where, text, [KEY]);
        expect(text, where).toContain('[redacted ANTHROPIC_API_KEY]');
      }
    } finally {
      view.child.kill('SIGINT');
      await view.done;
    }
  });

  it("the inspector relay's events hold no key the prompt or the model's answer carried", async () => {
    pages.server.enqueue({ content: [{ type: 'text', text: `Echo: ${KEY}` }], stop_reason: 'end_turn' });
    const env = cliEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: pages.server.url, MODEL_ID: 'm', AGENTLOOP_HOME: join(pages.dir, 'inspect-home') });
    const cli = startCli(['-p', `my key is ${KEY}`, '--inspect', '--output-format', 'json'], { cwd: pages.dir, env });
    try {
      const url = new URL((await waitFor('the inspector URL', () => /Stately inspector: (http:\S+)/.exec(cli.output().stderr)?.[1])) as string);
      const received: string[] = [];
      const socket = new WebSocket(`ws://127.0.0.1:${url.port}/?role=viewer&token=${url.searchParams.get('token')}`, { origin: url.origin });
      socket.on('message', (data) => received.push(data.toString()));
      await waitFor('the run to end', () => cli.output().stderr.includes('page stays up until Ctrl-C'), 20_000);
      await waitFor('the final snapshot', () => received.some((m) => m.includes('"status":"done"')));
      socket.terminate();
      const all = received.join('\n');
      expectNoSecret('the relay', all, [KEY]);
      expect(all).toContain('my key is [redacted ANTHROPIC_API_KEY]');
      expect(all).toContain('Echo: [redacted ANTHROPIC_API_KEY]');
      expectNoSecret('stdout', cli.output().stdout, [KEY]);
    } finally {
      cli.child.kill('SIGINT');
      await cli.done;
    }
  });
});
