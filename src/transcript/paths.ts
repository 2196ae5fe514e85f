/** Where sessions live: `$AGENTLOOP_HOME/sessions/<id>.jsonl` (default `~/.agentloop`). */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where agentloop keeps its state: `$AGENTLOOP_HOME`, else `~/.agentloop`. (`env` is typed without Node's types, for the published .d.ts.) */
export function agentloopHome(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.AGENTLOOP_HOME && env.AGENTLOOP_HOME.trim() !== '' ? env.AGENTLOOP_HOME : join(homedir(), '.agentloop');
}

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
