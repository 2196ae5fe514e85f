/**
 * What the model is told of a command's run: its output (head and tail when long, with where the rest is), and how it
 * ended (exit code, signal, timeout, interruption, a failed start).
 */
import { constants } from 'node:os';
import type { ToolOutput } from '../../../core/tool.js';
import type { CollectedOutput } from './output.js';
import type { RunEnding } from './process.js';

export function formatResult(out: CollectedOutput, ending: RunEnding, timeoutMs: number): ToolOutput {
  const notes: string[] = [];
  if (out.truncated) {
    const where =
      out.file === undefined
        ? `the full output could not be saved (${out.fileError ?? 'unknown error'})`
        : out.file.complete
          ? `the full output is in ${out.file.path}`
          : `the first ${out.file.bytes} bytes are in ${out.file.path}`;
    notes.push(`[output truncated: ${out.omittedBytes} of ${out.totalBytes} bytes omitted from the middle; ${where}]`);
  }
  if (out.invalidUtf8) notes.push('[output is not valid UTF-8: invalid bytes were replaced with U+FFFD]');
  let isError = true;
  switch (ending.kind) {
    case 'exit':
      if (ending.signal !== null) notes.push(`[killed by signal ${ending.signal}]`);
      else if (ending.code !== 0) notes.push(`[exit code ${exitCodeText(ending.code)}]`);
      else isError = false;
      break;
    case 'timeout':
      notes.push(`[timed out after ${timeoutMs} ms: the command and its child processes were killed]`);
      break;
    case 'aborted':
      notes.push(
        ending.started
          ? '[interrupted: the command and its child processes were killed]'
          : '[interrupted: the command was not started]',
      );
      break;
    case 'spawn-error':
      notes.push(`[could not start the command: ${ending.message}]`);
      break;
  }
  const body = out.text.replace(/\n+$/, '');
  const shown = body === '' ? '(no output)' : body;
  return { isError, content: notes.length === 0 ? shown : `${shown}\n\n${notes.join('\n')}` };
}

/**
 * A contained command's status comes through bwrap, which reports a death by signal N as 128 + N,
 * as bash does for its children: the signal is named beside the code.
 */
function exitCodeText(code: number | null): string {
  if (code === null || code <= 128) return String(code);
  const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
  return name === undefined ? String(code) : `${code} (${name})`;
}

export function noDirectory(cwd: string): ToolOutput {
  return { isError: true, content: `The working directory ${cwd} does not exist or is not a directory.` };
}

