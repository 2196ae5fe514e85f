/** The transcript writer: records in the kernel at once, flushed to the disk off the main thread. */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRANSCRIPT_VERSION, type SessionHeader } from '../../src/session/records.js';
import { TranscriptWriter } from '../../src/session/store.js';

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
