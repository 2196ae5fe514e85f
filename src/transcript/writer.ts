/**
 * Appends records to a session transcript (`paths.ts` says where).
 *
 * Each write is one `writeSync` of whole lines, so a process killed with `kill -9` loses nothing
 * already written (the bytes are in the kernel) and leaves at most one torn line; an `fsync`
 * follows on the thread pool (the event loop is not blocked), at most one every `SYNC_EVERY_MS`,
 * so a power cut loses at most the records of the last 50 ms or so. The recorder decides what
 * goes into one write.
 */
import { closeSync, fstatSync, fsync, fsyncSync, mkdirSync, statSync, writeSync } from 'node:fs';
import { outOfFiles } from '../core/openFiles.js';
import { noRedaction, type Redactor } from '../core/redact.js';
import { crashPointOf, pauseForever, pauseIndex, type CrashPoint } from './crashPoint.js';
import { endsWithNewline, openSessionFile } from './sessionFile.js';
import { sessionsDir, transcriptPath } from './paths.js';
import type { SessionHeader, SessionRecord } from './records.js';

/** The shortest time between the starts of two fsyncs of a transcript. */
export const SYNC_EVERY_MS = 50;

/** A new session was given the id of one that exists (`--session-id`): it is left untouched. */
export class SessionExistsError extends Error {
  override readonly name = 'SessionExistsError';
}

export interface WriterOptions {
  /** fsync after writes (default true). */
  durable?: boolean | undefined;
  /** Every line written goes through it: no record holds a secret (core/redact.ts). */
  redactor?: Redactor | undefined;
}


/** What became of a transcript while it was being written. */
export type TranscriptLoss = 'removed' | 'replaced' | 'truncated';

/**
 * The file at the transcript's path is no longer the one being written (removed, replaced, or cut
 * shorter than what was written): nothing was written, the file at the path is left as it is.
 */
export class TranscriptLostError extends Error {
  override readonly name = 'TranscriptLostError';
  constructor(
    readonly path: string,
    readonly loss: TranscriptLoss,
  ) {
    super(`the transcript ${path} was ${loss} during the run`);
  }
}

/**
 * Appends records to one transcript file. Not thread-safe: one writer per file (lock.ts keeps
 * other processes out). Before each write it checks that the file at the path is still the one it
 * writes, as long as it wrote it (`TranscriptLostError` otherwise: one `stat`, about 2 µs).
 */
export class TranscriptWriter {
  private fd: number | null;
  /** The file written (device and inode) and its size after the last write. */
  private readonly dev: number;
  private readonly ino: number;
  private size: number;
  /** An fsync is running on the thread pool. */
  private syncing = false;
  /** Records were written since the running fsync began: another follows it. */
  private dirty = false;
  /** Closed while an fsync ran: the file is closed when it ends. */
  private closeAfterSync: number | null = null;
  /** Waits to start the next fsync (`SYNC_EVERY_MS`). */
  private timer: NodeJS.Timeout | undefined;
  private lastSyncStart = -Infinity;
  private written = 0;
  private readonly crashPoint: CrashPoint | undefined = crashPointOf();

  private readonly durable: boolean;
  private readonly redactor: Redactor;

  private constructor(
    readonly path: string,
    fd: number,
    options: WriterOptions,
  ) {
    this.fd = fd;
    this.durable = options.durable ?? true;
    this.redactor = options.redactor ?? noRedaction;
    const stat = fstatSync(fd);
    this.dev = stat.dev;
    this.ino = stat.ino;
    this.size = stat.size;
  }

  /**
   * Creates the transcript of a new session and writes its header, with `first` in the same
   * write (the prompt: a kill cannot fall between the two).
   */
  static create(home: string, header: SessionHeader, options: WriterOptions = {}, ...first: SessionRecord[]): TranscriptWriter {
    mkdirSync(sessionsDir(home), { recursive: true, mode: 0o700 });
    const path = transcriptPath(home, header.id);
    let fd: number;
    try {
      fd = openSessionFile(path, 'create');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new SessionExistsError(`session ${header.id} exists already (${path})`);
      const files = outOfFiles(error);
      throw files ? new Error(`cannot open the transcript ${path} (${code}): ${files}`, { cause: error }) : error;
    }
    const writer = new TranscriptWriter(path, fd, options);
    writer.write(header, ...first);
    return writer;
  }

  /** Opens an existing transcript to go on appending (`--resume`). */
  static reopen(path: string, options: WriterOptions = {}): TranscriptWriter {
    const fd = openSessionFile(path, 'append');
    const writer = new TranscriptWriter(path, fd, options);
    // A line torn by a crash must not swallow the next record: start on a fresh line.
    if (!endsWithNewline(fd)) writer.size += writeSync(fd, '\n');
    return writer;
  }

  /** Appends the records in one write: a process killed meanwhile leaves all or none of them (or a torn last line). */
  write(...records: SessionRecord[]): void {
    this.writeLines(records.map((record) => `${JSON.stringify(record)}\n`));
  }

  /** Appends lines, each a record as JSON with its newline, in one write (as `write`); every line redacted first. */
  writeLines(written: readonly string[]): void {
    if (this.fd === null) throw new Error(`transcript ${this.path} is closed`);
    const lines = this.redactor.active ? written.map((line) => redactLine(line, this.redactor)) : written;
    this.check();
    const point = this.crashPoint;
    const before = this.written;
    this.written += lines.length;
    const cut = point && pauseIndex(point, before, lines);
    if (point && cut !== undefined) {
      const torn = lines[cut] as string;
      writeSync(this.fd, point.torn ? lines.slice(0, cut).join('') + torn.slice(0, Math.floor(torn.length / 2)) : lines.join(''));
      pauseForever(point);
    }
    this.size += writeSync(this.fd, lines.length === 1 ? (lines[0] as string) : lines.join(''));
    this.scheduleSync();
  }

  /** Throws `TranscriptLostError` when the file at the path is not the one written, as long as written. */
  check(): void {
    const now = statSync(this.path, { throwIfNoEntry: false });
    const loss: TranscriptLoss | undefined =
      now === undefined ? 'removed' : now.ino !== this.ino || now.dev !== this.dev ? 'replaced' : now.size < this.size ? 'truncated' : undefined;
    if (loss) throw new TranscriptLostError(this.path, loss);
  }

  /** Flushes to the disk and closes the file; writing afterwards throws. */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.durable) fsyncSync(fd); // once, at the end of a run
    // An fsync still running on the thread pool has this descriptor: it is closed after it.
    if (this.syncing) this.closeAfterSync = fd;
    else closeSync(fd);
  }

  /**
   * Flushes what was written to the disk, off the main thread: `fs.fsync` runs on the thread
   * pool, so the event loop is not blocked (an fsync took 1-5 ms here). The records themselves
   * were written with `writeSync` before this, so a `kill -9` loses none of them. One fsync
   * starts at most every `SYNC_EVERY_MS`, for all that was written since the last one began: a
   * write after a quiet spell (a model call, a tool) is flushed at once, a burst of fast turns
   * shares one fsync (each costs the thread pool, the kernel and the loop's callback), and a
   * power cut loses at most the records of the last `SYNC_EVERY_MS` and the fsync's own time.
   */
  private scheduleSync(): void {
    if (!this.durable) return;
    this.dirty = true;
    if (this.syncing || this.timer || this.fd === null) return;
    const wait = this.lastSyncStart + SYNC_EVERY_MS - performance.now();
    if (wait <= 0) this.startSync(this.fd);
    else {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.fd !== null) this.startSync(this.fd);
      }, wait);
      this.timer.unref(); // close() flushes what is left; a process that never closes has it in the kernel
    }
  }

  private startSync(fd: number): void {
    this.syncing = true;
    this.dirty = false;
    this.lastSyncStart = performance.now();
    fsync(fd, () => {
      this.syncing = false;
      if (this.closeAfterSync !== null) {
        closeSync(this.closeAfterSync);
        this.closeAfterSync = null;
      } else if (this.dirty) this.scheduleSync();
    });
  }
}

/** A record's line with its strings redacted: the line itself when it holds no secret. */
function redactLine(line: string, redactor: Redactor): string {
  const clean = redactor.jsonText(line);
  return clean === line || clean.endsWith('\n') ? clean : `${clean}\n`;
}
