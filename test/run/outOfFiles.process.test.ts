/**
 * Out of file descriptors (core/openFiles.ts): a run that cannot open its session's lock or its connection to the
 * API says so in one line with the process's limit, not with the system call's error. A process of its own, started
 * with `ulimit -n 512`, holds descriptors until none is left, then starts a run with a session and one without. The
 * runs out of descriptors call a server the warm-up run did not: its connection, kept alive, would need none.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMessagesServer, type MessagesServer } from '../support/messagesServer.js';

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
let server: MessagesServer;
let cold: MessagesServer;
let home: string;

beforeAll(async () => {
  server = await startMessagesServer();
  cold = await startMessagesServer();
  home = mkdtempSync(join(tmpdir(), 'agentloop-files-'));
});
afterAll(async () => {
  await server.close();
  await cold.close();
  rmSync(home, { recursive: true, force: true });
});

/** One run to load the code a run needs; then holds descriptors until none is left, and runs once with a session and once without; prints what each ended with. */
const SCRIPT = `
const { runAgent } = await import(${JSON.stringify(DIST)});
const { openSync } = await import('node:fs');
const settings = { model: 'claude-test', tools: [], client: { apiKey: 'sk-ant-files', baseURL: process.env.SERVER }, retryBaseMs: 1, maxRetries: 0 };
const outcome = (p) => p.then((r) => r.state + ': ' + (r.context.error?.message ?? ''), (e) => 'threw: ' + e.message);
await runAgent('warm up', { ...settings, session: { home: process.env.SESSIONS } }); // the code a run loads, loaded
const held = [];
try { for (;;) held.push(openSync('/dev/null', 'r')); } catch {}
const cold = { ...settings, client: { ...settings.client, baseURL: process.env.COLD } };
const withSession = await outcome(runAgent('hello', { ...cold, session: { home: process.env.SESSIONS } }));
const without = await outcome(runAgent('hello', cold));
process.stdout.write(JSON.stringify({ withSession, without }));
`;

describe('a run out of file descriptors', () => {
  it('says so in one line: its session lock, its connection to the API', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'warm' }], stop_reason: 'end_turn' });
    const child = spawn('bash', ['-c', 'ulimit -n 512 && exec "$0" --input-type=module -e "$1"', process.execPath, SCRIPT], {
      env: { PATH: process.env.PATH, HOME: home, SERVER: server.url, COLD: cold.url, SESSIONS: home },
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    const { withSession, without } = JSON.parse(stdout) as { withSession: string; without: string };
    const said = 'this process has as many files open as its limit (ulimit -n) allows: run fewer at once, or raise the limit';
    expect(withSession).toMatch(/^threw: cannot open the session's lock file .*\(EMFILE\): /);
    expect(withSession.endsWith(said)).toBe(true);
    expect(without).toBe(`failed: could not reach the API: out of file descriptors: ${said}`);
    for (const line of [withSession, without]) expect(line).not.toContain('\n');
  });
});
