/**
 * Session transcripts on disk: `$AGENTLOOP_HOME/sessions/<id>.jsonl` (default `~/.agentloop`),
 * written by writer.ts, read and listed here. A torn or corrupt line (the process died mid-write,
 * the disk filled up) is reported and skipped when reading.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ExitReason } from '../core/run.js';
import { ID_PATTERN, sessionsDir, transcriptPath } from './paths.js';
import type { SessionHeader, SessionRecord } from './records.js';
import { recordProblem } from './shapes.js';
import { plural } from '../core/plural.js';

export { agentloopHome, sessionFilesDir, sessionsDir, transcriptPath } from './paths.js';
export { SessionExistsError, TranscriptWriter } from './writer.js';

export interface Transcript {
  path: string;
  header: SessionHeader | undefined;
  /** The records that are whole and of a known shape (shapes.ts), in file order. */
  records: SessionRecord[];
  /**
   * Lines that could not be read, e.g. `line 12: not valid JSON (cut off by a crash?): skipped`
   * or `line 7: message record: index: 1000000000 is beyond the 7 lines read so far: skipped`;
   * at most `MAX_PROBLEMS`, then a count of the rest.
   */
  problems: string[];
  /**
   * The lines of valid JSON that are not a record of a known shape, as read: skipped by everything
   * that trusts the records (resume), but kept for a reader that shows what a run wrote, broken
   * records included (the viewer marks a tool_result written without its tool_use_id).
   */
  damaged: DamagedLine[];
}

export interface DamagedLine {
  /** 1-based line number. */
  line: number;
  /** How many whole records come before it: where it stands among `records`. */
  after: number;
  value: unknown;
  /** What is wrong with it, as in `problems`. */
  problem: string;
}

export const MAX_PROBLEMS = 20;

/** Parses transcript text; lines that are not valid JSON or not a record of a known shape become `problems` and are skipped. */
export function parseTranscript(text: string, path = '<text>'): Transcript {
  const records: SessionRecord[] = [];
  const problems: string[] = [];
  const damaged: DamagedLine[] = [];
  let more = 0;
  const report = (problem: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(problem);
    else more += 1;
  };
  let start = 0;
  for (let line = 1; start < text.length || line === 1; line++) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const raw = text.slice(start, end);
    start = end + 1;
    if (raw.trim() !== '') {
      const where = newline === -1 ? `line ${line} (the last, unfinished)` : `line ${line}`;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        report(`${where}: not valid JSON (cut off by a crash?): skipped`);
        continue;
      }
      const problem = recordProblem(value, line);
      if (problem === undefined) records.push(value as SessionRecord);
      else {
        report(`${where}: ${problem.length > 200 ? `${problem.slice(0, 200)}...` : problem}: skipped`);
        damaged.push({ line, after: records.length, value, problem });
      }
    }
    if (newline === -1) break;
  }
  if (more > 0) problems.push(`${plural(more, 'more unreadable line')} skipped`);
  const first = records[0];
  const header = first?.type === 'session' ? first : undefined;
  if (!header) problems.unshift('the transcript does not start with a session header');
  return { path, header, records, problems, damaged };
}

export function readTranscript(path: string): Transcript {
  return parseTranscript(readFileSync(path, 'utf8'), path);
}

/** A session as `agentloop sessions` lists it. */
export interface SessionSummary {
  id: string;
  path: string;
  cwd: string;
  model: string;
  createdAt: string;
  /** Last write to the transcript. */
  updatedAt: string;
  firstPrompt: string;
  /** The header's label (`demo`, `mistake NAME`, ...), when the run was given one. */
  label?: string;
  /** Highest turn count reached. */
  turns: number;
  /** How the last run ended; `interrupted` when the process died before it ended. */
  exitReason: ExitReason | 'interrupted' | null;
  problems: string[];
}

export function summarize(transcript: Transcript, updatedAt: Date): SessionSummary | undefined {
  const { header, records } = transcript;
  if (!header) return undefined;
  let firstPrompt = '';
  let turns = 0;
  let exitReason: SessionSummary['exitReason'] = null;
  let open = false;
  for (const record of records) {
    if (record.type === 'prompt') {
      if (firstPrompt === '') firstPrompt = record.text;
      open = true;
    }
    if (record.type === 'resume' || record.type === 'transition') open = true;
    if (record.type === 'transition') turns = Math.max(turns, record.turnCount);
    if (record.type === 'result') {
      exitReason = record.exitReason as SessionSummary['exitReason'];
      turns = Math.max(turns, record.turnCount);
      open = false;
    }
  }
  if (open) exitReason = 'interrupted';
  return {
    id: header.id,
    path: transcript.path,
    cwd: header.cwd,
    model: header.model,
    createdAt: header.createdAt,
    updatedAt: updatedAt.toISOString(),
    firstPrompt,
    ...(header.label ? { label: header.label } : {}),
    turns,
    exitReason,
    problems: transcript.problems,
  };
}

/** Every session under `home`, the most recently updated first. */
export function listSessions(home: string): SessionSummary[] {
  const dir = sessionsDir(home);
  if (!existsSync(dir)) return [];
  const summaries: SessionSummary[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    const path = join(dir, name);
    try {
      const summary = summarize(readTranscript(path), statSync(path).mtime);
      if (summary) summaries.push(summary);
    } catch {
      // unreadable file (removed meanwhile, permissions): not a session we can list
    }
  }
  return summaries.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.createdAt.localeCompare(a.createdAt));
}

export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
}

/** The path of session `id`; a unique prefix of an id is enough. */
export function findSession(home: string, id: string): string {
  if (!ID_PATTERN.test(id)) throw new SessionNotFoundError(`not a session id: "${id}"`);
  const exact = transcriptPath(home, id);
  if (existsSync(exact)) return exact;
  const dir = sessionsDir(home);
  const matches = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(id) && n.endsWith('.jsonl')) : [];
  if (matches.length === 1) return join(dir, matches[0] as string);
  if (matches.length > 1) throw new SessionNotFoundError(`session id "${id}" is ambiguous: ${matches.length} sessions start with it`);
  throw new SessionNotFoundError(`no session "${id}" in ${dir}`);
}

/** The most recently updated session whose working directory is `cwd`. */
export function newestSessionFor(home: string, cwd: string): SessionSummary | undefined {
  return listSessions(home).find((s) => s.cwd === cwd);
}
