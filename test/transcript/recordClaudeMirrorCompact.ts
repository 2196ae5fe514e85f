/**
 * Records the lines Claude Code 2.1.197 writes in its session file (`$CLAUDE_CONFIG_DIR/projects/<cwd>/<id>.jsonl`)
 * when it compacts (`/compact` in -p mode on a resumed session of three exchanges), and the messages its next
 * `--resume` sends, into ./claudeMirrorCompact.json: agentloop's mirror (src/transcript/claudeMirror.ts) writes a
 * compaction as these lines (claudeMirrorCompact.test.ts). To re-record:
 *
 *   npx tsx test/transcript/recordClaudeMirrorCompact.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeCodeBinary, claudeCodeEnv, claudeCodeVersion, runToEnd } from '../support/claudeCode.js';
import { startMessagesServer, type ReplyStep, type RequestBody } from '../support/messagesServer.js';

export const FIXTURE = new URL('./claudeMirrorCompact.json', import.meta.url);
const SUMMARY = '<analysis>the analysis</analysis>\n<summary>1. Primary Request and Intent: count to three.</summary>';

function lastUserText(body: RequestBody | undefined): string {
  const last = body?.messages.at(-1);
  if (!last || typeof last.content === 'string') return String(last?.content ?? '');
  return last.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n---\n');
}

/** A line with its ids, times and paths as placeholders: what stays the same from one recording to the next. */
function shapeOf(line: Record<string, unknown>, ids: Map<string, string>): Record<string, unknown> {
  const text = JSON.stringify(line, (key, value: unknown) => {
    if (typeof value !== 'string') return value;
    if (/^[0-9a-f-]{36}$/.test(value)) {
      if (!ids.has(value)) ids.set(value, `<uuid${ids.size}>`);
      return ids.get(value);
    }
    if (key === 'timestamp') return '<time>';
    return value;
  });
  return JSON.parse(text) as Record<string, unknown>;
}

async function main(): Promise<void> {
  const executable = claudeCodeBinary();
  const root = mkdtempSync(join(tmpdir(), 'cc-mirror-compact-'));
  const home = join(root, 'home');
  const dir = join(root, 'work');
  mkdirSync(home);
  mkdirSync(dir);
  const server = await startMessagesServer();
  for (let i = 0; i < 40; i++) {
    server.enqueue((body): ReplyStep => ({ content: [{ type: 'text', text: /summary/i.test(lastUserText(body)) ? SUMMARY : 'one two three' }], stop_reason: 'end_turn' }));
  }
  const env = claudeCodeEnv(home, server.url);
  try {
    const first = await runToEnd(executable, ['-p', 'count to three', '--output-format', 'stream-json', '--verbose'], { cwd: dir, env });
    const init = first.stdout.split('\n').find((l) => l.includes('"init"'));
    const sessionId = (JSON.parse(init ?? '{}') as { session_id?: string }).session_id ?? '';
    for (const q of ['and to four', 'and to five']) await runToEnd(executable, ['-p', q, '--resume', sessionId], { cwd: dir, env });
    const projects = join(home, '.claude', 'projects');
    const file = join(projects, readdirSync(projects)[0] as string, `${sessionId}.jsonl`);
    const before = readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
    await runToEnd(executable, ['-p', '/compact keep the numbers', '--resume', sessionId], { cwd: dir, env });
    const afterCompact = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const sent = server.requests.length;
    await runToEnd(executable, ['-p', 'and to six', '--resume', sessionId], { cwd: dir, env });
    const resumed = server.requests.slice(sent).find((r) => JSON.stringify(r.body?.messages ?? []).includes('and to six'));
    const ids = new Map<string, string>();
    const lines = afterCompact.map((l) => JSON.parse(l) as Record<string, unknown>);
    const fixture = {
      recordedWith: claudeCodeVersion(executable),
      command: 'npx tsx test/transcript/recordClaudeMirrorCompact.ts',
      linesBefore: before,
      compactLines: lines.slice(before).map((l) => shapeOf(l, ids)),
      lastLineBefore: shapeOf(lines[before - 1] ?? {}, ids),
      resumedMessages: (resumed?.body?.messages ?? []).map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text.slice(0, 400) : `[${b.type}]`)) })),
    };
    writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
    process.stdout.write(`recorded: ${lines.length - before} lines after the compaction\n`);
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('recordClaudeMirrorCompact.ts')) await main();
