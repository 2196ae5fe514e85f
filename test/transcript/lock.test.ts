/** The session lock (src/transcript/lock.ts) in one process, and the library's ways into a session that is being written. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { describeHolder, lockPathOf, lockSession, runningHolder, SessionBusyError, waitForSession } from '../../src/transcript/lock.js';
import { resumeSession } from '../../src/transcript/open.js';
import { startSession } from '../../src/transcript/recorder.js';
import { readTranscript, transcriptPath } from '../../src/transcript/store.js';
import { procStartOf } from '../../src/transcript/holder.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-lock-'));
  mkdirSync(join(home, 'sessions'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const path = (id = 'sess') => transcriptPath(home, id);

describe('lockSession', () => {
  it('is held by one opener at a time, even in one process; the refusal names the holder; release frees it and removes the file', () => {
    const lock = lockSession(path());
    let refusal: unknown;
    try {
      lockSession(path());
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(SessionBusyError);
    const holder = (refusal as SessionBusyError).holder;
    expect(holder).toMatchObject({ pid: process.pid, start: procStartOf(process.pid) });
    expect(Date.now() - Date.parse(holder?.startedAt ?? '')).toBeGreaterThanOrEqual(process.uptime() * 1000 - 1000);
    expect(runningHolder(path())).toEqual(holder);
    lock.release();
    expect(existsSync(lockPathOf(path()))).toBe(false);
    expect(runningHolder(path())).toBeUndefined();
    lockSession(path()).release();
  });

  it('takes a lock file left by a process that is gone, and never shows its pid as running, nor a live pid with another start time', () => {
    writeFileSync(lockPathOf(path()), JSON.stringify({ pid: 2 ** 22 + 7, startedAt: new Date().toISOString(), start: '1' }));
    expect(runningHolder(path())).toBeUndefined();
    writeFileSync(lockPathOf(path()), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), start: '1' }));
    expect(runningHolder(path())).toBeUndefined(); // this pid, but not this process's start: a reused pid
    const lock = lockSession(path());
    expect(JSON.parse(readFileSync(lockPathOf(path()), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });
});

describe('waitForSession', () => {
  it('tells once who holds the session, and locks it when the holder releases it; an abort ends the wait', async () => {
    const lock = lockSession(path());
    const told: unknown[] = [];
    const waiting = waitForSession(path(), { onWait: (holder) => told.push(holder), pollMs: 10 });
    expect(told).toEqual([expect.objectContaining({ pid: process.pid })]);
    lock.release();
    const mine = await waiting;
    expect(() => lockSession(path())).toThrow(SessionBusyError);
    const controller = new AbortController();
    const aborted = waitForSession(path(), { signal: controller.signal, pollMs: 10 });
    controller.abort(new Error('given up'));
    await expect(aborted).rejects.toThrow('given up');
    mine.release();
  });
});

describe('describeHolder', () => {
  it('names the pid, how long it has run and its command', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    expect(describeHolder({ pid: 42, startedAt: '2026-01-01T00:07:55Z', command: 'agentloop -c -p hi' }, now)).toBe(
      'process 42 (running for 2 min 5 s: agentloop -c -p hi)',
    );
    expect(describeHolder(undefined)).toBe('another process');
  });
});

describe('the library on a session that a run is writing', () => {
  it('runAgent with a recorder from resumeSession is refused before anything is written; waitForSession waits for it', async () => {
    const model = scriptedModel([reply.text('one'), reply.text('two')]);
    const first = await runAgent('first', { model: 'scripted', modelCall: model.call, tools: [], session: { home }, cwd: home });
    const file = transcriptPath(home, first.sessionId);
    const writing = startSession(home, { cwd: home, model: 'scripted', id: 'other' }); // a new session is its own
    writing.close();
    const holder = await resumeSession(file);
    const before = readFileSync(file, 'utf8');
    await expect(resumeSession(file)).rejects.toThrow(SessionBusyError);
    await expect(runAgent('again', { model: 'scripted', modelCall: model.call, tools: [], session: { home }, sessionId: first.sessionId, cwd: home })).rejects.toThrow(
      SessionBusyError,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);

    let waited = false;
    const second = resumeSession(file, { waitForSession: true, onWait: () => (waited = true), prompt: 'second' });
    expect(waited).toBe(true); // told at once, before the first pause
    holder.recorder.close();
    const resumed = await second;
    const run = await runAgent('second', { model: 'scripted', modelCall: model.call, tools: [], session: resumed.recorder, messages: resumed.conversation.messages, cwd: home });
    resumed.recorder.close();
    expect(run.text).toBe('two');
    expect(readTranscript(file).records.filter((r) => r.type === 'result')).toHaveLength(2);
  });
});
