/**
 * Reading sessions costs what it reads (issue 24, item 10): `--continue`'s lookup reads headers only, newest first,
 * until one is of the directory; the viewer's list and `agentloop sessions` read each session's head and tail (the
 * viewer's first pick, the headers only).
 * Counted in bytes read from the disk (every `fs` read of the process is counted while the call runs), with
 * transcripts of 64 KiB each, so that reading any of them whole shows; a second listing reads the cache beside the
 * transcripts (listCache.ts) and only the transcripts changed since.
 */
import fs, { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAD_BYTES, readHeader, TAIL_BYTES } from '../../src/transcript/headers.js';
import { CACHE_NAME, SETTLED_MS } from '../../src/transcript/listCache.js';
import { listSessions, newestSessionFor } from '../../src/transcript/store.js';
import { TRANSCRIPT_VERSION } from '../../src/transcript/records.js';

const COUNT = 60;
const ZERO = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
let home: string;

/** A transcript of about 64 KiB: header, prompt, filler tool results, and a result record. */
function transcript(id: string, cwd: string, extra: string[] = []): string {
  const at = '2026-01-01T00:00:00.000Z';
  const lines = [
    { type: 'session', version: TRANSCRIPT_VERSION, id, cwd, createdAt: at, model: 'm' },
    { type: 'prompt', at, text: `question ${id}` },
    ...Array.from({ length: 16 }, (_, i) => ({ type: 'tool_result', at, toolUseId: `t${i}`, name: 'bash', result: { type: 'tool_result', tool_use_id: `t${i}`, content: 'y'.repeat(4000) } })),
    { type: 'transition', at, state: 'done', event: 'x', turnCount: 3, transitionReason: null, exitReason: 'completed' },
    { type: 'result', at, state: 'done', exitReason: 'completed', stopReason: 'end_turn', turnCount: 3, usage: ZERO, turnUsage: [], durationMs: 1 },
  ].map((r) => JSON.stringify(r));
  return `${[...lines, ...extra].join('\n')}\n`;
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-readcost-'));
  mkdirSync(join(home, 'sessions'));
  const base = Date.now() / 1000 - 10_000;
  for (let i = 0; i < COUNT; i++) {
    const id = `s${String(i).padStart(3, '0')}`;
    const path = join(home, 'sessions', `${id}.jsonl`);
    writeFileSync(path, transcript(id, `/dir${i % 3}`));
    utimesSync(path, base + i, base + i);
  }
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Bytes read by `fn` through fs.readSync and fs.readFileSync (the ESM bindings too). */
function bytesRead(fn: () => unknown): number {
  const { readSync, readFileSync } = fs;
  let total = 0;
  fs.readSync = ((...args: Parameters<typeof readSync>) => {
    const n = readSync(...args);
    total += n;
    return n;
  }) as typeof readSync;
  fs.readFileSync = ((...args: Parameters<typeof readFileSync>) => {
    const content = readFileSync(...args);
    total += content.length;
    return content;
  }) as typeof readFileSync;
  syncBuiltinESMExports();
  try {
    fn();
  } finally {
    fs.readSync = readSync;
    fs.readFileSync = readFileSync;
    syncBuiltinESMExports();
  }
  return total;
}

describe('newestSessionFor (--continue)', () => {
  it('reads the headers of the newest transcripts only, until one is of the directory', () => {
    let found: ReturnType<typeof newestSessionFor>;
    const bytes = bytesRead(() => (found = newestSessionFor(home, '/dir0')));
    expect(found?.id).toBe('s057'); // 59 is dir2, 58 dir1, 57 dir0
    expect(bytes).toBeLessThanOrEqual(3 * 4096);
    expect(bytesRead(() => newestSessionFor(home, '/elsewhere'))).toBeLessThanOrEqual(COUNT * 4096);
  });
});

describe('listSessions', () => {
  it('reads each head for the headers, head and tail for the viewer list and `sessions`; never a transcript whole', () => {
    let headers: ReturnType<typeof listSessions> = [];
    expect(bytesRead(() => (headers = listSessions(home, { read: 'headers' })))).toBeLessThanOrEqual(COUNT * HEAD_BYTES);
    expect(headers[0]).toMatchObject({ id: 's059', firstPrompt: 'question s059', exitReason: null, running: null });
    let summaries: ReturnType<typeof listSessions> = [];
    expect(bytesRead(() => (summaries = listSessions(home)))).toBeLessThanOrEqual(COUNT * (HEAD_BYTES + TAIL_BYTES));
    expect(summaries.map((s) => s.id)).toEqual(Array.from({ length: COUNT }, (_, i) => `s${String(COUNT - 1 - i).padStart(3, '0')}`));
    expect(summaries[0]).toMatchObject({ firstPrompt: 'question s059', exitReason: 'completed', turns: 3, problems: [] });
  });

  it('tells from the tail how a long transcript ends: interrupted after its last result, a torn or too long last line', () => {
    const dir = join(home, 'sessions');
    const at = '2026-01-01T00:00:00.000Z';
    const reopened = JSON.stringify({ type: 'prompt', at, text: 'again' });
    writeFileSync(join(dir, 'zz-open.jsonl'), transcript('zz-open', '/o', [reopened]));
    writeFileSync(join(dir, 'zz-torn.jsonl'), transcript('zz-torn', '/o', [reopened, '{"type":"message","in']).replace(/\n$/, ''));
    writeFileSync(join(dir, 'zz-long.jsonl'), transcript('zz-long', '/o', [reopened, JSON.stringify({ type: 'tool_start', at, block: { type: 'tool_use', id: 'x', name: 'bash', input: { command: 'z'.repeat(TAIL_BYTES * 2) } } })]));
    try {
      const byId = new Map(listSessions(home).map((s) => [s.id, s]));
      expect(byId.get('zz-open')).toMatchObject({ exitReason: 'interrupted', problems: [] });
      expect(byId.get('zz-torn')).toMatchObject({ exitReason: 'interrupted', problems: ['the last line (unfinished): not valid JSON (cut off by a crash?): skipped'] });
      expect(byId.get('zz-long')).toMatchObject({ exitReason: 'interrupted', problems: [] });
    } finally {
      for (const name of ['zz-open', 'zz-torn', 'zz-long']) rmSync(join(dir, `${name}.jsonl`));
    }
  });

  it('gives the start of a first question longer than the head, and reads a header longer than 4 KiB', () => {
    const dir = join(home, 'sessions');
    const at = '2026-01-01T00:00:00.000Z';
    const cwd = `/${'d'.repeat(6000)}`;
    const lines = [
      JSON.stringify({ type: 'session', version: TRANSCRIPT_VERSION, id: 'zz-prompt', cwd, createdAt: at, model: 'm' }),
      JSON.stringify({ type: 'prompt', at, text: `"quoted" é ${'q'.repeat(HEAD_BYTES * 2)}` }),
    ];
    writeFileSync(join(dir, 'zz-prompt.jsonl'), `${lines.join('\n')}\n`);
    try {
      expect(readHeader(join(dir, 'zz-prompt.jsonl'))?.cwd).toBe(cwd);
      const summary = listSessions(home, { read: 'headers' }).find((s) => s.id === 'zz-prompt');
      expect(summary?.firstPrompt.startsWith('"quoted" é qqq')).toBe(true);
      expect(summary?.firstPrompt.length).toBeLessThan(HEAD_BYTES);
    } finally {
      rmSync(join(dir, 'zz-prompt.jsonl'));
    }
  });

  it('lists a home unchanged since its last listing from the cache beside it, reading no transcript; one appended since is read again, alone', async () => {
    await new Promise((resolve) => setTimeout(resolve, SETTLED_MS + 150)); // the transcripts settle (listCache.ts)
    const first = listSessions(home);
    const cache = statSync(join(home, 'sessions', CACHE_NAME)).size;
    let again: ReturnType<typeof listSessions> = [];
    expect(bytesRead(() => (again = listSessions(home)))).toBe(cache);
    expect(again).toEqual(first);
    appendFileSync(join(home, 'sessions', 's010.jsonl'), `${JSON.stringify({ type: 'prompt', at: '2026-01-01T00:00:00.000Z', text: 'again' })}\n`);
    const bytes = bytesRead(() => (again = listSessions(home)));
    expect(bytes).toBeGreaterThan(cache);
    expect(bytes).toBeLessThanOrEqual(cache + HEAD_BYTES + TAIL_BYTES);
    expect(again[0]).toMatchObject({ id: 's010', exitReason: 'interrupted', turns: 3 });
    expect(again.slice(1)).toEqual(first.filter((s) => s.id !== 's010'));
  });
});
