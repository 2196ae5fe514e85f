/**
 * The transcript writer: records in the kernel at once, flushed to the disk off the main thread; the recorder: a step's
 * records in one write when the step ends, a tool_start at once.
 */
import fs, { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRANSCRIPT_VERSION, type SessionHeader } from '../../src/transcript/records.js';
import type { LoopState } from '../../src/core/events.js';
import { startSession } from '../../src/transcript/recorder.js';
import { TranscriptWriter } from '../../src/transcript/store.js';
import { SYNC_EVERY_MS } from '../../src/transcript/writer.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

const openFiles = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
const header = (id: string): SessionHeader => ({ type: 'session', version: TRANSCRIPT_VERSION, id, cwd: '/', createdAt: new Date(0).toISOString(), model: 'm' });

describe('TranscriptWriter', () => {
  it('has every record in the file as soon as write returns, before any flush', () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-writer-'));
    const writer = TranscriptWriter.create(home, header('a'));
    for (let i = 0; i < 50; i++) writer.write({ type: 'prompt', at: 'now', text: `q${i}` });
    const lines = readFileSync(writer.path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(51);
    writer.close();
  });

  it('closed while a flush runs on the thread pool: the file is whole and closed once the flush ends', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-writer-'));
    const writer = TranscriptWriter.create(home, header('b'));
    writer.write({ type: 'prompt', at: 'now', text: 'last' });
    writer.close(); // the header's fsync is still running
    expect(() => writer.write({ type: 'prompt', at: 'now', text: 'late' })).toThrow(/closed/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 100 && openFiles(writer.path).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openFiles(writer.path)).toEqual([]);
    expect(readFileSync(writer.path, 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });

  it('many writers at once leave no file open behind', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-writer-'));
    const writers = Array.from({ length: 40 }, (_, i) => TranscriptWriter.create(home, header(`w${i}`)));
    for (const w of writers) for (let j = 0; j < 5; j++) w.write({ type: 'prompt', at: 'now', text: `${j}` });
    for (const w of writers) w.close();
    const open = () => writers.flatMap((w) => openFiles(w.path));
    for (let i = 0; i < 100 && open().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(open()).toEqual([]);
  });
});

/** Counts the writer's `fs.fsync` calls and their ends (it imports them from node:fs: patched for ESM too). */
function countFsyncs() {
  const counts = { started: 0, ended: 0 };
  const { fsync } = fs;
  fs.fsync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    counts.started += 1;
    fsync(fd, (error) => {
      counts.ended += 1;
      callback(error);
    });
  }) as typeof fs.fsync;
  syncBuiltinESMExports();
  return {
    counts,
    restore: () => {
      fs.fsync = fsync;
      syncBuiltinESMExports();
    },
  };
}

const until = async (what: () => boolean) => {
  for (let i = 0; i < 500 && !what(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(what()).toBe(true);
};

describe('fsync pacing', () => {
  it('a burst of writes shares one fsync after the one running; a write after a quiet spell starts its own at once', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-writer-'));
    const probe = countFsyncs();
    try {
      const writer = TranscriptWriter.create(home, header('f'));
      expect(probe.counts.started).toBe(1); // the header's
      for (let i = 0; i < 20; i++) writer.write({ type: 'prompt', at: 'now', text: `q${i}` });
      expect(probe.counts.started).toBe(1); // the rest wait for it
      await until(() => probe.counts.ended === 2); // then one more covers all 20
      expect(probe.counts.started).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, SYNC_EVERY_MS + 10));
      expect(probe.counts.started).toBe(2);
      writer.write({ type: 'prompt', at: 'now', text: 'after a pause' });
      expect(probe.counts.started).toBe(3);
      writer.close();
    } finally {
      probe.restore();
    }
  });
});

describe('the recorder', () => {
  const transition = (state: LoopState) => ({ type: 'transition' as const, state, event: 'E', turnCount: 1, transitionReason: null, exitReason: null });
  const types = (path: string) =>
    readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);

  it("writes a step's records when the step ends, a tool_start at once with all before it, and the prompt and the result at once", async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-writer-'));
    const recorder = startSession(home, { cwd: '/', model: 'm' }, { durable: false });
    recorder.prompt('go');
    expect(types(recorder.path)).toEqual(['session', 'prompt']);
    recorder.onEvent(transition('callingModel'));
    recorder.onEvent({ type: 'decision', state: 'checkingReply', guard: 'needsFollowUp', target: 'executingTools' });
    expect(types(recorder.path)).toEqual(['session', 'prompt']);
    await null; // the step is over
    expect(types(recorder.path)).toEqual(['session', 'prompt', 'transition', 'decision']);
    recorder.onEvent(transition('executingTools'));
    recorder.onEvent({ type: 'tool_start', block: { type: 'tool_use', id: 't1', name: 'bash', input: {} } });
    expect(types(recorder.path).slice(-2)).toEqual(['transition', 'tool_start']);
    recorder.onEvent(transition('appendingResults'));
    recorder.flush();
    expect(types(recorder.path).at(-1)).toBe('transition');
    recorder.onEvent(transition('done'));
    recorder.finish({ state: 'done', durationMs: 1, context: { exitReason: 'completed', stopReason: null, turnCount: 1, usage: {}, turnUsage: [] } as never });
    expect(types(recorder.path).slice(-2)).toEqual(['transition', 'result']);
    recorder.close();
    const lines = readFileSync(recorder.path, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[2] as string)).toMatchObject({ type: 'transition', state: 'callingModel', turnCount: 1 });
    expect(Object.keys(JSON.parse(lines[2] as string)).at(-1)).toBe('at');
  });
});
