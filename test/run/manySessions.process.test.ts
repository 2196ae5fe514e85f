/**
 * Many sessions in one process: 200 runAgent runs at once against one local Messages API server,
 * each running real bash commands in its own temporary directory. All finish, each answer holds
 * its own session's marker (no crosstalk), no child process is left behind, and memory returns to
 * near where it started.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent, type RunResult } from '../../src/run/runAgent.js';
import { bashUse, lastToolResults, resultText, startCheckedServer } from '../support/agentServer.js';
import type { MessagesServer, RequestBody, Step } from '../support/messagesServer.js';
import { processes, type ProcInfo } from '../support/processes.js';

const SESSIONS = 200;
/** Heap growth allowed once every session has ended and the garbage is collected. */
const HEAP_RISE_LIMIT_MB = 16;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapUsedMb(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function leftovers(runTag: string): ProcInfo[] {
  return processes().filter((p) => p.pid !== process.pid && (p.ppid === process.pid || p.cmdline.includes(runTag)));
}

const PROMPT = /session marker: ([A-Za-z0-9-]+)/;

/**
 * One step for every request of every session, computed from the request alone: the first call
 * asks for a bash command that writes the session's marker to a file and reads it back; the second
 * answers with the tool's output.
 */
const sessionStep: Step = (body: RequestBody) => {
  const results = lastToolResults(body);
  if (results.length > 0) {
    return { content: [{ type: 'text', text: `The file holds: ${results.map(resultText).join(' | ')}` }], stop_reason: 'end_turn' };
  }
  const first = body.messages[0];
  const prompt = typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content);
  const marker = PROMPT.exec(prompt)?.[1] ?? 'missing-marker';
  return {
    content: [{ type: 'text', text: 'Writing the marker.' }, bashUse(`toolu_${marker}`, `echo ${marker} > f && cat f`)],
    stop_reason: 'tool_use',
  };
};

let server: MessagesServer;
const dirs: string[] = [];
const runTag = `agentloop-many-${randomBytes(4).toString('hex')}`;

function sessionDir(): string {
  const dir = mkdtempSync(join(tmpdir(), `${runTag}-`));
  dirs.push(dir);
  return dir;
}

async function oneSession(index: number): Promise<{ result: RunResult; marker: string; dir: string }> {
  const marker = `${runTag}-s${index}-${randomBytes(3).toString('hex')}`;
  const dir = sessionDir();
  server.enqueue(sessionStep, sessionStep);
  const result = await runAgent(`Write the session marker: ${marker}`, {
    model: 'claude-test',
    client: { baseURL: server.url, apiKey: 'test', idleTimeoutMs: 60_000 },
    cwd: dir,
    tools: defaultTools({ cwd: dir }),
    retryBaseMs: 5,
  });
  return { result, marker, dir };
}

beforeAll(async () => {
  server = await startCheckedServer();
});
afterAll(async () => {
  await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe(`${SESSIONS} sessions at once in one process`, () => {
  it('all finish, each with its own result, no process left behind, memory back near its start', async () => {
    // Warm up (modules, JIT, the connection pool) before taking the memory baseline.
    const warm = await oneSession(-1);
    expect(warm.result.state).toBe('done');
    const childrenBefore = processes().filter((p) => p.ppid === process.pid && p.state !== 'Z');
    const heapBefore = heapUsedMb();

    const started = Date.now();
    const outcomes = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => oneSession(i)));
    const seconds = (Date.now() - started) / 1000;

    const summary = outcomes.map(({ result, marker, dir }) => ({
      state: result.state,
      error: result.context.error?.message ?? null,
      ownMarker: result.text === `The file holds: ${marker}`,
      text: result.text.slice(0, 300),
      file: existsSync(join(dir, 'f')) && readFileSync(join(dir, 'f'), 'utf8').trim() === marker,
      // Everything this session sent and got holds only its own marker.
      foreign: (JSON.stringify(result.context.messages).match(new RegExp(`${runTag}-s\\d+-[0-9a-f]+`, 'g')) ?? []).filter(
        (m) => m !== marker,
      ).length,
    }));
    expect(summary.filter((s) => s.state !== 'done')).toEqual([]);
    expect(summary.filter((s) => !(s.ownMarker && s.file && s.foreign === 0))).toEqual([]);
    expect(server.violations).toEqual([]);
    expect(server.requests).toHaveLength(2 * (SESSIONS + 1));
    expect(server.pending).toBe(0);

    // No process left: no child of this process, none running a command of this test anywhere.
    let left = leftovers(runTag).filter((p) => !childrenBefore.some((c) => c.pid === p.pid));
    for (let i = 0; i < 250 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20)); // SIGKILL and reaping are asynchronous
      left = leftovers(runTag).filter((p) => !childrenBefore.some((c) => c.pid === p.pid));
    }
    expect(left).toEqual([]);

    // Memory: drop every reference to the runs, collect, compare.
    outcomes.length = 0;
    server.requests.splice(0);
    await new Promise((r) => setTimeout(r, 50));
    const heapAfter = heapUsedMb();
    const rise = heapAfter - heapBefore;
    console.log(
      `${SESSIONS} sessions in ${seconds.toFixed(1)} s; heapUsed ${heapBefore.toFixed(1)} MB before, ${heapAfter.toFixed(1)} MB after (${rise >= 0 ? '+' : ''}${rise.toFixed(1)} MB); rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
    );
    expect(rise).toBeLessThan(HEAP_RISE_LIMIT_MB);
  }, 90_000);
});
