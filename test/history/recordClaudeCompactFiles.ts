/**
 * Records which files Claude Code 2.1.197 re-reads and attaches after a compaction, in what order and text, into
 * ./claudeCompactFiles.json: each case reads files with the Read tool (-p, stream-json), changes or deletes some on
 * disk, `/compact`s the resumed session, then asks one more question with --resume; the fixture keeps the messages
 * that question's request carries after the summary. agentloop's plan (history/compactFiles.ts) is held to it
 * (compactFiles.test.ts). To re-record:
 *
 *   npx tsx test/history/recordClaudeCompactFiles.ts
 *
 * Found so: at most 5 files, the latest read first; a file's content at most 5,000 tokens (a larger one: a note after
 * the files); 50,000 tokens in all; a changed file as it is now, with or without an exchange after the reads
 * (twoChanged, twoChangedDirect); a deleted one and one read with offset/limit not attached. Its order follows its file
 * state's timestamps rebuilt at --resume: in `big` small.txt (read first) came before mid.txt.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { claudeCodeEnv, recordCases, runToEnd } from '../support/claudeCode.js';
import type { ReplyStep, RequestBody } from '../support/messagesServer.js';

export const FIXTURE = new URL('./claudeCompactFiles.json', import.meta.url);
const SUMMARY = '<analysis>the analysis</analysis>\n<summary>1. Primary Request and Intent: read the files.</summary>';

export interface FilesCase {
  name: string;
  files: Record<string, string>;
  /** The Read calls, in order, one a reply (paths relative to the case's folder). */
  reads: { file_path: string; offset?: number; limit?: number }[];
  changed?: Record<string, string>;
  deleted?: string[];
  /** No second exchange before the change and /compact (the session of one -p run, as the lead ran it). */
  direct?: boolean;
}

const lines = (n: number, width = 10) => Array.from({ length: n }, (_, i) => `line ${i + 1} ${'x'.repeat(width)}`).join('\n') + '\n';

export const CASES: FilesCase[] = [
  { name: 'two', files: { 'notes.txt': 'AAA\n', 'b.txt': 'BBB\n' }, reads: [{ file_path: 'notes.txt' }, { file_path: 'b.txt' }] },
  { name: 'twoChanged', files: { 'notes.txt': 'AAA\n', 'b.txt': 'BBB\n' }, reads: [{ file_path: 'notes.txt' }, { file_path: 'b.txt' }], changed: { 'notes.txt': 'CHANGED\n' } },
  { name: 'lastChanged', files: { 'a.txt': 'AAA\n', 'b.txt': 'BBB\n' }, reads: [{ file_path: 'a.txt' }, { file_path: 'b.txt' }], changed: { 'b.txt': 'NEW B\n' } },
  { name: 'deleted', files: { 'a.txt': 'AAA\n', 'b.txt': 'BBB\n', 'c.txt': 'CCC\n' }, reads: [{ file_path: 'a.txt' }, { file_path: 'b.txt' }, { file_path: 'c.txt' }], deleted: ['b.txt'] },
  { name: 'reread', files: { 'a.txt': 'AAA\n', 'b.txt': 'BBB\n', 'c.txt': 'CCC\n' }, reads: [{ file_path: 'a.txt' }, { file_path: 'b.txt' }, { file_path: 'c.txt' }, { file_path: 'a.txt' }] },
  {
    name: 'many',
    files: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i + 1}.txt`, `content ${i + 1}\n`])),
    reads: Array.from({ length: 8 }, (_, i) => ({ file_path: `f${i + 1}.txt` })),
  },
  { name: 'big', files: { 'small.txt': 'SMALL\n', 'big.txt': lines(1500, 30), 'mid.txt': lines(400, 30) }, reads: [{ file_path: 'small.txt' }, { file_path: 'big.txt' }, { file_path: 'mid.txt' }] },
  { name: 'twoChangedDirect', files: { 'notes.txt': 'AAA\n', 'b.txt': 'BBB\n' }, reads: [{ file_path: 'notes.txt' }, { file_path: 'b.txt' }], changed: { 'notes.txt': 'CHANGED\n' }, direct: true },
  { name: 'range', files: { 'r.txt': lines(10), 'q.txt': 'QQQ\n' }, reads: [{ file_path: 'q.txt' }, { file_path: 'r.txt', offset: 3, limit: 2 }] },
];

function toolResults(body: RequestBody): number {
  return body.messages.reduce((n, m) => n + (typeof m.content === 'string' ? 0 : m.content.filter((b) => b.type === 'tool_result').length), 0);
}

function lastUserText(body: RequestBody): string {
  const last = body.messages.at(-1);
  if (!last || typeof last.content === 'string') return String(last?.content ?? '');
  return last.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/** The model: the summary for a summary request; the case's reads one a reply while the first question runs; else text. */
function answer(c: FilesCase, dir: string) {
  return (body: RequestBody): ReplyStep => {
    if (/summary/i.test(lastUserText(body)) && /analysis/i.test(lastUserText(body))) return { content: [{ type: 'text', text: SUMMARY }], stop_reason: 'end_turn' };
    const first = JSON.stringify(body.messages[0] ?? '');
    const done = toolResults(body);
    if (body.tools?.length && first.includes('read the files') && !JSON.stringify(body.messages).includes('and then') && done < c.reads.length) {
      const read = c.reads[done] as FilesCase['reads'][number];
      return { content: [{ type: 'tool_use', id: `toolu_read${done}`, name: 'Read', input: { ...read, file_path: join(dir, read.file_path) } }], stop_reason: 'tool_use' };
    }
    return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
  };
}

/** A message of the recorded request, its folder as <dir> and long texts cut (their length kept). */
function shown(message: RequestBody['messages'][number], dir: string): unknown {
  const clean = (t: string) => t.split(dir).join('<dir>');
  const block = (b: Exclude<typeof message.content, string>[number]) => {
    if (b.type !== 'text') return { type: b.type };
    const text = clean(b.text);
    return { type: 'text', length: text.length, text: text.length > 1200 ? `${text.slice(0, 800)}…${text.slice(-300)}` : text };
  };
  return { role: message.role, content: typeof message.content === 'string' ? [block({ type: 'text', text: message.content } as never)] : message.content.map(block) };
}

async function main(): Promise<void> {
  await recordCases({
    fixture: FIXTURE,
    command: 'npx tsx test/history/recordClaudeCompactFiles.ts',
    // CASE=name records that case alone (the fixture is then that case: merge it by hand).
    cases: process.env.CASE ? CASES.filter((c) => c.name === process.env.CASE) : CASES,
    async record(c, { executable, server }) {
      const root = mkdtempSync(join(tmpdir(), 'cc-compact-files-'));
      const home = join(root, 'home');
      const dir = join(root, 'work');
      mkdirSync(home);
      for (const [path, text] of Object.entries(c.files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      for (let i = 0; i < 80; i++) server.enqueue(answer(c, dir));
      const env = claudeCodeEnv(home, server.url);
      try {
        const first = await runToEnd(executable, ['-p', 'read the files', '--output-format', 'stream-json', '--verbose'], { cwd: dir, env });
        const init = first.stdout.split('\n').find((l) => l.includes('"init"'));
        const sessionId = (JSON.parse(init ?? '{}') as { session_id?: string }).session_id ?? '';
        if (!c.direct) await runToEnd(executable, ['-p', 'and then', '--resume', sessionId], { cwd: dir, env });
        for (const [path, text] of Object.entries(c.changed ?? {})) writeFileSync(join(dir, path), text);
        for (const path of c.deleted ?? []) unlinkSync(join(dir, path));
        const compact = await runToEnd(executable, ['-p', '/compact', '--resume', sessionId, '--output-format', 'stream-json', '--verbose'], { cwd: dir, env });
        const sent = server.requests.length;
        await runToEnd(executable, ['-p', 'next question', '--resume', sessionId], { cwd: dir, env });
        const next = server.requests.slice(sent).find((r) => JSON.stringify(r.body?.messages ?? []).includes('next question'));
        const messages = next?.body?.messages ?? [];
        const summaryAt = messages.findIndex((m) => JSON.stringify(m.content).includes('This session is being continued'));
        const attached = messages.slice(summaryAt + 1).flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : []))));
        return {
          compacted: compact.stdout.includes('compact_boundary'),
          // Each re-read file's text whole (the message holds other reminders after them, cut at the blank line before the next).
          attachments: attached.flatMap((t) => t.split(dir).join('<dir>').split(/\n\n(?=Called the Read tool|Available agent types|The following)/)).filter((t) => t.startsWith('Called the Read tool')),
          afterSummary: messages.slice(summaryAt + 1).map((m) => shown(m, dir)),
          summaryMessage: summaryAt >= 0 ? shown(messages[summaryAt] as never, dir) : null,
        };
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  });
}

if (process.argv[1]?.endsWith('recordClaudeCompactFiles.ts')) await main();
