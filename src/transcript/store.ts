/**
 * Session transcripts on disk: `$AGENTLOOP_HOME/sessions/<id>.jsonl` (default `~/.agentloop`),
 * written by writer.ts, read and listed here. A torn or corrupt line (the process died mid-write,
 * the disk filled up) is reported and skipped when reading.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionIdProblem, sessionsDir, transcriptPath } from './paths.js';
import { parseRecordLines, type Transcript } from './lines.js';

export { agentloopHome, sessionFilesDir, sessionsDir, transcriptPath } from './paths.js';
export { SessionExistsError, TranscriptWriter } from './writer.js';
export { listSessions, newestSessionFor, summarize, type SessionSummary } from './list.js';

export type { Transcript } from './lines.js';

export { MAX_PROBLEMS, type DamagedLine } from './lines.js';

/** Parses transcript text; lines that are not valid JSON or not a record of a known shape become `problems` and are skipped. */
export function parseTranscript(text: string, path = '<text>'): Transcript {
  const { records, problems, damaged } = parseRecordLines(text, { firstLine: 1 });
  const first = records[0];
  const header = first?.type === 'session' ? first : undefined;
  if (!header) problems.unshift('the transcript does not start with a session header');
  return { path, header, records, problems, damaged };
}

export function readTranscript(path: string): Transcript {
  return parseTranscript(readFileSync(path, 'utf8'), path);
}

export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
}

/** The path of session `id`; a unique prefix of an id is enough. */
export function findSession(home: string, id: string): string {
  const problem = sessionIdProblem(id);
  if (problem !== undefined) throw new SessionNotFoundError(problem);
  const exact = transcriptPath(home, id);
  if (existsSync(exact)) return exact;
  const dir = sessionsDir(home);
  const matches = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(id) && n.endsWith('.jsonl')) : [];
  if (matches.length === 1) return join(dir, matches[0] as string);
  if (matches.length > 1) throw new SessionNotFoundError(`session id "${id}" is ambiguous: ${matches.length} sessions start with it`);
  throw new SessionNotFoundError(`no session "${id}" in ${dir}`);
}
