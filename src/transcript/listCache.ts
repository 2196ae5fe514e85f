/**
 * The session list's summaries kept beside the transcripts, in `sessions/.list-cache.json`, so that listing a home
 * whose transcripts did not change reads one file, not the ends of every transcript (BENCHMARKS.md, 8b: parsing
 * what was read, not the reading, is what the list cost).
 *
 * No entry is believed on its own word: it stands only while the transcript's size, modification and change times,
 * inode and device (from the one `stat` the list takes of each transcript anyway) are those it was read with. Every
 * write to a transcript moves its change time, which no one can set back (unlike the modification time), so a
 * transcript appended, cut or replaced since is read again. And an entry is kept only for a transcript left alone
 * for `SETTLED_MS` before it was read: a change within the same tick of the file system's clock (up to 2 s on some
 * file systems) leaves its times as they were, and might leave its size too.
 *
 * The file is written whole under a temporary name and renamed over the old one: a reader sees the old file or the
 * new, never half of one, whoever is killed when. Two listings at once may both write; the last rename wins, and
 * either file holds only what is true of the transcripts as they were read. A cache that cannot be read or parsed,
 * or an entry not of its shape, is read again from the transcripts without a word: it holds nothing the transcripts
 * do not, so losing it costs one slower listing and nothing else, and there is nothing a user could do about it. A
 * home the list cannot write (another user's, a read-only disk) is listed all the same, from the transcripts.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { sessionsDir } from './paths.js';
import { arrayOf, count, nullable, number, object, optional, string } from './shapes.js';

export const CACHE_NAME = '.list-cache.json';
const VERSION = 1;
/** How long a transcript must have been left alone before what was read of it is kept. */
export const SETTLED_MS = 2_000;
/** A cache larger than this is no cache (2,000 sessions take 600 KB). */
const MAX_CACHE_BYTES = 64 * 2 ** 20;
/** A temporary file older than this was left by a writer that was killed. */
const LEFT_BEHIND_MS = 60_000;

/** What a session's summary holds that is read from its transcript (the rest comes from its stat and its lock). */
export interface ReadSummary {
  id: string;
  cwd: string;
  model: string;
  createdAt: string;
  firstPrompt: string;
  label?: string;
  turns: number;
  exitReason: string | null;
  problems: string[];
}

/** Size, modification and change times, inode, device. */
type Key = number[];
/** `summary` null: the file is no session (it has no header). */
interface Entry {
  key: Key;
  summary: ReadSummary | null;
}

const isEntry = object({
  key: arrayOf(number),
  summary: nullable(
    object({ id: string, cwd: string, model: string, createdAt: string, firstPrompt: string, label: optional(string), turns: count, exitReason: nullable(string), problems: arrayOf(string) }),
  ),
});

export interface SummaryCache {
  dir: string;
  /** The entries read from the file. */
  old: Map<string, Entry>;
  /** The entries to write: those that still stand and those read again. */
  next: Map<string, Entry>;
}

const keyOf = (s: Stats): Key => [s.size, s.mtimeMs, s.ctimeMs, s.ino, s.dev];

/** The cache of `home`'s sessions folder; empty when there is none or it cannot be read. */
export function openCache(home: string): SummaryCache {
  const dir = sessionsDir(home);
  const old = new Map<string, Entry>();
  try {
    const file = JSON.parse(readCacheFile(join(dir, CACHE_NAME))) as { version?: unknown; entries?: unknown };
    const entries = file.version === VERSION && typeof file.entries === 'object' && file.entries !== null ? file.entries : {};
    for (const [name, entry] of Object.entries(entries)) if (isEntry(entry, 0) === undefined && (entry as Entry).key.length === 5) old.set(name, entry as Entry);
  } catch {
    // none yet, unreadable or damaged: every transcript is read again
  }
  return { dir, old, next: new Map() };
}

/** The cache's text; nothing when it is not a file of a cache's size (a pipe put there would block the list, `/dev/zero` fill it). */
function readCacheFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    return stat.isFile() && stat.size <= MAX_CACHE_BYTES ? readFileSync(fd, 'utf8') : '';
  } finally {
    closeSync(fd);
  }
}

/** What was read of transcript `name` when its stat was `stat`, or `undefined` when that is not known. */
export function cachedSummary(cache: SummaryCache, name: string, stat: Stats): ReadSummary | null | undefined {
  const entry = cache.old.get(name);
  const key = keyOf(stat);
  if (entry === undefined || entry.key.some((value, i) => value !== key[i])) return undefined;
  cache.next.set(name, entry);
  return entry.summary;
}

/** Keeps what was read of transcript `name` (its `stat` from the read, started at `readAt`) if it had settled. */
export function remember(cache: SummaryCache, name: string, stat: Stats, summary: ReadSummary | null, readAt: number): void {
  if (stat.ctimeMs < readAt - SETTLED_MS) cache.next.set(name, { key: keyOf(stat), summary });
}

/** Writes the cache when it changed (an entry read again or gone); a folder that cannot be written is left as it is. */
export function saveCache(cache: SummaryCache): void {
  const { old, next } = cache;
  if (next.size === old.size && [...next].every(([name, entry]) => old.get(name) === entry)) return;
  const tmp = join(cache.dir, `${CACHE_NAME}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify({ version: VERSION, entries: Object.fromEntries(next) }), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(cache.dir, CACHE_NAME));
  } catch {
    // a home this process cannot write: listed from the transcripts each time
    try {
      unlinkSync(tmp);
    } catch {
      // never made
    }
    return;
  }
  removeLeftBehind(cache.dir);
}

/** Removes the temporary files of writers killed before their rename. */
function removeLeftBehind(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${CACHE_NAME}.`) || !name.endsWith('.tmp')) continue;
    try {
      if (statSync(join(dir, name)).mtimeMs < Date.now() - LEFT_BEHIND_MS) unlinkSync(join(dir, name));
    } catch {
      // removed meanwhile by another listing
    }
  }
}
