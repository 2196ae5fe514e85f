/**
 * The local servers refuse whoever was not shown their URL: the viewer (HTTP and its event
 * stream) and the inspector relay (its page and its WebSocket); and relay viewers only read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startStatelyInspector, type StatelyInspector } from '../../src/inspect/stately.js';
import { startSession } from '../../src/transcript/recorder.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { sameToken } from '../../src/loopback/auth.js';
import { startViewer, type Viewer } from '../../src/view/server/server.js';
import { waitFor } from '../support/sessions.js';

let dir: string;
let viewer: Viewer | undefined;
let inspector: StatelyInspector | undefined;
const sockets: WebSocket[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-auth-'));
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  await viewer?.close();
  await inspector?.close();
  viewer = inspector = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const status = async (url: string, init: RequestInit = {}) => (await fetch(url, init)).status;

describe('the viewer', () => {
  it('refuses every request without the token (401) or with a wrong one (403)', async () => {
    const home = join(dir, 'home');
    const recorder = startSession(home, { cwd: dir, model: 'm' });
    recorder.prompt('secret prompt');
    recorder.close();
    viewer = await startViewer({ home });
    const base = `http://127.0.0.1:${viewer.port}`;
    const wrong = `${viewer.token.startsWith('x') ? 'y' : 'x'}${viewer.token.slice(1)}`; // never the token itself
    for (const path of ['/', '/api/machine', '/api/sessions', `/api/sessions/${recorder.id}`, `/api/sessions/${recorder.id}/events`]) {
      expect(await status(`${base}${path}`), path).toBe(401);
      expect(await status(`${base}${path}${path.includes('?') ? '&' : '?'}token=${wrong}`), path).toBe(403);
      expect(await status(`${base}${path}`, { headers: { authorization: `Bearer ${wrong}` } }), path).toBe(403);
      expect(await status(`${base}${path}`, { headers: { cookie: `agentloop-view-${viewer.port}=${wrong}` } }), path).toBe(403);
    }
    const body = await (await fetch(`${base}/api/sessions/${recorder.id}`)).text();
    expect(body).not.toContain('"header"');
    // With the token: the data.
    const ok = await fetch(`${base}/api/sessions/${recorder.id}`, { headers: { authorization: `Bearer ${viewer.token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"header"');
  });

  it('the URL it prints carries a new token each start; the page load sets a cookie for its own requests', async () => {
    viewer = await startViewer({ home: join(dir, 'home') });
    const first = viewer.token;
    const page = await fetch(viewer.url);
    expect(page.status).toBe(200);
    const setCookie = page.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^agentloop-view-${viewer.port}=${first}; HttpOnly; SameSite=Strict; Path=/$`));
    const cookie = setCookie.split(';')[0] as string;
    expect(await status(`http://127.0.0.1:${viewer.port}/api/sessions`, { headers: { cookie } })).toBe(200);
    await viewer.close();
    viewer = await startViewer({ home: join(dir, 'home') });
    expect(viewer.token).not.toBe(first);
    expect(viewer.token).toMatch(/^[\w-]{43}$/);
  });
});

/** Opens a WebSocket to the relay; resolves when open, rejects with the refusal. */
function connect(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { origin: `http://127.0.0.1:${new URL(url).port}` });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('the inspector relay', () => {
  it('serves its page only with the token', async () => {
    inspector = await startStatelyInspector();
    const { port } = new URL(inspector.url);
    expect(await status(`http://127.0.0.1:${port}/`)).toBe(401);
    expect(await status(`http://127.0.0.1:${port}/?token=nope`)).toBe(403);
    expect(await status(inspector.url)).toBe(200);
  });

  it('refuses WebSockets without the token or with a wrong one', async () => {
    inspector = await startStatelyInspector();
    const { port } = new URL(inspector.url);
    await expect(connect(`ws://127.0.0.1:${port}/?role=viewer`)).rejects.toThrow(/401/);
    await expect(connect(`ws://127.0.0.1:${port}/`)).rejects.toThrow(/401/);
    await expect(connect(`ws://127.0.0.1:${port}/?role=viewer&token=${inspector.token.slice(1)}`)).rejects.toThrow(/401/);
    await connect(`ws://127.0.0.1:${port}/?role=viewer&token=${inspector.token}`);
  });

  it('a viewer cannot publish: what it sends reaches no other viewer, and it is cut off', async () => {
    inspector = await startStatelyInspector();
    const { port } = new URL(inspector.url);
    const watcher = await connect(`ws://127.0.0.1:${port}/?role=viewer&token=${inspector.token}`);
    const received: string[] = [];
    watcher.on('message', (d) => received.push(d.toString()));
    // Claiming to be the agent with the viewers' token changes nothing.
    const intruder = await connect(`ws://127.0.0.1:${port}/?role=agent&token=${inspector.token}`);
    const closed = new Promise<number>((resolve) => intruder.once('close', (code) => resolve(code)));
    intruder.send(JSON.stringify({ type: '@xstate.event', event: { type: 'INJECTED' } }));
    expect(await closed).toBe(1008);
    // The agent's own events still go through.
    const model = scriptedModel([reply.text('ok')]);
    await runAgent('go', { model: 'm', modelCall: model.call, tools: [], inspect: inspector.inspect });
    await waitFor('the agent events', () => received.some((m) => m.includes('callingModel')));
    expect(received.some((m) => m.includes('INJECTED'))).toBe(false);
  });
});

describe('sameToken', () => {
  it('compares whole tokens of any length', () => {
    expect(sameToken('abc', 'abc')).toBe(true);
    expect(sameToken('abc', 'abd')).toBe(false);
    expect(sameToken('abc', 'abcd')).toBe(false);
    expect(sameToken('', 'abc')).toBe(false);
  });
});
