/**
 * Makes protect.ts's paths ready to mount read-only: finds, for each, what the sandbox must bind (the path, or its
 * first missing part, made as a placeholder; the folders on the way, pinned so that they cannot be renamed away with
 * what is mounted in them), and removes the placeholders once no command uses them.
 *
 * A placeholder is made on the host (a mount needs a place to go): an empty folder, or a file that reads as the file's
 * absence would (protect.ts's `standIn`), so that one left behind by a killed agent changes nothing. A placeholder
 * shared by several commands, of this process or of another agentloop of the same user (its holders, in a folder of
 * the temporary directory), goes once the last of them has ended: removed earlier, it would take the mount away from
 * a command still running (the kernel detaches a mount whose place is removed). What a dead process held is removed
 * by the next that uses it; what changed since it was made is left alone.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { linkedTargets, type ProtectedName, type ProtectedPath } from './protect.js';

export interface Protection {
  /** Folders to bind onto themselves (writable): mount points, so that they cannot be renamed or removed. */
  pins: string[];
  /** Paths to bind onto themselves read-only. */
  readOnly: string[];
  /** Gives the placeholders back; the last user of one removes it. */
  release(): void;
}

interface Placeholder {
  path: string;
  /** A file's content; undefined for a folder (empty). */
  content?: string;
}

/** Placeholders this process uses, by path, and how many of its commands do. */
const held = new Map<string, { placeholder: Placeholder; count: number }>();

export function prepareProtection(paths: readonly ProtectedPath[], cwd: string): Protection {
  sweepOnce();
  listing = readRegistry();
  try {
    return walk(paths, cwd, true);
  } finally {
    listing = undefined;
  }
}

/**
 * The protection of what exists, with no placeholder made for what does not (which could then be made): for a program
 * that outlives any one call (an MCP server), whose placeholders would have to outlive the call that made them.
 */
export function existingProtection(paths: readonly ProtectedPath[], cwd: string): Pick<Protection, 'pins' | 'readOnly'> {
  const { pins, readOnly } = walk(paths, cwd, false);
  return { pins, readOnly };
}

function walk(paths: readonly ProtectedPath[], cwd: string, makePlaceholders: boolean): Protection {
  const pins = new Set<string>();
  const readOnly = new Set<string>();
  const used: string[] = [];
  const queue = [...paths];
  const seen = new Set<string>();
  for (let next = 0; next < queue.length; next++) {
    const p = queue[next] as ProtectedPath;
    if (seen.has(p.path)) continue;
    seen.add(p.path);
    // Where it leads through links, when the command could write that: protected in the working directory as well.
    for (const target of linkedTargets(p)) if (target !== p.path && isWithin(target, cwd)) queue.push(inWorkingDirectory(target, p, cwd));
    if (p.linksOnly) continue;
    if (p.folder !== cwd) pins.add(p.folder);
    const parts = relative(p.folder, p.path).split(sep);
    let at = p.folder;
    for (const [i, part] of parts.entries()) {
      at = join(at, part);
      const last = i === parts.length - 1;
      const stats = lstatOrUndefined(at);
      if (stats === undefined) {
        if (!makePlaceholders) break;
        const placeholder: Placeholder = last && !p.entry.dir ? { path: at, content: p.entry.standIn?.(p.folder) ?? NOTE } : { path: at };
        if (take(placeholder)) {
          used.push(at);
          readOnly.add(at);
        }
        break;
      }
      // A placeholder another command made, of this process or another: held here too, so that it stays until both end.
      if (makePlaceholders && shareIfPlaceholder(at)) used.push(at);
      // A link cannot be mounted on: its target was queued above (the docs say so).
      if (stats.isSymbolicLink()) break;
      if (last || !stats.isDirectory()) {
        readOnly.add(at); // a file where a folder is expected: a `.git` file that points at a git folder elsewhere
        break;
      }
      pins.add(at);
    }
  }
  let released = false;
  return {
    pins: [...pins],
    readOnly: [...readOnly],
    release: () => {
      if (released) return;
      released = true;
      // The last made first: a folder made as a placeholder is removed only once what was made in it is gone.
      for (const path of used.reverse()) give(path);
    },
  };
}

const NOTE = '# agentloop: stands in for a missing file while a sandboxed command runs; removed after it\n';

/** `target` (in the working directory), where the protected path `p` leads, as a protected path of its own there. */
function inWorkingDirectory(target: string, p: ProtectedPath, cwd: string): ProtectedPath {
  const { standIn } = p.entry;
  const entry: ProtectedName = { name: relative(cwd, target), dir: p.entry.dir, ...(standIn ? { standIn: () => standIn(p.folder) } : {}) };
  return { path: target, folder: cwd, entry };
}

function isWithin(path: string, folder: string): boolean {
  return path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/** Makes the placeholder unless this process holds it already, and counts this command among its users. */
function take(placeholder: Placeholder): boolean {
  const known = held.get(placeholder.path);
  if (known !== undefined) {
    known.count++;
    return true;
  }
  writeHolder(placeholder);
  try {
    if (placeholder.content === undefined) mkdirSync(placeholder.path, { mode: 0o755 });
    else writeFileSync(placeholder.path, placeholder.content, { flag: 'wx', mode: 0o644 });
  } catch (error) {
    // Made meanwhile by another agentloop (it holds it too now, so it stays), or not writable here, where the command
    // cannot write either.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      removeHolder(placeholder.path);
      return false;
    }
  }
  held.set(placeholder.path, { placeholder, count: 1 });
  return true;
}

/** When `path` is a placeholder a live command holds, holds it for this command too (true). */
function shareIfPlaceholder(path: string): boolean {
  const known = held.get(path);
  if (known !== undefined) {
    known.count++;
    return true;
  }
  const placeholder = placeholderHeldElsewhere(path);
  if (placeholder === undefined) return false;
  writeHolder(placeholder);
  held.set(path, { placeholder, count: 1 });
  return true;
}

function give(path: string): void {
  const known = held.get(path);
  if (known === undefined || --known.count > 0) return;
  held.delete(path);
  removeHolder(path);
  if (!heldElsewhere(path)) removeIfUnchanged(known.placeholder);
}

function removeIfUnchanged(placeholder: Placeholder): void {
  try {
    if (placeholder.content === undefined) rmdirSync(placeholder.path); // fails unless still empty
    else if (readFileSync(placeholder.path, 'utf8') === placeholder.content) unlinkSync(placeholder.path);
  } catch {
    // gone already, or changed (then it is not ours to remove)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Holders: one file per placeholder and process, `<hash of the path>-<pid>-<start time>`, holding the placeholder.

const registry = join(tmpdir(), `agentloop-placeholders-${process.getuid?.() ?? 'user'}`);
const me = `${process.pid}-${startTime(process.pid)}`;
const hash = (path: string) => createHash('sha1').update(path).digest('hex').slice(0, 20);

function writeHolder(placeholder: Placeholder): void {
  mkdirSync(registry, { recursive: true, mode: 0o700 });
  writeFileSync(join(registry, `${hash(placeholder.path)}-${me}`), JSON.stringify(placeholder));
}

function removeHolder(path: string): void {
  try {
    unlinkSync(join(registry, `${hash(path)}-${me}`));
  } catch {
    // never written
  }
}

/** Whether a live process other than this one holds the placeholder at `path`. */
function heldElsewhere(path: string): boolean {
  return placeholderHeldElsewhere(path) !== undefined;
}

/** The placeholder at `path` as a live process other than this one holds it. */
function placeholderHeldElsewhere(path: string): Placeholder | undefined {
  const prefix = `${hash(path)}-`;
  for (const name of holders()) {
    if (!name.startsWith(prefix) || name === `${prefix}${me}` || !isLive(name.slice(prefix.length))) continue;
    try {
      return JSON.parse(readFileSync(join(registry, name), 'utf8')) as Placeholder;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** The registry's listing, read once per prepareProtection (a command looks up many paths). */
let listing: string[] | undefined;

function holders(): string[] {
  return listing ?? readRegistry();
}

function readRegistry(): string[] {
  try {
    return readdirSync(registry);
  } catch {
    return [];
  }
}

let swept = false;

/** Once per process: the placeholders of dead processes that no live one holds are removed (when unchanged). */
function sweepOnce(): void {
  if (swept) return;
  swept = true;
  for (const name of holders()) {
    const owner = name.slice(21);
    if (isLive(owner)) continue;
    const file = join(registry, name);
    try {
      const placeholder = JSON.parse(readFileSync(file, 'utf8')) as Placeholder;
      unlinkSync(file);
      if (!held.has(placeholder.path) && !heldElsewhere(placeholder.path)) removeIfUnchanged(placeholder);
    } catch {
      // another process swept it first
    }
  }
}

/** `pid-starttime` names a live process (the start time tells a reused pid apart). */
function isLive(owner: string): boolean {
  const [pid, start] = owner.split('-');
  return pid !== undefined && start !== undefined && startTime(Number(pid)) === start;
}

/** The start time of a process (field 22 of /proc/PID/stat), or '' when there is no such process. */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
