/**
 * Paths as Claude Code's file tools read and show them: a path the model gives is trimmed, `~` and `~/` are the home,
 * a relative one is taken from the working directory; a path shown back is relative to the working directory when it
 * lies inside it (Glob's and Grep's lists), else absolute.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, normalize, relative, resolve } from 'node:path';

/** What every "no such file" message of Claude Code's file tools ends with. */
export const CWD_NOTE = 'Note: your current working directory is';

/** The absolute path `path` names, from `cwd` (Claude Code's resolution: trimmed, `~` expanded, normalized). */
export function resolvePath(path: string, cwd: string, home: string = homedir()): string {
  const trimmed = path.trim();
  if (trimmed === '') return normalize(cwd);
  if (trimmed === '~') return home;
  if (trimmed.startsWith('~/')) return join(home, trimmed.slice(2));
  return isAbsolute(trimmed) ? normalize(trimmed) : resolve(cwd, trimmed);
}

/** `path` relative to `cwd` when it lies inside it, else as it is. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel.startsWith('..') ? path : rel;
}

/** A size as Claude Code writes it: `73 bytes`, `394.5KB`, `256KB`, `1.2MB`. */
export function formatSize(bytes: number): string {
  const kb = bytes / 1024;
  if (kb < 1) return `${bytes} bytes`;
  if (kb < 1024) return `${kb.toFixed(1).replace(/\.0$/, '')}KB`;
  const mb = kb / 1024;
  if (mb < 1024) return `${mb.toFixed(1).replace(/\.0$/, '')}MB`;
  return `${(mb / 1024).toFixed(1).replace(/\.0$/, '')}GB`;
}

/** A check that failed before the tool acted, as Claude Code wraps it for the model. */
export function toolUseError(message: string): { content: string; isError: true; data: string } {
  return { content: `<tool_use_error>${message}</tool_use_error>`, isError: true, data: `Error: ${message}` };
}

/** A failure while the tool acted (Claude Code's thrown errors): the message as it is. */
export function callError(message: string): { content: string; isError: true; data: string } {
  return { content: message, isError: true, data: `Error: ${message}` };
}

/** An errno code of a failed fs call, if it has one. */
export function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
