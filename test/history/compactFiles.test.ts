/**
 * The files a compaction attaches (history/compactFiles.ts, run/compactFiles.ts) against Claude Code 2.1.197's
 * (./claudeCompactFiles.json, recorded by ./recordClaudeCompactFiles.ts): for each recorded case the same files are
 * read by agentloop's Read tool, changed or deleted as there, and re-read: the same attachments, text for text.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import type { Tool } from '../../src/core/tool.js';
import { filesToRestore, readAttachment, RESTORE_MAX_FILES, restoreBudget, withAttachments, withinBudget } from '../../src/history/compactFiles.js';
import { restoredFiles } from '../../src/run/compactFiles.js';
import { createFileTools } from '../../src/tools/fileAccess/fileTools.js';
import { CASES, FIXTURE, type FilesCase } from './recordClaudeCompactFiles.js';

const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: Record<string, { attachments: string[] }> };
const signal = new AbortController().signal;
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The case's conversation as agentloop's history: each Read made by the real tool, its result as the model saw it. */
async function conversation(c: FilesCase, read: Tool, dir: string): Promise<MessageParam[]> {
  const messages: MessageParam[] = [{ role: 'user', content: 'read the files' }];
  for (const [i, input] of c.reads.entries()) {
    const full = { ...input, file_path: join(dir, input.file_path) };
    const output = await read.run(full, { signal, cwd: dir });
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: full }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: output.content, ...(output.isError ? { is_error: true } : {}) }] });
  }
  messages.push({ role: 'assistant', content: [{ type: 'text', text: 'done' }] });
  return messages;
}

function folder(c: FilesCase): string {
  const dir = mkdtempSync(join(tmpdir(), 'compact-files-'));
  roots.push(dir);
  for (const [path, text] of Object.entries(c.files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("the files a compaction attaches, as Claude Code's", () => {
  // Claude Code orders by its file state's timestamps, rebuilt at --resume: in `big` it put small.txt (read first)
  // before mid.txt. agentloop orders by the conversation, the latest read first; the set and the texts are the same.
  const byConversation = new Set(['big']);
  for (const c of CASES) {
    it(`${c.name}: the same files, texts and order`, async () => {
      const dir = folder(c);
      const { Read: read } = createFileTools({ cwd: dir });
      const messages = await conversation(c, read, dir);
      for (const [path, text] of Object.entries(c.changed ?? {})) {
        writeFileSync(join(dir, path), text);
        // A change is seen by its time (Read's own rule): one within the read's millisecond would not be.
        utimesSync(join(dir, path), new Date(), new Date(Date.now() + 5000));
      }
      for (const path of c.deleted ?? []) unlinkSync(join(dir, path));
      const got = (await restoredFiles(messages, [], { tools: [read], cwd: dir }, signal)).map((t) => t.split(dir).join('<dir>'));
      // A too-large file's note is written after the files, in the same message (split where Claude Code joins).
      const want = (recorded.cases[c.name]?.attachments ?? []).flatMap((t) => t.split(/\n\n(?=Note: )/));
      expect(want.length).toBeGreaterThan(0);
      if (byConversation.has(c.name)) expect([...got].sort()).toEqual([...want].sort());
      else expect(got).toEqual(want);
    });
  }
});

describe('the plan', () => {
  const read = (id: string, path: string, text: string, input: Record<string, unknown> = {}): MessageParam[] => [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: path, ...input } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
  ];

  it('leaves out a file the kept tail read, one read in part, an error, and keeps at most five', () => {
    const summarized = [
      ...read('a', '/w/a', '1\ta'),
      ...read('b', '/w/b', '1\tb', { offset: 3, limit: 2 }),
      ...read('c', '/w/c', '1\tc'),
      ...Array.from({ length: 6 }, (_, i) => read(`m${i}`, `/w/m${i}`, `1\tm${i}`)).flat(),
    ];
    expect(filesToRestore(summarized, read('t', '/w/m5', '1\tm5'))).toEqual(['/w/m4', '/w/m3', '/w/m2', '/w/m1', '/w/m0']);
    expect(filesToRestore(summarized, [])).toHaveLength(RESTORE_MAX_FILES);
    const failed: MessageParam[] = [...read('e', '/w/e', 'File does not exist.'), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e', content: 'x', is_error: true }] }];
    expect(filesToRestore([...read('a', '/w/a', '1\ta'), ...failed.slice(0, 1), failed[2] as MessageParam], [])).toEqual(['/w/a']);
  });

  it("carries an earlier compaction's attachments into the next one", () => {
    const history = withAttachments([{ role: 'user', content: [{ type: 'text', text: 'summary' }] }], [readAttachment('/w/b', '1\tb'), readAttachment('/w/a', '1\ta')]);
    expect(filesToRestore([...history, ...read('c', '/w/c', '1\tc')], [])).toEqual(['/w/c', '/w/b', '/w/a']);
    expect(history).toHaveLength(1);
    expect((history[0] as { content: unknown[] }).content).toHaveLength(3);
  });

  it("a small window's budget is a quarter of it; Claude Code's 50,000 from 200,000 up", () => {
    expect(restoreBudget(12_000)).toBe(3_000);
    expect(restoreBudget(200_000)).toBe(50_000);
    expect(restoreBudget(1_000_000)).toBe(50_000);
  });

  it('keeps within the budget: one that does not fit is left out, a later smaller one still goes', () => {
    expect(withinBudget(['x'.repeat(400), 'y'.repeat(800), 'z'.repeat(100)], 200)).toEqual(['x'.repeat(400), 'z'.repeat(100)]);
  });
});

describe('a file the run may not read is never attached', () => {
  /** The Read tool with each call it gets noted. */
  function noting(read: Tool, calls: string[]): Tool {
    return { ...read, run: (input, context) => (calls.push(String((input as { file_path: string }).file_path)), read.run(input, context)) };
  }

  it('denied by a Read(...) rule: not read at all; hidden by the file guard: refused by Read, not attached', async () => {
    const dir = folder({ name: 'deny', files: { 'secret/k.txt': 'KEY=1\n', 'hidden.txt': 'HIDDEN\n', 'ok.txt': 'OK\n' }, reads: [] });
    const { Read: before } = createFileTools({ cwd: dir });
    const c: FilesCase = { name: 'deny', files: {}, reads: [{ file_path: 'secret/k.txt' }, { file_path: 'hidden.txt' }, { file_path: 'ok.txt' }] };
    // Read before the rules were there (a session resumed under new settings).
    const messages = await conversation(c, before, dir);
    expect(JSON.stringify(messages)).toContain('KEY=1');
    const calls: string[] = [];
    const { Read: guarded } = createFileTools({ cwd: dir, hide: [join(dir, 'hidden.txt')] });
    const read = noting(guarded, calls);
    const got = await restoredFiles(messages, [], { tools: [read], cwd: dir, denyRules: [{ tool: 'Read', specifier: 'secret/**' }] }, signal);
    expect(got).toEqual([readAttachment(join(dir, 'ok.txt'), '1\tOK\n2\t')]);
    expect(calls).not.toContain(join(dir, 'secret/k.txt'));
    expect(got.join('\n')).not.toMatch(/KEY=1|HIDDEN/);
  });

  it('no Read tool in the run: nothing is attached', async () => {
    const messages: MessageParam[] = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Read', input: { file_path: '/etc/hostname' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: '1\thost' }] },
    ];
    expect(await restoredFiles(messages, [], { tools: [], cwd: '/' }, signal)).toEqual([]);
  });
});
