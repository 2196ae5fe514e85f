/**
 * What the model has seen of each file in this run (Claude Code's readFileState): Write and Edit refuse a file that
 * exists and was not read in full first, or that changed on disk since (its mtime is later and its content differs).
 * One state per run: `createFileTools` makes one that its five tools share, so a new run (a new set of tools) starts
 * with none. A resumed run may seed it from its history (`seedFromHistory`): a file read earlier counts as read when
 * its content is still what the model saw, as Claude Code's resume does.
 */
import { createHash } from 'node:crypto';

export interface SeenFile {
  /** The content the model saw (a hash of it, for big files). */
  digest: string;
  /** The file's mtime (ms, floored) when it was read or written. */
  timestamp: number;
  /** Read from line 1 to the end: a write may then compare contents when the mtime moved. */
  whole: boolean;
  /** Only a first page was shown (the token cap): not read, for Write and Edit. */
  partial: boolean;
  /** The lines a Read showed (absent after a write): the same Read of an unchanged file is not answered again. */
  range?: { offset: number; limit: number | undefined };
}

/** At most this many files are remembered; the oldest are forgotten first. */
const MAX_FILES = 1000;

export class FileState {
  readonly #files = new Map<string, SeenFile>();
  #seeded = false;

  /** Records that the model saw `content` of the file at `path` (absolute), with its mtime. */
  saw(path: string, content: string, timestamp: number, how: { whole: boolean; partial?: boolean; range?: SeenFile['range'] }): void {
    this.#files.delete(path);
    const seen: SeenFile = { digest: digestOf(content), timestamp: Math.floor(timestamp), whole: how.whole, partial: how.partial ?? false };
    this.#files.set(path, how.range ? { ...seen, range: how.range } : seen);
    if (this.#files.size > MAX_FILES) this.#files.delete(this.#files.keys().next().value as string);
  }

  get(path: string): SeenFile | undefined {
    return this.#files.get(path);
  }

  /** Whether a Read of these lines was answered already and the file has not changed since (Claude Code's dedup). */
  isUnchangedRead(path: string, offset: number, limit: number | undefined, mtimeMs: number): boolean {
    const seen = this.#files.get(path);
    return seen?.range !== undefined && !seen.partial && seen.range.offset === offset && seen.range.limit === limit && Math.floor(mtimeMs) === seen.timestamp;
  }

  /**
   * Why `path` may not be overwritten now (Claude Code's words), or null: it must have been read in full (not a
   * partial page), and be unchanged since: an mtime no later than the read's, or the same content after a whole read.
   */
  staleReason(path: string, mtimeMs: number, currentContent: () => string): string | null {
    const seen = this.#files.get(path);
    if (seen === undefined || seen.partial) return 'File has not been read yet. Read it first before writing to it.';
    if (Math.floor(mtimeMs) <= seen.timestamp) return null;
    if (seen.whole && seen.digest === digestOf(currentContent())) return null;
    return 'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';
  }

  /**
   * Seeds the state from a resumed history: each Read of a whole text file whose result came back (not an error)
   * counts as read, with the content its numbered lines showed, as of no particular time (so a write compares
   * contents). `resolve` makes the tool's file_path absolute.
   */
  seedFromHistory(messages: readonly { role: string; content: unknown }[], resolve: (path: string) => string): void {
    // Once a run: later histories of the same run only repeat what this state saw first hand, and more freshly.
    if (this.#seeded) return;
    this.#seeded = true;
    const reads = new Map<string, string>();
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean }[]) {
        if (block.type === 'tool_use' && block.name === 'Read' && isWholeRead(block.input)) reads.set(block.id ?? '', (block.input as { file_path: string }).file_path);
        if (block.type !== 'tool_result' || block.is_error === true || typeof block.content !== 'string') continue;
        const path = reads.get(block.tool_use_id ?? '');
        if (path === undefined || block.content.startsWith('<system-reminder>') || this.#files.has(resolve(path))) continue;
        this.saw(resolve(path), unnumbered(block.content), 0, { whole: true });
      }
    }
  }
}

function isWholeRead(input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false;
  const { file_path, offset, limit } = input as Record<string, unknown>;
  return typeof file_path === 'string' && (offset === undefined || (typeof offset === 'number' && offset <= 1)) && limit === undefined;
}

/** The file's text from Read's numbered lines (`1\ta`). */
export function unnumbered(numbered: string): string {
  return numbered
    .split('\n')
    .map((line) => /^\s*\d+[\u2192\t](.*)$/s.exec(line)?.[1] ?? line)
    .join('\n');
}

function digestOf(content: string): string {
  return content.length <= 4096 ? `=${content}` : createHash('sha256').update(content).digest('base64');
}
