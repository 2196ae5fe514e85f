/**
 * Records what Claude Code 2.1.197 sends and prints when it compacts by hand (`/compact INSTRUCTIONS` in -p mode, on a
 * resumed session) into ./claudeCompact.json: the summary request's last user message (its compact prompt), its
 * system prompt's first line, and the `system/compact_boundary` line of stream-json. agentloop's prompt
 * (core/prompts.ts) and its stream-json line are held to it (compactShapes.test.ts). To re-record:
 *
 *   CLAUDE_CODE=/work/main/bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe npx tsx test/history/recordClaudeCompact.ts
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMessagesServer, type ReplyStep, type RequestBody } from '../support/messagesServer.js';

export const FIXTURE = new URL('./claudeCompact.json', import.meta.url);

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function lastUserText(body: RequestBody | undefined): string {
  const last = body?.messages.at(-1);
  if (!last || typeof last.content === 'string') return String(last?.content ?? '');
  return last.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n---\n');
}

async function main(): Promise<void> {
  const executable = process.env.CLAUDE_CODE;
  if (!executable) throw new Error('set CLAUDE_CODE to the claude binary (see the comment at the top)');
  const version = spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const root = mkdtempSync(join(tmpdir(), 'cc-compact-'));
  const home = join(root, 'home');
  const dir = join(root, 'work');
  mkdirSync(home);
  mkdirSync(dir);
  const server = await startMessagesServer();
  // Claude Code asks side questions (titles, ...) too: every request gets a short text answer, the summary one the summary.
  const summary = '<analysis>the analysis</analysis>\n<summary>1. Primary Request and Intent: count to three.</summary>';
  for (let i = 0; i < 30; i++) {
    server.enqueue((body): ReplyStep => ({ content: [{ type: 'text', text: /summary/i.test(lastUserText(body)) ? summary : 'one two three' }], stop_reason: 'end_turn' }));
  }
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-ant-test-record',
    ANTHROPIC_BASE_URL: server.url,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  try {
    const first = await run(executable, ['-p', 'count to three', '--output-format', 'stream-json', '--verbose'], dir, env);
    const init = first.stdout.split('\n').find((l) => l.includes('"init"'));
    const sessionId = (JSON.parse(init ?? '{}') as { session_id?: string }).session_id ?? '';
    // A session of a few exchanges: with one, Claude Code answers "Not enough messages to compact."
    for (const q of ['and to four', 'and to five']) await run(executable, ['-p', q, '--resume', sessionId, '--output-format', 'stream-json', '--verbose'], dir, env);
    const before = server.requests.length;
    const second = await run(executable, ['-p', '/compact keep the numbers', '--resume', sessionId, '--output-format', 'stream-json', '--verbose'], dir, env);
    const compactRequest = server.requests.slice(before).find((r) => /summary/i.test(lastUserText(r.body)));
    const lines = second.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    const system = compactRequest?.body?.system;
    const fixture = {
      recordedWith: version,
      command: 'CLAUDE_CODE=... npx tsx test/history/recordClaudeCompact.ts',
      compactPrompt: lastUserText(compactRequest?.body),
      compactRequest: {
        messageCount: compactRequest?.body?.messages.length,
        maxTokens: compactRequest?.body?.max_tokens,
        tools: (compactRequest?.body?.tools ?? []).length,
        system: Array.isArray(system) ? system.map((b) => b.text.slice(0, 200)) : system,
      },
      lines: lines.map((l) => ({ type: l.type, subtype: l.subtype, keys: Object.keys(l).sort() })),
      boundary: lines.find((l) => l.subtype === 'compact_boundary'),
      statusLines: lines.filter((l) => l.subtype === 'status'),
      afterBoundary: lines.filter((l) => l.type === 'user' || l.type === 'result'),
      stderr: second.stderr.slice(0, 500),
    };
    writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
    process.stdout.write(`recorded: ${second.code} ${lines.length} lines\n`);
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('recordClaudeCompact.ts')) await main();
