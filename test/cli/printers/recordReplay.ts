/**
 * Records Claude Code 2.1.197's `--replay-user-messages` (stream-json in and out, `--verbose`) into
 * ./claudeReplay.json, which replayUserMessages.process.test.ts holds agentloop to: the lines it writes for INPUTS (each sent
 * once the result of the one before is out), each as its type and, for a user line, its keys in order and its
 * message. Claude Code runs as a process offline against the local Messages API server, with a fresh HOME. To
 * re-record:
 *
 *   CLAUDE_CODE=/work/main/bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe npx tsx test/cli/printers/recordReplay.ts
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMessagesServer } from '../../support/messagesServer.js';

export const FIXTURE = new URL('./claudeReplay.json', import.meta.url);

/** The stdin lines: a text prompt, content blocks, and one that brings its own uuid. */
export const INPUTS = [
  { type: 'user', message: { role: 'user', content: 'first' }, parent_tool_use_id: null, session_id: '' },
  { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'second' }] }, parent_tool_use_id: null, session_id: '' },
  { type: 'user', message: { role: 'user', content: 'third' }, parent_tool_use_id: null, session_id: '', uuid: '6f1c1d2e-3a4b-4c5d-8e6f-708192a3b4c5' },
];

export const ARGS = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--replay-user-messages'];

export type LineShape = { type: string; subtype?: string } | { type: 'user'; keys: string[]; message: unknown; uuid: string; sameSession: boolean };

/** A line as the fixture keeps it: its type (and subtype), and a user line's keys, message, uuid (given, or "new"). */
export function shapeOf(line: Record<string, unknown>, sessionId: string): LineShape {
  if (line.type !== 'user') return { type: String(line.type), ...(typeof line.subtype === 'string' ? { subtype: line.subtype } : {}) };
  const given = INPUTS.some((i) => i.uuid === line.uuid);
  return { type: 'user', keys: Object.keys(line), message: line.message, uuid: given ? String(line.uuid) : 'new', sameSession: line.session_id === sessionId };
}

/** Writes INPUTS to `child` one at a time, each after the result of the one before; resolves with stdout's lines. */
export async function converse(child: ChildProcess): Promise<Record<string, unknown>[]> {
  let out = '';
  let sent = 0;
  const send = () => {
    if (sent < INPUTS.length) child.stdin!.write(`${JSON.stringify(INPUTS[sent++])}\n`);
    else child.stdin!.end();
  };
  child.stdout!.on('data', (d: Buffer) => {
    const before = (out.match(/"type":"result"/g) ?? []).length;
    out += d.toString();
    const after = (out.match(/"type":"result"/g) ?? []).length;
    for (let i = before; i < after; i++) send();
  });
  send();
  await new Promise((resolve) => child.on('close', resolve));
  return out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function shapesOf(lines: Record<string, unknown>[]): LineShape[] {
  const sessionId = String(lines.find((l) => l.type === 'result')?.session_id);
  return lines.map((l) => shapeOf(l, sessionId));
}

async function main(): Promise<void> {
  const executable = process.env.CLAUDE_CODE;
  if (!executable) throw new Error('set CLAUDE_CODE to the claude binary (see the comment at the top)');
  const version = spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const api = await startMessagesServer();
  for (const text of ['one', 'two', 'three']) api.enqueue({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });
  const home = mkdtempSync(join(tmpdir(), 'record-replay-'));
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test-record', ANTHROPIC_BASE_URL: api.url, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    // Its own session (detached): Claude Code signals its process group as it ends.
    const child = spawn(executable, ARGS, { cwd: home, env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    const lines = shapesOf(await converse(child));
    writeFileSync(FIXTURE, `${JSON.stringify({ recordedWith: version, command: 'CLAUDE_CODE=... npx tsx test/cli/printers/recordReplay.ts', lines }, null, 1)}\n`);
    process.stdout.write(`${JSON.stringify(lines)}\n`);
  } finally {
    await api.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('recordReplay.ts')) await main();
