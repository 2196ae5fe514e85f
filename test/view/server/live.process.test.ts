/**
 * The viewer's server and the CLI's `view` / `--view`: a run shown live over server-sent events,
 * only on 127.0.0.1, and nothing loaded from anywhere else.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { startSession } from '../../../src/transcript/recorder.js';
import { runAgent } from '../../../src/run/runAgent.js';
import type { Timeline } from '../../../src/view/timeline/build.js';
import { startViewer, type Viewer } from '../../../src/view/server/server.js';
import { answerFromResults, bashUse, startCheckedServer } from '../../support/agentServer.js';
import { cliEnv, startCli } from '../../support/cli.js';
import type { MessagesServer } from '../../support/messagesServer.js';
import { echoTool } from '../../support/drive.js';
import { waitFor } from '../../support/sessions.js';

let dir: string;
let home: string;
let viewer: Viewer | undefined;
let server: MessagesServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-live-'));
  home = join(dir, 'home');
});
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Reads `timeline` events from the viewer's SSE stream as they come. */
function subscribe(url: string) {
  const timelines: Timeline[] = [];
  const controller = new AbortController();
  const done = (async () => {
    const response = await fetch(url, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = /^event: timeline\ndata: (.*)$/s.exec(frame)?.[1];
        if (data) timelines.push(JSON.parse(data) as Timeline);
      }
    }
  })().catch(() => {});
  return { timelines, stop: () => (controller.abort(), done) };
}

function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the viewer server', () => {
  it('streams the timeline of a run while it is being recorded', async () => {
    const recorder = startSession(home, { cwd: dir, model: 'm' });
    viewer = await startViewer({ home, sessionId: recorder.id, pollMs: 20 });
    const stream = subscribe(`http://127.0.0.1:${viewer.port}/api/sessions/${recorder.id}/events?token=${viewer.token}`);
    await waitFor('the first timeline', () => stream.timelines.length > 0);
    expect(stream.timelines[0]?.steps).toEqual([]);

    const model = scriptedModel([reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'x' } }]), reply.text('ok')], { delayMs: 120 });
    const result = await runAgent('go', {
      model: 'm',
      modelCall: model.call,
      tools: [echoTool({ delayMs: 120 })],
      onEvent: recorder.onEvent,
    });
    recorder.finish(result);
    recorder.close();
    await waitFor('the final timeline', () => stream.timelines.at(-1)?.results.length === 1);
    await stream.stop();

    const counts = stream.timelines.map((t) => t.steps.length);
    expect(counts.length).toBeGreaterThanOrEqual(4); // it went out step by step, not once at the end
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(stream.timelines.at(-1)?.steps.map((s) => s.state)).toEqual([
      'callingModel',
      'checkingReply', // the reply (stop_reason, its tool_use blocks, the branch)
      'executingTools',
      'appendingResults',
      'callingModel',
      'checkingReply',
      'done',
    ]);
  });

  it('answers only requests for 127.0.0.1 and serves a page that loads nothing from elsewhere', async () => {
    viewer = await startViewer({ home });
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    expect(await getWithHost(viewer.url, 'evil.example')).toBe(403);
    expect(await getWithHost(viewer.url, `localhost:${viewer.port}`)).toBe(200);
    const html = await (await fetch(viewer.url)).text();
    const auth = { headers: { authorization: `Bearer ${viewer.token}` } };
    // Only the page's own files, from the same server.
    const refs = [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(refs.sort()).toEqual(['/client/main.css', '/client/main.js']);
    expect(html).not.toMatch(/<iframe|@import/);
    for (const [file, type] of [['main.js', 'text/javascript'], ['main.css', 'text/css']]) {
      const response = await fetch(`http://127.0.0.1:${viewer.port}/client/${file}`, auth);
      expect(response.headers.get('content-type')).toContain(type);
      expect(await response.text()).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    }
    expect(await (await fetch(`http://127.0.0.1:${viewer.port}/api/sessions`, auth)).json()).toEqual([]);
    expect((await fetch(`http://127.0.0.1:${viewer.port}/api/sessions/nope`, auth)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${viewer.port}/api/machine`, auth)).status).toBe(200);
  });
});

describe('the CLI', () => {
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    server = await startCheckedServer({ eventDelayMs: 40 });
    writeFileSync(join(dir, 'notes.txt'), 'n');
    env = cliEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: home });
  });

  it('-p --view prints the viewer URL, shows the run live, and keeps the page up until Ctrl-C', async () => {
    server!.enqueue({ content: [bashUse('toolu_1', 'ls')], stop_reason: 'tool_use' }, answerFromResults);
    const cli = startCli(['-p', '--verbose', 'list the files', '--view'], { cwd: dir, env }); // --verbose: the usage line too
    const url = await waitFor('the viewer URL on stderr', () => /viewer: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+&session=[\w-]+)/.exec(cli.output().stderr)?.[1]);
    const id = new URL(url).searchParams.get('session') as string;
    const token = new URL(url).searchParams.get('token') as string;
    const stream = subscribe(new URL(`/api/sessions/${id}/events?token=${token}`, url).toString());
    await waitFor('the run to end', () => cli.output().stderr.includes('page stays up until Ctrl-C'), 20_000);
    await waitFor('the final timeline', () => stream.timelines.at(-1)?.results.length === 1);
    await stream.stop();
    expect(stream.timelines.length).toBeGreaterThan(1);
    expect(cli.output().stdout).toMatch(/^Results: .*notes\.txt/s);
    expect(cli.output().stderr).toMatch(/2 model calls · [\d,]+ in · [\d,]+ out · [\d.]+ s · session /);

    cli.child.kill('SIGINT');
    const ended = await cli.done;
    expect(ended.code).toBe(0);
  });

  it('view ID prints the URL on stdout and serves until Ctrl-C; an unknown id is a usage error', async () => {
    const recorder = startSession(home, { cwd: dir, model: 'm', id: 'abcdef12-0000-0000-0000-000000000000' });
    recorder.prompt('hello');
    recorder.close();
    const cli = startCli(['view', 'abcdef12', '--port', '0'], { cwd: dir, env });
    const url = await waitFor('the URL on stdout', () => /^(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+&session=\S+)\n/.exec(cli.output().stdout)?.[1]);
    expect(url).toContain('session=abcdef12-0000-0000-0000-000000000000');
    const html = await (await fetch(url)).text();
    expect(html).toContain('"defaultSession":"abcdef12-0000-0000-0000-000000000000"');
    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(0);

    const unknown = startCli(['view', 'zzzz'], { cwd: dir, env });
    const result = await unknown.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no session "zzzz"/);
  });
});
