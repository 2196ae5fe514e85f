/**
 * A transcript read lazily for the viewer (src/transcript/reader.ts): only what was added since the last read, a
 * long record's long strings cut with a note, the whole record served on demand by the viewer's
 * `/api/sessions/ID/lines/N`; the viewer's list reads each session's head and tail (never a transcript whole).
 */
import fs, { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cutLongStrings, LineCutter } from '../../src/transcript/cutJson.js';
import { lineAt, TranscriptReader } from '../../src/transcript/reader.js';
import { TRANSCRIPT_VERSION } from '../../src/transcript/records.js';
import { lockSession } from '../../src/transcript/lock.js';
import { readTranscript, transcriptPath } from '../../src/transcript/store.js';
import { startViewer } from '../../src/view/server/server.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-lazy-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const at = '2026-01-01T00:00:00.000Z';
const header = (id: string) => JSON.stringify({ type: 'session', version: TRANSCRIPT_VERSION, id, cwd: '/w', createdAt: at, model: 'm' });
const prompt = (text: string) => JSON.stringify({ type: 'prompt', text, at });
const message = (index: number, text: string) => JSON.stringify({ type: 'message', index, message: { role: index % 2 ? 'assistant' : 'user', content: [{ type: 'text', text }] }, at });

function write(id: string, lines: string[]): string {
  const path = transcriptPath(home, id);
  mkdirSync(join(home, 'sessions'), { recursive: true });
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('TranscriptReader', () => {
  it('reads only what was added, a torn last line again once it is whole, a replaced file from its start', () => {
    const path = join(home, 'a.jsonl');
    writeFileSync(path, `${header('a')}\n${prompt('hi')}\n`);
    const reader = new TranscriptReader(path);
    expect(reader.read().records.map((r) => r.type)).toEqual(['session', 'prompt']);
    appendFileSync(path, `${message(0, 'hi')}\n{"type":"mess`);
    const torn = reader.read();
    expect(torn.records.map((r) => r.type)).toEqual(['session', 'prompt', 'message']);
    expect(torn.problems).toEqual(['line 4 (the last, unfinished): not valid JSON (cut off by a crash?): skipped']);
    appendFileSync(path, `age","index":1,"message":{"role":"assistant","content":[{"type":"text","text":"yo"}]},"at":"${at}"}\n`);
    const whole = reader.read();
    expect(whole.records.map((r) => r.type)).toEqual(['session', 'prompt', 'message', 'message']);
    expect(whole.problems).toEqual([]);
    writeFileSync(`${path}.new`, `${header('b')}\n`);
    renameSync(`${path}.new`, path);
    expect(reader.read()).toMatchObject({ header: { id: 'b' }, records: [{ type: 'session' }], problems: [] });
  });

  it('cuts the long strings of a long line, says where the whole record is, and lineAt gives it byte for byte', async () => {
    const big = `start ${'é'.repeat(300_000)} end`;
    const path = join(home, 'b.jsonl');
    const lines = [header('b'), prompt('q'), message(0, 'q'), message(1, big), message(2, 'after')];
    writeFileSync(path, `${lines.join('\n')}\n`);
    const read = new TranscriptReader(path, { keepBytes: 100 }).read();
    expect(read.problems).toEqual([]);
    expect(read.records).toHaveLength(5);
    const cutMessage = read.records[3] as { message: { content: Array<{ text: string }> } };
    const shown = cutMessage.message.content[0]?.text as string;
    // 100 bytes of the string's JSON: 'start ' and 47 two-byte characters.
    const left = Buffer.byteLength(big) - 100;
    expect(shown).toBe(`${big.slice(0, 53)}… [cut here: ${left.toLocaleString('en-US')} more bytes of JSON; the whole record is line 4 of the transcript]`);
    expect(read.records[4]).toMatchObject({ message: { content: [{ text: 'after' }] } });
    const offset = Buffer.byteLength(`${lines.slice(0, 3).join('\n')}\n`);
    expect(read.cuts).toEqual([{ line: 4, offset, bytes: Buffer.byteLength(lines[3] as string) }]);
    expect(await text(lineAt(path, offset))).toBe(lines[3]);
  });
});

describe('cutLongStrings', () => {
  it('always leaves JSON of the same shape, keys whole, each string whole or a prefix of it and the note (random values, any cut length)', () => {
    const note = (left: number) => `<${left} cut>`;
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.integer({ min: 0, max: 24 }), (value, keep) => {
        const json = JSON.stringify(value);
        const cut = cutLongStrings(Buffer.from(json), keep, note);
        const parsed = JSON.parse(cut ?? json) as unknown;
        same(JSON.parse(json), parsed, keep);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('reading in pieces', () => {
  it('a line fed to the cutter in any pieces is cut as when it is fed whole (random values, cut lengths and piece ends)', () => {
    const note = (left: number) => `<${left} cut>`;
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.integer({ min: 0, max: 24 }), fc.array(fc.nat(), { maxLength: 8 }), (value, keep, ends) => {
        const json = Buffer.from(JSON.stringify(value));
        const cutter = new LineCutter({ keep, note, reread: (start, end) => json.subarray(start, end) });
        let from = 0;
        for (const end of [...new Set(ends.map((n) => n % (json.length + 1)))].sort((a, b) => a - b).concat(json.length)) {
          cutter.feed(json.subarray(from, end));
          from = end;
        }
        expect(cutter.finish()).toBe(cutLongStrings(json, keep, note) ?? json.toString());
      }),
      { numRuns: 2000 },
    );
  });

  it('reads what readTranscript reads, damaged lines and problems included, whatever the chunk size and wherever a read stops', () => {
    const valid = [prompt('q'), message(0, 'q'), message(1, 'a "quoted" \\ reply é'), message(2, 'more')];
    const damaged = ['{"type":"message","index":0,"message":{"role":"user","content":[{"type":"tool_result","content":"x"}]},"at":"x"}', '{"type":"usage"}', '[1,2]'];
    const broken = ['{"type":"mess', 'not json', '', '   '];
    const line = fc.oneof(fc.constantFrom(...valid), fc.constantFrom(...damaged), fc.constantFrom(...broken));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 1, max: 64 }), fc.nat(), (lines, newlineAtEnd, chunkBytes, stopAt) => {
        const path = join(home, 'p.jsonl');
        const text = `${[header('p'), ...lines].join('\n')}${newlineAtEnd ? '\n' : ''}`;
        const stop = stopAt % (Buffer.byteLength(text) + 1);
        writeFileSync(path, Buffer.from(text).subarray(0, stop));
        const reader = new TranscriptReader(path, { chunkBytes });
        reader.read();
        writeFileSync(path, text); // the same file, grown
        const { path: _, ...whole } = readTranscript(path);
        const { cuts, ...read } = reader.read();
        expect(read).toEqual(whole);
        expect(cuts).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('cuts the same long lines the same way whatever the chunk size', () => {
    const long = (n: number, text: string) => message(n, text.repeat(40));
    fc.assert(
      fc.property(fc.array(fc.constantFrom('ab', 'é\\"x', '\\', 'z'), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 300 }), (texts, chunkBytes) => {
        const path = join(home, 'c.jsonl');
        writeFileSync(path, `${[header('c'), prompt('q'), ...texts.map((t, i) => long(i, t))].join('\n')}\n`);
        const options = { longLineBytes: 100, keepBytes: 10 };
        expect(new TranscriptReader(path, { ...options, chunkBytes }).read()).toEqual(new TranscriptReader(path, options).read());
      }),
      { numRuns: 300 },
    );
  });
});

/** `b` is `a` with strings longer than `keep` bytes of JSON cut to a prefix and a note. */
function same(a: unknown, b: unknown, keep: number): void {
  if (typeof a === 'string') {
    expect(typeof b).toBe('string');
    if (a === b) return;
    const [, kept, left] = /^([\s\S]*)<(\d+) cut>$/.exec(b as string) ?? [];
    expect(a.startsWith(kept as string)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(a)) - 2).toBeGreaterThan(keep);
    expect(Buffer.byteLength(JSON.stringify(kept)) - 2 + Number(left)).toBe(Buffer.byteLength(JSON.stringify(a)) - 2);
    return;
  }
  if (Array.isArray(a)) {
    expect((b as unknown[]).length).toBe(a.length);
    a.forEach((item, i) => same(item, (b as unknown[])[i], keep));
    return;
  }
  if (a !== null && typeof a === 'object') {
    expect(Object.keys(b as object)).toEqual(Object.keys(a));
    for (const [key, item] of Object.entries(a)) same(item, (b as Record<string, unknown>)[key], keep);
    return;
  }
  expect(b).toEqual(a);
}

describe('the viewer', () => {
  it('sends a timeline with a 5 MB record cut, the record whole on demand, and a session list that shows a running session', async () => {
    const big = 'x'.repeat(5 * 2 ** 20);
    const lines = [header('big'), prompt('q'), message(0, 'q'), message(1, big)];
    const path = write('big', lines);
    const lock = lockSession(path);
    const viewer = await startViewer({ home, sessionId: 'big' });
    try {
      const get = (p: string) => fetch(`http://127.0.0.1:${viewer.port}${p}`, { headers: { authorization: `Bearer ${viewer.token}` } });
      const timeline = await (await get('/api/sessions/big')).text();
      expect(timeline.length).toBeLessThan(100_000);
      expect(timeline).toContain('the whole record is line 4 of the transcript');
      const whole = await get('/api/sessions/big/lines/4');
      expect(whole.status).toBe(200);
      expect(await whole.text()).toBe(lines[3]);
      expect((await get('/api/sessions/big/lines/2')).status).toBe(404);
      const list = (await (await get('/api/sessions')).json()) as Array<Record<string, unknown>>;
      expect(list).toEqual([expect.objectContaining({ id: 'big', firstPrompt: 'q', exitReason: 'running', running: expect.objectContaining({ pid: process.pid }) })]);
      expect(readFileSync(path, 'utf8')).toBe(`${lines.join('\n')}\n`);
    } finally {
      await viewer.close();
      lock.release();
    }
  });

  it('opens a session with two 8 MB records reading its file once, never more than 1 MiB at a time, over HTTP and then over events', async () => {
    const big = 'x'.repeat(8 * 2 ** 20);
    const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: big };
    const use = { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'yes' } };
    const lines = [
      header('two'),
      prompt('q'),
      message(0, 'q'),
      JSON.stringify({ type: 'message', index: 1, message: { role: 'assistant', content: [use] }, at }),
      JSON.stringify({ type: 'tool_result', at, toolUseId: 'toolu_1', name: 'bash', result }),
      JSON.stringify({ type: 'message', index: 2, message: { role: 'user', content: [result] }, at }),
    ];
    const path = write('two', lines);
    const viewer = await startViewer({ home, sessionId: 'two' });
    const reads = countReads();
    try {
      const get = (p: string) => fetch(`http://127.0.0.1:${viewer.port}${p}`, { headers: { authorization: `Bearer ${viewer.token}` } });
      const timeline = await (await get('/api/sessions/two')).text();
      expect(timeline).toContain('the whole record is line 5 of the transcript');
      expect(timeline).toContain('the whole record is line 6 of the transcript');
      expect(timeline.length).toBeLessThan(200_000);
      const events = await get('/api/sessions/two/events');
      const first = await firstEvent(events);
      expect(first).toContain('event: timeline');
      expect(first).toContain('the whole record is line 6 of the transcript');
      expect(reads.bytes).toBe(statSync(path).size);
      expect(reads.largest).toBeLessThanOrEqual(2 ** 20);
    } finally {
      reads.stop();
      await viewer.close();
    }
  });
});

/** Counts what fs.readSync reads (the ESM binding too) until `stop()`: the bytes, and the largest buffer read into. */
function countReads() {
  const { readSync } = fs;
  const counted = { bytes: 0, largest: 0 };
  fs.readSync = ((fd: number, buffer: NodeJS.ArrayBufferView, ...rest: unknown[]) => {
    const n = (readSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
    counted.bytes += n;
    counted.largest = Math.max(counted.largest, buffer.byteLength);
    return n;
  }) as typeof readSync;
  syncBuiltinESMExports();
  return {
    get bytes() {
      return counted.bytes;
    },
    get largest() {
      return counted.largest;
    },
    stop() {
      fs.readSync = readSync;
      syncBuiltinESMExports();
    },
  };
}

/** The first server-sent event of a response (read until its blank line), the stream then cancelled. */
async function firstEvent(response: Response): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}
