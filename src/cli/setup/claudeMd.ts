/**
 * Claude Code's memory files, read as Claude Code 2.1.197 reads them (recorded against a local Messages API) and put
 * where it puts them: a `<system-reminder>` text block before the first user message of every request, never into
 * the history or the transcript. By `--setting-sources` (none given: all three, as Claude Code):
 * - user: `$CLAUDE_CONFIG_DIR/CLAUDE.md` (default `~/.claude/CLAUDE.md`);
 * - project: `CLAUDE.md` and `.claude/CLAUDE.md` of every directory from `/` down to the working directory;
 * - local: `CLAUDE.local.md` of those directories;
 * each file followed by what it imports (`@path`, relative to the file, `@~/path`, or absolute; not inside code spans
 * or fenced blocks), four imports deep at most (a chain of five files, as Claude Code), each file once.
 * Bounded: a file is read up to MAX_FILE_CHARS characters (the rest cut, with a line saying so), the files up to
 * MAX_TOTAL_CHARS in all (the rest left out, said once on stderr); only regular files are read, never blocking.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, parse, resolve } from 'node:path';
import type { MessageParam } from '../../core/messages.js';
import type { RunHooks } from '../../core/hooks.js';

export type MemoryType = 'User' | 'Project' | 'Local';

export interface MemoryFile {
  path: string;
  type: MemoryType;
  content: string;
}

/** Claude Code's cut-off for a large memory file (it warns past it); agentloop reads no more of one. */
export const MAX_FILE_CHARS = 40_000;
/** All memory files together. */
export const MAX_TOTAL_CHARS = 200_000;
/** Files of one import chain, the first included (Claude Code: the importing file and four levels of imports). */
const MAX_CHAIN = 5;

const DESCRIPTIONS: Record<MemoryType, string> = {
  Project: ' (project instructions, checked into the codebase)',
  Local: " (user's private project instructions, not checked in)",
  User: " (user's private global instructions for all projects)",
};

/** A file's text, at most `MAX_FILE_CHARS` characters; undefined when it is not a regular file that can be read. */
function readBounded(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_FILE_CHARS * 4);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    if (text.length <= MAX_FILE_CHARS && fstatSync(fd).size <= read) return text;
    return `${text.slice(0, MAX_FILE_CHARS)}\n… (agentloop read the first ${MAX_FILE_CHARS} characters of this file)`;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The `@path` imports of a memory file's text, outside fenced blocks and code spans, resolved from `dir`. */
export function importsOf(text: string, dir: string, home: string): string[] {
  const paths: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const plain = line.replace(/`[^`]*`/g, ' ');
    for (const match of plain.matchAll(/(?:^|\s)@((?:[^\s\\]|\\ )+)/g)) {
      const raw = match[1]!.replace(/\\ /g, ' ');
      if (raw.startsWith('~/')) paths.push(join(home, raw.slice(2)));
      else if (isAbsolute(raw)) paths.push(raw);
      else if (/^[\w.~-]/.test(raw)) paths.push(resolve(dir, raw));
    }
  }
  return paths;
}

/** The directories from the root down to `cwd`. */
function directoriesTo(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === parse(dir).root) return dirs;
  }
}

class MemoryReader {
  readonly files: MemoryFile[] = [];
  readonly left: string[] = [];
  private readonly seen = new Set<string>();
  private total = 0;

  constructor(private readonly home: string) {}

  /** `path` and what it imports, depth first, as Claude Code lists them. */
  add(path: string, type: MemoryType, chain = 1): void {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return;
    }
    if (this.seen.has(real)) return;
    const text = readBounded(path);
    if (text === undefined) return;
    this.seen.add(real);
    const content = text.trim();
    if (content === '') return;
    if (this.total + content.length > MAX_TOTAL_CHARS) return void this.left.push(path);
    this.total += content.length;
    this.files.push({ path, type, content });
    if (chain >= MAX_CHAIN) return;
    for (const imported of importsOf(text, dirname(path), this.home)) this.add(imported, type, chain + 1);
  }
}

/** The memory files of `cwd` by `sources` (user, project, local), and the files left out past the bound. */
export function readMemoryFiles(cwd: string, sources: readonly string[], env: NodeJS.ProcessEnv): { files: MemoryFile[]; left: string[] } {
  const home = env.HOME || homedir();
  const reader = new MemoryReader(home);
  if (sources.includes('user')) reader.add(join(env.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'CLAUDE.md'), 'User');
  for (const dir of directoriesTo(cwd)) {
    if (sources.includes('project')) {
      reader.add(join(dir, 'CLAUDE.md'), 'Project');
      reader.add(join(dir, '.claude', 'CLAUDE.md'), 'Project');
    }
    if (sources.includes('local')) reader.add(join(dir, 'CLAUDE.local.md'), 'Local');
  }
  return { files: reader.files, left: reader.left };
}

const HEADER =
  'Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.';

/** The `<system-reminder>` block of the memory files, word for word as Claude Code 2.1.197 sends it (`date`: today's). */
export function memoryReminder(files: readonly MemoryFile[], date: string): string {
  const contents = files.map((f) => `Contents of ${f.path}${DESCRIPTIONS[f.type]}:\n\n${f.content}`).join('\n\n');
  return (
    "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n" +
    `# claudeMd\n${HEADER}\n\n${contents}\n# currentDate\nToday's date is ${date}.\n\n` +
    '      IMPORTANT: this context may or may not be relevant to your tasks. You should not respond to this context unless it is highly relevant to your task.\n</system-reminder>\n\n'
  );
}

/**
 * Run hooks that put `reminder` before the first user message of every request (the history itself is left as it is),
 * around `hooks`' own transformContext.
 */
export function withMemory(hooks: RunHooks | undefined, reminder: string): RunHooks {
  const inner = hooks?.transformContext;
  return {
    ...hooks,
    async transformContext(messages, info) {
      const sent = inner ? await inner(messages, info) : messages;
      const first = sent.findIndex((m) => m.role === 'user');
      if (first < 0) return [...sent];
      const message = sent[first]!;
      const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
      const withReminder = { ...message, content: [{ type: 'text', text: reminder }, ...blocks] } as MessageParam;
      return [...sent.slice(0, first), withReminder, ...sent.slice(first + 1)];
    },
  };
}
