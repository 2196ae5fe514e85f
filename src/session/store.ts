/**
 * Session transcripts on disk: `$AGENTLOOP_HOME/sessions/<id>.jsonl` (default `~/.agentloop`).
 *
 * Each record is written with `writeSync` as soon as it is known, so a process killed with
 * `kill -9` loses nothing already done (the bytes are in the kernel); an `fsync` follows on the
 * thread pool (the event loop is not blocked), so a power cut loses at most the records written
 * since the last one ended. A torn or corrupt line (the
 * process died mid-write, the disk filled up) is reported and skipped when reading.
 */
import { closeSync, existsSync, fstatSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ExitReason } from '../core/run.js';
import { crashPointOf, pauseForever, type CrashPoint } from './crashPoint.js';
import type { SessionHeader, SessionRecord } from './records.js';
import { recordProblem } from './shapes.js';
import { plural } from '../core/plural.js';

/** Where agentloop keeps its state: `$AGENTLOOP_HOME`, else `~/.agentloop`. (`env` is typed without Node's types, for the published .d.ts.) */
export function agentloopHome(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.AGENTLOOP_HOME && env.AGENTLOOP_HOME.trim() !== '' ? env.AGENTLOOP_HOME : join(homedir(), '.agentloop');
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function transcriptPath(home: string, id: string): string {
  if (!ID_PATTERN.test(id)) throw new Error(`not a session id: "${id}"`);
  return join(sessionsDir(home), `${id}.jsonl`);
}

/** The folder of a session's other files (the saved output of long commands), beside its transcript. */
export function sessionFilesDir(transcript: string): string {
  return transcript.replace(/\.jsonl$/, '');
}

/** A new session was given the id of one that exists (`--session-id`): it is left untouched. */
export class SessionExistsError extends Error {
  override readonly name = 'SessionExistsError';
}

/** Appends records to one transcript file. Not thread-safe: one writer per file. */
export class TranscriptWriter {
  private fd: number | null;
  /** An fsync is running on the thread pool. */
  private syncing = false;
  /** Records were written since the running fsync began: another follows it. */
  private dirty = false;
  /** Closed while an fsync ran: the file is closed when it ends. */
  private closeAfterSync: number | null = null;
  private written = 0;
  private readonly crashPoint: CrashPoint | undefined = crashPointOf();

  private constructor(
    readonly path: string,
    fd: number,
    private readonly durable: boolean,
  ) {
    this.fd = fd;
  }

  /**
   * Creates the transcript of a new session and writes its header, with `first` in the same
   * write (the prompt: a kill cannot fall between the two).
   */
  static create(home: string, header: SessionHeader, options: { durable?: boolean } = {}, ...first: SessionRecord[]): TranscriptWriter {
    mkdirSync(sessionsDir(home), { recursive: true, mode: 0o700 });
    const path = transcriptPath(home, header.id);
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new SessionExistsError(`session ${header.id} exists already (${path})`);
      throw error;
    }
    const writer = new TranscriptWriter(path, fd, options.durable ?? true);
    writer.write(header, ...first);
    return writer;
  }

  /** Opens an existing transcript to go on appending (`--resume`). */
  static reopen(path: string, options: { durable?: boolean } = {}): TranscriptWriter {
    const fd = openSync(path, 'a+', 0o600);
    const writer = new TranscriptWriter(path, fd, options.durable ?? true);
    // A line torn by a crash must not swallow the next record: start on a fresh line.
    if (!endsWithNewline(fd)) writeSync(fd, '\n');
    return writer;
  }

  /** Appends the records in one write: a process killed meanwhile leaves all or none of them (or a torn last line). */
  write(...records: SessionRecord[]): void {
    if (this.fd === null) throw new Error(`transcript ${this.path} is closed`);
    const lines = records.map((record) => `${JSON.stringify(record)}\n`);
    const point = this.crashPoint;
    const before = this.written;
    this.written += lines.length;
    if (point && before < point.record && this.written >= point.record) {
      const cut = point.record - before - 1;
      const torn = lines[cut] as string;
      writeSync(this.fd, point.torn ? lines.slice(0, cut).join('') + torn.slice(0, Math.floor(torn.length / 2)) : lines.join(''));
      pauseForever(point);
    }
    writeSync(this.fd, lines.join(''));
    this.scheduleSync();
  }

  /** Flushes to the disk and closes the file; writing afterwards throws. */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    if (this.durable) fsyncSync(fd); // once, at the end of a run
    // An fsync still running on the thread pool has this descriptor: it is closed after it.
    if (this.syncing) this.closeAfterSync = fd;
    else closeSync(fd);
  }

  /**
   * Flushes what was written to the disk, off the main thread: `fs.fsync` runs on the thread
   * pool, so the event loop is not blocked (an fsync took 1-5 ms here, twice a turn). The records
   * themselves were written with `writeSync` before this, so a `kill -9` loses none of them; a
   * power cut loses at most what was written since the last fsync ended. Records written while
   * one runs are flushed by the next, one fsync for all of them.
   */
  private scheduleSync(): void {
    if (!this.durable) return;
    this.dirty = true;
    if (!this.syncing && this.fd !== null) this.startSync(this.fd);
  }

  private startSync(fd: number): void {
    this.syncing = true;
    this.dirty = false;
    fsync(fd, () => {
      this.syncing = false;
      if (this.closeAfterSync !== null) {
        closeSync(this.closeAfterSync);
        this.closeAfterSync = null;
      } else if (this.dirty && this.fd !== null) this.startSync(this.fd);
    });
  }
}

function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

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
}

export const MAX_PROBLEMS = 20;

/** Parses transcript text; lines that are not valid JSON or not a record of a known shape become `problems` and are skipped. */
export function parseTranscript(text: string, path = '<text>'): Transcript {
  const records: SessionRecord[] = [];
  const problems: string[] = [];
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
      else report(`${where}: ${problem.length > 200 ? `${problem.slice(0, 200)}...` : problem}: skipped`);
    }
    if (newline === -1) break;
  }
  if (more > 0) problems.push(`${plural(more, 'more unreadable line')} skipped`);
  const first = records[0];
  const header = first?.type === 'session' ? first : undefined;
  if (!header) problems.unshift('the transcript does not start with a session header');
  return { path, header, records, problems };
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
