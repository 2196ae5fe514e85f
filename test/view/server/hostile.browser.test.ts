/**
 * The viewer and the inspector relay against hostile data and hostile pages, in real Chromium (playwright-core and
 * Debian's chromium): transcripts whose header ids hold `$'`, `$&`, `</script>` and quotes (data that once went into
 * the page as a `String.replace` replacement pattern and blanked it); another 127.0.0.1 page that frames them; and
 * the security headers on every route. The page must work under its own Content-Security-Policy.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStatelyInspector } from '../../../src/inspect/stately.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { startSession } from '../../../src/transcript/recorder.js';
import { startViewer } from '../../../src/view/server/server.js';
import { echoTool } from '../../support/drive.js';
import { waitFor } from '../../support/sessions.js';
import { launchChromium } from '../../support/browser.js';


/**
 * Header ids that a replacement pattern, an HTML parser or a quote would take for more than text. A session is found by
 * its file's name (transcript/paths.ts: sessionIdOfPath), so such a header id never becomes the page's session id; it
 * still reaches the page as text, in the session's first prompt (`the question of ID`), which the picker shows.
 */
const HOSTILE_IDS = ["a$'b", 'a$&b', 'a$`b', '</script><script>window.pwned=1</script>', `q"u'o"te`, '$$&$1$<x>'];

let dir: string;
let home: string;
let browser: Browser;
let goodId: string;

/** A transcript named `file` whose header says `id`, with one question in it. */
function writeTranscript(file: string, id: string, cwd: string): void {
  const at = new Date().toISOString();
  const lines = [
    { type: 'session', version: 1, id, cwd, createdAt: at, model: 'm' },
    { type: 'prompt', text: `the question of ${id}`, at },
  ];
  writeFileSync(join(home, 'sessions', `${file}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-hostile-'));
  home = join(dir, 'home');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  HOSTILE_IDS.forEach((id, i) => writeTranscript(`hostile${i}`, id, join(dir, `cwd${i}`)));
  // A real session with a tool call, for the page under its policy with everything it draws.
  const recorder = startSession(home, { cwd: join(dir, 'good'), model: 'm' });
  goodId = recorder.id;
  const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'echo', input: { text: 'x' } }]), reply.text('done')]);
  recorder.finish(await runAgent('go', { model: 'm', modelCall: model.call, tools: [echoTool()], onEvent: recorder.onEvent }));
  recorder.close();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page that records errors, dialogs and policy violations from its first script on. */
async function watchedPage(): Promise<{ page: Page; errors: string[]; violations: () => Promise<string[]> }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const violations = () => page.evaluate(() => (window as unknown as { violations: string[] }).violations);
  return { page, errors, violations };
}

describe('the viewer, with hostile session ids', () => {
  it.each(HOSTILE_IDS.map((id, i) => [id, i] as const))('a transcript whose header id is %s: the page loads whole and shows it as text', async (id, i) => {
    const viewer = await startViewer({ home, cwd: join(dir, `cwd${i}`) });
    const { page, errors, violations } = await watchedPage();
    try {
      const html = await (await fetch(viewer.url)).text();
      expect(html).toContain('<script src="/client/main.js"></script>'); // the rest of the page is still there
      await page.goto(viewer.url);
      // The config is the JSON it was meant to be, the id in it exactly.
      const config = await page.evaluate(() => JSON.parse(document.getElementById('agentloop-config')?.textContent ?? 'null'));
      expect(config).toEqual({ defaultSession: `hostile${i}`, startAtEnd: false });
      // The page's script ran: the diagram is drawn (shown or not in this layout; such an id has no events route).
      await page.waitForSelector('.diagram svg', { state: 'attached', timeout: 10_000 });
      // The picker lists every session, the hostile ids as values and text, nothing run from them.
      await waitFor('the session picker', async () => (await page.locator('#sessions option').count()) === HOSTILE_IDS.length + 1);
      const values = await page.locator('#sessions option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(values.sort()).toEqual([...HOSTILE_IDS.map((_, j) => `hostile${j}`), goodId].sort());
      expect(await page.locator('#sessions option:checked').getAttribute('value')).toBe(`hostile${i}`);
      // The hostile text itself is on the page, as text: the picker's label holds the first prompt.
      expect(await page.locator('#sessions option:checked').textContent()).toContain(`the question of ${id}`.slice(0, 40));
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      expect(errors).toEqual([]);
      expect(await violations()).toEqual([]);
    } finally {
      await page.close();
      await viewer.close();
    }
  });

  it('a real session with tool calls: the page draws all of it under its policy, with no violation', async () => {
    const viewer = await startViewer({ home, sessionId: goodId });
    const { page, errors, violations } = await watchedPage();
    try {
      await page.goto(viewer.url);
      await page.waitForSelector('body[data-loaded="true"]', { timeout: 10_000 });
      await page.keyboard.press('End');
      await page.waitForSelector('[data-tool-result="toolu_1"]');
      expect(await page.locator('.diagram .node.current').getAttribute('data-key')).toBe('done');
      expect(errors).toEqual([]);
      expect(await violations()).toEqual([]);
    } finally {
      await page.close();
      await viewer.close();
    }
  });
});

/** A page on another 127.0.0.1 port that frames `url`. */
async function framingSite(url: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><iframe id="victim" src="${url}" width="800" height="600"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Whether the framed page's document loaded in the frame (a frame the browser refused stays on its error page). */
async function framedLoads(page: Page, target: string): Promise<boolean> {
  const site = await framingSite(target);
  try {
    await page.goto(site.url);
    const frame = await (await page.waitForSelector('#victim')).contentFrame();
    await page.waitForLoadState('load');
    // The refused frame gets Chromium's error page; a loaded one has the target's URL and its document.
    return frame !== null && frame.url().startsWith(new URL(target).origin) && (await frame.locator('body > *').count()) > 0;
  } finally {
    await site.close();
  }
}

describe('no other page may frame them', () => {
  it('the viewer and the inspector relay refuse to load in a frame of another 127.0.0.1 site', async () => {
    const viewer = await startViewer({ home, sessionId: goodId });
    const inspector = await startStatelyInspector({ inspectorUrl: 'http://127.0.0.1:9/' });
    const page = await browser.newPage();
    try {
      expect(await framedLoads(page, viewer.url)).toBe(false);
      expect(await framedLoads(page, inspector.url)).toBe(false);
    } finally {
      await page.close();
      await viewer.close();
      await inspector.close();
    }
  });
});

/** The status and headers of `url` (with extra request headers, a Host of its own included); the body is not read. */
function headersOf(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.destroy(); // an event stream never ends
    });
    req.on('error', reject);
    req.end();
  });
}

function expectFramingRefused(route: string, headers: IncomingHttpHeaders): void {
  expect(headers['content-security-policy'], route).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/);
  expect(headers['x-frame-options'], route).toBe('DENY');
  expect(headers['x-content-type-options'], route).toBe('nosniff');
}

describe('the security headers on every route', () => {
  it("the viewer: every route and status says frame-ancestors 'none' and X-Frame-Options: DENY; the page loads only its own files", async () => {
    const viewer = await startViewer({ home, sessionId: goodId });
    const base = `http://127.0.0.1:${viewer.port}`;
    const auth = { authorization: `Bearer ${viewer.token}` };
    const routes: Array<[string, Record<string, string>, number, string?]> = [
      [viewer.url, {}, 200],
      [`${base}/client/main.js`, auth, 200],
      [`${base}/client/main.css`, auth, 200],
      [`${base}/favicon.ico`, auth, 204],
      [`${base}/api/machine`, auth, 200],
      [`${base}/api/sessions`, auth, 200],
      [`${base}/api/sessions/${goodId}`, auth, 200],
      [`${base}/api/sessions/${goodId}/events`, auth, 200],
      [`${base}/api/sessions/nope`, auth, 404],
      [`${base}/elsewhere`, auth, 404],
      [`${base}/`, {}, 401],
      [`${base}/`, { authorization: 'Bearer wrong' }, 403],
      [`${base}/`, { ...auth, host: 'evil.example' }, 403],
      [`${base}/`, auth, 405, 'POST'],
    ];
    try {
      for (const [url, headers, status, method] of routes) {
        const answer = await headersOf(url, headers, method);
        expect(answer.status, url).toBe(status);
        expectFramingRefused(`${method ?? 'GET'} ${url}`, answer.headers);
      }
      const page = (await headersOf(viewer.url)).headers['content-security-policy'] ?? '';
      expect(page).toContain("default-src 'none'");
      expect(page).toContain("script-src 'self'");
      expect(page).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    } finally {
      await viewer.close();
    }
  });

  it('the inspector relay: its page and its refusals carry the headers; its page runs under its policy and relays to the inspector', async () => {
    // A stand-in for stately.ai/inspect on another local port: says it is connected, counts what the relay posts.
    const stand = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><body><script>
        var n = 0; window.addEventListener('message', function () { document.title = 'got ' + (++n); });
        parent.postMessage({ type: '@statelyai.connected' }, '*');
      </script></body>`);
    });
    await new Promise<void>((resolve) => stand.listen(0, '127.0.0.1', resolve));
    const standUrl = `http://127.0.0.1:${(stand.address() as AddressInfo).port}/`;
    const inspector = await startStatelyInspector({ inspectorUrl: standUrl });
    const { port } = new URL(inspector.url);
    const { page, errors, violations } = await watchedPage();
    try {
      for (const [url, headers, status] of [
        [inspector.url, {}, 200],
        [`http://127.0.0.1:${port}/`, {}, 401],
        [`http://127.0.0.1:${port}/?token=wrong`, {}, 403],
        [inspector.url, { host: 'evil.example' }, 403],
      ] as const) {
        const answer = await headersOf(url, headers);
        expect(answer.status, url).toBe(status);
        expectFramingRefused(url, answer.headers);
      }
      const policy = (await headersOf(inspector.url)).headers['content-security-policy'] ?? '';
      expect(policy).toContain(`frame-src ${new URL(standUrl).origin}`);
      expect(policy).not.toContain("'unsafe-inline'");

      await page.goto(inspector.url);
      const model = scriptedModel([reply.text('ok')]);
      await runAgent('go', { model: 'm', modelCall: model.call, tools: [], inspect: inspector.inspect });
      const inner = page.frameLocator('#inspector');
      await waitFor('events relayed into the inspector frame', async () => /^got [1-9]/.test(await inner.locator('title').textContent() ?? ''), 10_000);
      expect(errors).toEqual([]);
      expect(await violations()).toEqual([]);
    } finally {
      await page.close();
      await inspector.close();
      await new Promise<void>((resolve) => stand.close(() => resolve()));
    }
  });
});

describe('no data as a replacement pattern', () => {
  it('src/view and src/inspect give String.replace a function, or a fixed string, never one built from values', () => {
    const files = (root: string): string[] =>
      readdirSync(root).flatMap((name) => {
        const path = join(root, name);
        return statSync(path).isDirectory() ? files(path) : /\.(ts|js|mjs)$/.test(name) ? [path] : [];
      });
    const built: string[] = [];
    for (const file of [...files('src/view'), ...files('src/inspect')]) {
      const text = readFileSync(file, 'utf8');
      // `.replace(pattern, `...${x}...`)` or `.replace(pattern, '...' + x)`: the second argument is a string made of data.
      for (const m of text.matchAll(/\.replace(?:All)?\(([^()]|\([^()]*\))*?,\s*(`[^`]*\$\{|['"][^'"]*['"]\s*\+|[A-Za-z_$][\w$.]*\s*\))/g)) {
        if (!/=>|function/.test(m[0])) built.push(`${file}: ${m[0]}`);
      }
    }
    expect(built).toEqual([]);
  });
});
