/** Where sessions live: `$AGENTLOOP_HOME/sessions/<id>.jsonl` (core/home.ts: default `~/.agentloop`). */
import { join } from 'node:path';

export { agentloopHome } from '../core/home.js';

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function transcriptPath(home: string, id: string): string {
  if (!ID_PATTERN.test(id)) throw new Error(`not a session id: "${id}"`);
  return join(sessionsDir(home), `${id}.jsonl`);
}

/** The folder of a session's other files (the saved output of long commands), beside its transcript. */
export function sessionFilesDir(transcript: string): string {
  return transcript.replace(/\.jsonl$/, '');
}
