/**
 * Issue 44: the rule a permission question suggests, run alike by Claude Code 2.1.197 (recordSuggestions.ts, recorded
 * into claudeSuggestions.json) and by agentloop's CLI (suggestions.process.test.ts). Each case is a run in the default mode
 * driven as the Agent SDK drives it (stream-json in and out, `--permission-prompt-tool stdio`): the model asks for the
 * case's calls one after the other, every `can_use_tool` the run sends is answered "deny", and what is kept is each
 * question's tool and its `permission_suggestions`, the project and the outside folder written `<project>`, `<outside>`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestBody, Step } from '../support/messagesServer.js';

export interface Folders {
  home: string;
  /** The project: the run's working directory. */
  dir: string;
  /** A folder beside it, outside the working directory. */
  outside: string;
}

export interface SuggestionCase {
  name: string;
  /** The calls the model asks for, in order (one a turn). */
  calls: (f: Folders) => Array<{ name: string; input: Record<string, unknown> }>;
}

export const CASES: SuggestionCase[] = [
  { name: 'Write a new file', calls: (f) => [{ name: 'Write', input: { file_path: join(f.dir, 'a.txt'), content: 'a\n' } }] },
  { name: 'Write a new file in a subfolder', calls: (f) => [{ name: 'Write', input: { file_path: join(f.dir, 'src', 'b.ts'), content: 'b\n' } }] },
  { name: 'Write outside the project', calls: (f) => [{ name: 'Write', input: { file_path: join(f.outside, 'c.txt'), content: 'c\n' } }] },
  {
    name: 'Edit a file read first',
    calls: (f) => [
      { name: 'Read', input: { file_path: join(f.dir, 'notes.txt') } },
      { name: 'Edit', input: { file_path: join(f.dir, 'notes.txt'), old_string: 'hello', new_string: 'bye' } },
    ],
  },
  { name: 'Read outside the project', calls: (f) => [{ name: 'Read', input: { file_path: join(f.outside, 'o.txt') } }] },
  { name: 'Glob outside the project', calls: (f) => [{ name: 'Glob', input: { pattern: '*.txt', path: f.outside } }] },
  { name: 'Grep outside the project', calls: (f) => [{ name: 'Grep', input: { pattern: 'out', path: f.outside } }] },
  { name: 'Bash touch', calls: () => [{ name: 'Bash', input: { command: 'touch made.txt' } }] },
  { name: 'Bash git commit', calls: () => [{ name: 'Bash', input: { command: 'git commit -m x' } }] },
  { name: 'Bash redirect', calls: () => [{ name: 'Bash', input: { command: 'echo hi > a.txt' } }] },
];

/** A fresh HOME, project (notes.txt, src/) and outside folder (o.txt). */
export function setUp(base = tmpdir()): Folders {
  const root = mkdtempSync(join(base, 'suggestions-'));
  const f = { home: join(root, 'home'), dir: join(root, 'project'), outside: join(root, 'outside') };
  for (const d of [f.home, join(f.dir, 'src'), f.outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(f.dir, 'notes.txt'), 'hello\n');
  writeFileSync(join(f.outside, 'o.txt'), 'out\n');
  return f;
}

/** The model's steps: the k-th call once k results are in, then an answer. */
export function stepsFor(c: SuggestionCase, f: Folders): Step[] {
  const calls = c.calls(f);
  const step: Step = (body: RequestBody) => {
    const answered = (JSON.stringify(body.messages).match(/"tool_result"/g) ?? []).length;
    const call = calls[answered];
    if (call === undefined) return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
    // The name the run offers it by (agentloop's model calls Claude Code's Bash `bash`).
    const name = (body.tools ?? []).map((t) => ('name' in t ? String(t.name) : '')).find((n) => n.toLowerCase() === call.name.toLowerCase()) ?? call.name;
    return { content: [{ type: 'tool_use', id: `toolu_${answered + 1}`, name, input: call.input }], stop_reason: 'tool_use' };
  };
  return Array.from({ length: 8 }, () => step);
}

/** What one question said: the tool it is about, and the updates it suggests (paths as `<project>`, `<outside>`). */
export interface Question {
  tool: string;
  suggestions: unknown;
}

/** The arguments of a run: the SDK's way, the file tools and Bash offered, the default mode. */
export const ARGS = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--permission-prompt-tool', 'stdio', '--tools', 'Bash,Read,Write,Edit,Glob,Grep', '--permission-mode', 'default'];

/** Runs `program args` in the project as an SDK host would, denying every question; resolves with the questions asked. */
export function askedQuestions(program: string, args: readonly string[], f: Folders, env: Record<string, string>): Promise<Question[]> {
  const child = spawn(program, [...args], { cwd: f.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const questions: Question[] = [];
  const send = (line: unknown) => child.stdin.write(`${JSON.stringify(line)}\n`);
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const text of lines) {
      if (!text.startsWith('{')) continue;
      const line = JSON.parse(text) as { type?: string; request_id?: string; request?: Record<string, unknown> };
      if (line.type === 'result') child.stdin.end();
      if (line.type !== 'control_request' || line.request?.subtype !== 'can_use_tool') continue;
      questions.push({ tool: String(line.request.tool_name), suggestions: shown(line.request.permission_suggestions ?? null, f) });
      send({ type: 'control_response', response: { subtype: 'success', request_id: line.request_id, response: { behavior: 'deny', message: 'not now' } } });
    }
  });
  send({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize' } });
  send({ type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null, session_id: '' });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${program} exited ${code}: ${stderr.slice(0, 500)}`));
      else resolve(questions);
    });
  });
}

/** `value` with the case's folders written `<project>`, `<outside>`. */
function shown(value: unknown, f: Folders): unknown {
  return JSON.parse(JSON.stringify(value).split(f.dir).join('<project>').split(f.outside).join('<outside>'));
}
