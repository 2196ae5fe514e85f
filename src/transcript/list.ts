/**
 * Sessions as `agentloop sessions`, the viewer and `--continue` see them, read from the ends of the
 * transcripts only (headers.ts): what they cost grows with the number of sessions, not their size.
 */
import type { ExitReason } from '../core/outcome.js';
import { readEnds, readHeader, transcriptsByNewest } from './headers.js';
import { cachedSummary, openCache, remember, saveCache, type ReadSummary, type SummaryCache } from './listCache.js';
import { runningHolder, type LockHolder } from './lock.js';
import type { SessionHeader, SessionRecord } from './records.js';
import type { Transcript } from './lines.js';
import { sessionIdOfPath } from './paths.js';

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
  /** Highest turn count reached (in the records read: the last run's, for a long transcript). */
  turns: number;
  /**
   * How the last run ended; `running` while a run holds the session, `interrupted` when the
   * process died before it ended.
   */
  exitReason: ExitReason | 'interrupted' | 'running' | null;
  /** The process that writes the session now, if one does. */
  running: LockHolder | null;
  /** Lines that could not be read, of those read. */
  problems: string[];
}

/** The summary of a transcript's records (all of them, or those at its ends). */
export function summarize(transcript: Transcript, updatedAt: Date): SessionSummary | undefined {
  const { header, records } = transcript;
  if (!header) return undefined;
  const { firstPrompt, turns, exitReason } = runsOf(records);
  return {
    id: sessionIdOfPath(transcript.path),
    path: transcript.path,
    cwd: header.cwd,
    model: header.model,
    createdAt: header.createdAt,
    updatedAt: updatedAt.toISOString(),
    firstPrompt,
    ...(header.label ? { label: header.label } : {}),
    turns,
    exitReason,
    running: null,
    problems: transcript.problems,
  };
}

function runsOf(records: readonly SessionRecord[]): Pick<SessionSummary, 'firstPrompt' | 'turns' | 'exitReason'> {
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
  return { firstPrompt, turns, exitReason: open ? 'interrupted' : exitReason };
}

export interface ListOptions {
  /**
   * `summary` (default): how each session's last run ended, from its last records too;
   * `headers`: only its header, first question and whether it runs (the viewer's list).
   */
  read?: 'summary' | 'headers';
}

/**
 * Every session under `home`, the most recently updated first. The summaries of transcripts unchanged since the last
 * listing come from the cache beside them (listCache.ts), the others from their ends.
 */
export function listSessions(home: string, options: ListOptions = {}): SessionSummary[] {
  const tail = options.read !== 'headers';
  // The headers alone are cheap enough to read each time (and differ from the cache's: no tail).
  const cache = tail ? openCache(home) : undefined;
  const summaries: SessionSummary[] = [];
  for (const { path, name, stat, locked } of transcriptsByNewest(home)) {
    try {
      const known = cache && cachedSummary(cache, name, stat);
      const { read, mtime } = known === undefined ? readSummary(path, tail, cache, name) : { read: known, mtime: stat.mtime };
      if (read) summaries.push(withItsRun(read, path, mtime, locked));
    } catch {
      // unreadable file (removed meanwhile, permissions): not a session we can list
    }
  }
  if (cache) saveCache(cache);
  return summaries;
}

/** What the ends of the transcript at `path` say of its session (kept in `cache` when given), and when it was written last. */
function readSummary(path: string, tail: boolean, cache: SummaryCache | undefined, name: string): { read: ReadSummary | null; mtime: Date } {
  const readAt = Date.now();
  const ends = readEnds(path, tail);
  const summary = summarize({ path, header: ends.header, records: ends.records, problems: ends.problems, damaged: [] }, ends.stat.mtime);
  let read: ReadSummary | null = null;
  if (summary) {
    const { path: _path, updatedAt: _updatedAt, running: _running, ...rest } = summary;
    read = rest;
    if (!read.firstPrompt && ends.promptStart) read.firstPrompt = ends.promptStart;
    if (!tail) Object.assign(read, { turns: 0, exitReason: null });
    // A last line too long to read is no `result`: the last run did not end.
    else if (ends.longLastLine) read.exitReason = 'interrupted';
  }
  if (cache) remember(cache, name, ends.stat, read, readAt);
  return { read, mtime: ends.stat.mtime };
}

/** The summary of a session from what its transcript says, its last write, and the run that holds it now, if one does. */
function withItsRun(read: ReadSummary, path: string, mtime: Date, locked: boolean): SessionSummary {
  const running = (locked && runningHolder(path)) || null;
  return {
    id: sessionIdOfPath(path),
    path,
    cwd: read.cwd,
    model: read.model,
    createdAt: read.createdAt,
    updatedAt: mtime.toISOString(),
    firstPrompt: read.firstPrompt,
    ...(read.label ? { label: read.label } : {}),
    turns: read.turns,
    exitReason: running ? 'running' : (read.exitReason as SessionSummary['exitReason']),
    running,
    problems: read.problems,
  };
}

/**
 * The most recently updated session whose working directory is `cwd`: the transcripts are taken
 * newest first (by their modification time) and only their headers are read, until one matches.
 */
export function newestSessionFor(home: string, cwd: string): { id: string; path: string; header: SessionHeader } | undefined {
  for (const { path } of transcriptsByNewest(home)) {
    const header = readHeader(path);
    if (header?.cwd === cwd) return { id: sessionIdOfPath(path), path, header };
  }
  return undefined;
}
