// What the hand-written sides share: the system prompt, the bash tool's description and how it runs a command
// (bash -c in the working directory, stdout and stderr collected), the same for each so that only the loops differ.
import { execFile } from 'node:child_process';

export const SYSTEM = 'You are a coding agent. Use the bash tool to look around; answer briefly when the task is done.';
export const BASH_DESCRIPTION = 'Runs a bash command in the working directory and answers with its output.';
export const BASH_SCHEMA = { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] };
export const MODEL = process.env.BENCH_MODEL ?? 'claude-sonnet-4-5';

/** Runs `command` with `bash -c`; resolves with its output and whether it failed. */
export function runBash(command) {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ output: `${stdout}${stderr}` || '(no output)', isError: error !== null });
    });
  });
}
