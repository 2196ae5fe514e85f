/**
 * `--system-prompt-file FILE` and `--append-system-prompt-file FILE`, as Claude Code 2.1.197 takes them: the file's
 * text, as it is (not trimmed), is the `--system-prompt` / `--append-system-prompt`. The path is the shell's (relative
 * to the current directory, not --cwd). A file that is not there or cannot be read ends the run before anything starts:
 * one line and the pointer to --help, exit 1, as Claude Code exits ("System prompt file not found: PATH").
 */
import { readTextUpTo } from '../../core/boundedRead.js';
import { MAX_STDIN_BYTES } from './stdinLines.js';
import { resolve } from 'node:path';
import type { CliOptions } from '../commandLine/args.js';

const FILES = [
  ['systemPromptFile', 'systemPrompt', 'system-prompt-file'],
  ['appendSystemPromptFile', 'appendSystemPrompt', 'append-system-prompt-file'],
] as const;

/** The options with each file's text in its prompt; or the line that says why a file could not be read. */
export function withPromptFiles(options: CliOptions): CliOptions | { error: string } {
  let out = options;
  for (const [fileKey, textKey, flag] of FILES) {
    const file = options[fileKey];
    if (file === undefined) continue;
    const path = resolve(file);
    try {
      // A system prompt is part of every request: bounded as stdin is (the API takes at most 32 MB a request).
      out = { ...out, [textKey]: readTextUpTo(path, MAX_STDIN_BYTES) };
    } catch (error) {
      if ((error as Error).name === 'FileTooLargeError') return { error: `--${flag} ${(error as Error).message}` };
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? (error as Error).message})`;
      return { error: `--${flag} ${path}: ${why}` };
    }
  }
  return out;
}
