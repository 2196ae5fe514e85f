/** Where sessions live: `$AGENTLOOP_HOME/sessions/<id>.jsonl` (core/home.ts: default `~/.agentloop`). */
import { join } from 'node:path';

export { agentloopHome } from '../core/home.js';

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Why `id` cannot be a session's (the store names its file after it), or undefined when it can. */
export function sessionIdProblem(id: string): string | undefined {
  if (ID_PATTERN.test(id) && id.length <= 128) return undefined;
  return `${JSON.stringify(id)} is not a session id (1 to 128 letters, digits, _ and -, the first a letter or a digit)`;
}

/** Throws (`who: why`) when `id` is no session id: the store's rule, also for a run that writes no session. */
export function checkSessionId(id: string, who: string): void {
  const problem = sessionIdProblem(id);
  if (problem !== undefined) throw new Error(`${who}: ${problem}`);
}

/**
 * The id of the session whose transcript is `path`: its file's name, which is what the store finds it by (a header
 * may say another id, even one that is no id: written by hand or by another program).
 */
export function sessionIdOfPath(path: string): string {
  return /([^/]+?)(\.jsonl)?$/.exec(path)?.[1] ?? path;
}

export function transcriptPath(home: string, id: string): string {
  const problem = sessionIdProblem(id);
  if (problem !== undefined) throw new Error(problem);
  return join(sessionsDir(home), `${id}.jsonl`);
}

/** The folder of a session's other files (the saved output of long commands), beside its transcript. */
export function sessionFilesDir(transcript: string): string {
  return transcript.replace(/\.jsonl$/, '');
}
