/**
 * Issue 43/44: which rules apply to which file tool, run alike by Claude Code 2.1.197 (recordFileRules.ts, recorded into
 * claudeFileRules.json) and by agentloop (fileRules.test.ts). Claude Code applies `Edit(...)` rules to every editing tool
 * (Write too) and `Read(...)` rules to every reading one (Glob, Grep). The model asks for one call; what is kept: the
 * file it would write (written or not), the result's `permission_denials`, the tool_result's text and error flag.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestBody, Step } from '../support/messagesServer.js';

export interface FileRuleCase {
  name: string;
  args: string[];
  tool: 'Write' | 'Read' | 'Glob' | 'Grep';
  input: (dir: string) => Record<string, unknown>;
  /** The file whose presence says whether a Write ran. */
  made?: string;
}

const FILES: Record<string, string> = { 'notes.txt': 'hush here\n', 'secret/key.txt': 'hush secret\n', 'src/app.ts': 'const hush = 1;\n' };

export const CASES: FileRuleCase[] = [
  { name: 'allow Edit(*.txt), Write a.txt', args: ['--allowedTools', 'Edit(*.txt)'], tool: 'Write', input: (d) => ({ file_path: join(d, 'a.txt'), content: 'a\n' }), made: 'a.txt' },
  { name: 'allow Edit(*.txt), Write a.md', args: ['--allowedTools', 'Edit(*.txt)'], tool: 'Write', input: (d) => ({ file_path: join(d, 'a.md'), content: 'a\n' }), made: 'a.md' },
  { name: 'deny Edit, Write a.txt in acceptEdits', args: ['--disallowedTools', 'Edit', '--permission-mode', 'acceptEdits'], tool: 'Write', input: (d) => ({ file_path: join(d, 'a.txt'), content: 'a\n' }), made: 'a.txt' },
  { name: 'deny Edit(secret/**), Write secret/b.txt in acceptEdits', args: ['--disallowedTools', 'Edit(secret/**)', '--permission-mode', 'acceptEdits'], tool: 'Write', input: (d) => ({ file_path: join(d, 'secret', 'b.txt'), content: 'b\n' }), made: 'secret/b.txt' },
  { name: 'deny Read(secret/**), Glob **/*.txt', args: ['--disallowedTools', 'Read(secret/**)'], tool: 'Glob', input: () => ({ pattern: '**/*.txt' }) },
  { name: 'deny Read(secret/**), Grep hush', args: ['--disallowedTools', 'Read(secret/**)'], tool: 'Grep', input: () => ({ pattern: 'hush' }) },
  { name: 'deny Read(secret/**), Grep hush in secret', args: ['--disallowedTools', 'Read(secret/**)'], tool: 'Grep', input: (d) => ({ pattern: 'hush', path: join(d, 'secret') }) },
  { name: 'deny Read, Glob **/*.txt', args: ['--disallowedTools', 'Read'], tool: 'Glob', input: () => ({ pattern: '**/*.txt' }) },
];

/** What a case's run did. */
export interface Outcome {
  wrote: boolean | null;
  denials: string[];
  result: string;
  isError: boolean;
}

/** A fresh HOME and project folder in `base`, holding notes.txt, secret/key.txt and src/app.ts. */
export function setUp(base = tmpdir()): { home: string; dir: string } {
  const root = mkdtempSync(join(base, 'file-rules-'));
  const home = join(root, 'home');
  const dir = join(root, 'project');
  for (const d of [home, join(dir, 'secret'), join(dir, 'src')]) mkdirSync(d, { recursive: true });
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
  return { home, dir };
}

/** The model's steps: the case's call, then an answer. */
export function stepsFor(c: FileRuleCase, dir: string): Step[] {
  const step: Step = (body: RequestBody) => {
    const answered = JSON.stringify(body.messages).includes('tool_result');
    if (answered) return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
    return { content: [{ type: 'tool_use', id: 'toolu_1', name: c.tool, input: c.input(dir) }], stop_reason: 'tool_use' };
  };
  return Array.from({ length: 4 }, () => step);
}

/** The arguments of a case's -p run (the case's tool offered). */
export function argsOf(c: FileRuleCase): string[] {
  return ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--tools', 'Read,Write,Edit,Glob,Grep', ...c.args];
}

/** The outcome from a run's stream-json stdout and the project folder (paths shown as `<project>`). */
export function outcomeOf(c: FileRuleCase, dir: string, stdout: string): Outcome {
  const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
  const result = lines.find((l) => l.type === 'result');
  const denials = Array.isArray(result?.permission_denials) ? result.permission_denials.map((d: { tool_name: string }) => d.tool_name) : [];
  const block = lines
    .filter((l) => l.type === 'user')
    .flatMap((l) => (Array.isArray(l.message?.content) ? l.message.content : []))
    .find((b: { type?: string }) => b.type === 'tool_result');
  const text = typeof block?.content === 'string' ? block.content : Array.isArray(block?.content) ? block.content.map((p: { text?: string }) => p.text ?? '').join('') : '';
  const sorted = c.tool === 'Write' ? text : text.split('\n').sort().join('\n');
  return { wrote: c.made ? existsSync(join(dir, c.made)) : null, denials, result: sorted.split(dir).join('<project>'), isError: block?.is_error === true };
}
