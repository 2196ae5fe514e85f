/**
 * Collects a command's output with bounded memory: the first and last bytes are kept, the middle
 * is only counted; once the output is too long to show whole, everything is also written to a
 * temporary file (up to `maxFileBytes`) whose path the result gives.
 */
import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prefixEnd, suffixStart } from './utf8.js';

export interface OutputLimits {
  /** At most this many characters (UTF-16 units) of output are shown. */
  maxChars: number;
  /** The saved full output stops growing at this many bytes. */
  maxFileBytes: number;
  /** Where the `agentloop-bash-XXXXXX` directory is made; default `os.tmpdir()`. */
  tempRoot?: string;
  /** Where the directory is made instead, and a bound shared with other commands (spill.ts); `own` hands a new path to the folder's user. */
  spill?: { root(): string; take(bytes: number): number; full(): string | undefined; own?(path: string): void };
}

export interface CollectedOutput {
  /** The whole output, or its head and tail around a `[... N bytes omitted ...]` line. */
  text: string;
  totalBytes: number;
  truncated: boolean;
  /** Bytes of the output not in `text` (0 when not truncated). */
  omittedBytes: number;
  /** The saved output; only when truncated and the file could be written. */
  file?: { path: string; bytes: number; complete: boolean };
  /** Why the output could not be saved. */
  fileError?: string;
  /** Some bytes were not valid UTF-8 and are shown as U+FFFD. */
  invalidUtf8: boolean;
}

/** A UTF-8 character is at most 4 bytes: keeping 4 bytes per character shown is always enough. */
const BYTES_PER_CHAR = 4;

export class OutputCollector {
  private readonly cap: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;
  private readonly validator = new TextDecoder('utf-8', { fatal: true });
  private invalid = false;
  private fd: number | null = null;
  private path: string | null = null;
  private fileBytes = 0;
  private fileError: string | undefined;

  constructor(private readonly limits: OutputLimits) {
    this.cap = limits.maxChars * BYTES_PER_CHAR;
  }

  /** Bytes held in memory: bounded by twice the cap plus one chunk, whatever was written. */
  get retainedBytes(): number {
    return this.headBytes + this.tailBytes;
  }

  write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.validate(chunk);
    const before = this.total;
    this.total += chunk.length;
    if (before < this.cap) {
      const part = chunk.subarray(0, this.cap - before);
      this.head.push(part);
      this.headBytes += part.length;
    }
    this.pushTail(chunk);
    if (this.total > this.cap) {
      if (this.fd === null && this.fileError === undefined) this.openFile(this.head);
      if (before >= this.cap) this.save(chunk);
      else this.save(chunk.subarray(this.cap - before));
    }
  }

  finish(): CollectedOutput {
    try {
      this.validator.decode();
    } catch {
      this.invalid = true;
    }
    const result = this.total <= this.cap ? this.fromMemory() : this.fromHeadAndTail();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    return result;
  }

  private fromMemory(): CollectedOutput {
    const all = Buffer.concat(this.head);
    const text = new TextDecoder().decode(all);
    const base = { totalBytes: this.total, invalidUtf8: this.invalid };
    if (text.length <= this.limits.maxChars) return { ...base, text, truncated: false, omittedBytes: 0 };
    this.openFile([all]);
    const headEnd = prefixEnd(all, this.headChars());
    const tailStart = Math.max(headEnd, suffixStart(all, this.tailChars()));
    return this.cut(all.subarray(0, headEnd), all.subarray(tailStart));
  }

  private fromHeadAndTail(): CollectedOutput {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    return this.cut(head.subarray(0, prefixEnd(head, this.headChars())), tail.subarray(suffixStart(tail, this.tailChars())));
  }

  private cut(head: Buffer, tail: Buffer): CollectedOutput {
    const omittedBytes = this.total - head.length - tail.length;
    const decoder = new TextDecoder();
    const text = `${decoder.decode(head)}\n[... ${omittedBytes} bytes omitted ...]\n${decoder.decode(tail)}`;
    const result: CollectedOutput = {
      text,
      totalBytes: this.total,
      truncated: true,
      omittedBytes,
      invalidUtf8: this.invalid,
    };
    if (this.path !== null && this.fileError === undefined) {
      result.file = { path: this.path, bytes: this.fileBytes, complete: this.fileBytes === this.total };
    }
    if (this.fileError !== undefined) result.fileError = this.fileError;
    return result;
  }

  private headChars(): number {
    return Math.floor(this.limits.maxChars / 2);
  }

  private tailChars(): number {
    return this.limits.maxChars - this.headChars();
  }

  private pushTail(chunk: Buffer): void {
    const part = chunk.length > this.cap ? chunk.subarray(chunk.length - this.cap) : chunk;
    this.tail.push(part);
    this.tailBytes += part.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0] as Buffer).length >= this.cap) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  private validate(chunk: Buffer): void {
    if (this.invalid) return;
    try {
      this.validator.decode(chunk, { stream: true });
    } catch {
      this.invalid = true;
    }
  }

  private openFile(initial: Buffer[]): void {
    try {
      this.fileError = this.limits.spill?.full();
      if (this.fileError !== undefined) return;
      const dir = mkdtempSync(join(this.limits.spill?.root() ?? this.limits.tempRoot ?? tmpdir(), 'agentloop-bash-'));
      this.path = join(dir, 'output.txt');
      this.fd = openSync(this.path, 'w', 0o600);
      // The file first, then its folder: once the folder is the user's, nothing more is opened in it.
      this.limits.spill?.own?.(this.path);
      this.limits.spill?.own?.(dir);
    } catch (err) {
      this.fileError = (err as Error).message;
      return;
    }
    for (const b of initial) this.save(b);
  }

  /** Appends to the file, synchronously: no queue can grow, whatever the command prints. */
  private save(chunk: Buffer): void {
    if (this.fd === null) return;
    const room = this.limits.maxFileBytes - this.fileBytes;
    let part = chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
    try {
      if (this.limits.spill && part.length > 0) part = part.subarray(0, this.limits.spill.take(part.length));
      let off = 0;
      while (off < part.length) off += writeSync(this.fd, part, off, part.length - off);
      this.fileBytes += part.length;
    } catch (err) {
      this.fileError = (err as Error).message;
      closeSync(this.fd);
      this.fd = null;
    }
  }
}
