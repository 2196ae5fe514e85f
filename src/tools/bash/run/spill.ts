/**
 * Where the bash tool keeps the full output of the commands whose output it cut (output.ts), and
 * the bound on all of it together.
 *
 * - With a folder (the CLI gives each session's, `$AGENTLOOP_HOME/sessions/<id>/`), the files
 *   stay with the session, so a path the model was given still holds after `--resume`. The
 *   bound counts what the folder holds already (earlier runs of the session) when the first file
 *   of this tool is made.
 * - Without one, a folder is made in the temporary directory when the first output is saved, and
 *   removed when the process exits (not after `kill -9`).
 *
 * Once the bound is reached, later outputs are cut as usual and not saved; the result says so.
 * Files are never removed to make room: every path the model was given stays true.
 *
 * Root running in another user's sessions folder (`sudo -E agentloop --continue`) gives the folders and files it makes
 * there to the owner of the sessions folder, as transcript/sessionFile.ts does with the session's own files: the user
 * can read, and remove, the outputs of their session.
 */
import { lchownSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeAtExit } from './atExit.js';

export class SpillSpace {
  private folder: string | undefined;
  private used: number | undefined;
  /** Whom what is made in the folder is given to (root in another user's folder), else undefined. */
  private owner: { uid: number; gid: number } | undefined;

  /** `dir`: where the outputs go (default: a temporary folder removed at exit); `maxBytes`: all of them together. */
  constructor(
    private readonly dir: string | undefined,
    readonly maxBytes: number,
  ) {}

  /** The folder of the outputs, if it was given or has been made (the sandbox shows it). */
  get folderOrUndefined(): string | undefined {
    return this.folder ?? this.dir;
  }

  /** The folder to make each output's own folder in; made on first use (throws if it cannot be). */
  root(): string {
    if (this.folder !== undefined) return this.folder;
    if (this.dir === undefined) {
      this.folder = mkdtempSync(join(tmpdir(), 'agentloop-output-'));
      removeAtExit(this.folder);
    } else {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.folder = this.dir;
      this.owner = folderOwnerForRoot(dirname(this.dir));
      this.own(this.dir);
    }
    return this.folder;
  }

  /** Gives `path` (made in the folder) to the folder's user, when this is root in another user's folder (a link put there is not followed). */
  own(path: string): void {
    if (this.owner !== undefined) lchownSync(path, this.owner.uid, this.owner.gid);
  }

  /** Says why no more output can be saved, once the bound is used up. */
  full(): string | undefined {
    this.used ??= sizeOf(this.root());
    return this.used >= this.maxBytes ? `the saved outputs reached their bound of ${this.maxBytes} bytes` : undefined;
  }

  /** Grants up to `bytes` of what is left of the bound (0 once it is used up). */
  take(bytes: number): number {
    this.used ??= sizeOf(this.root());
    const granted = Math.max(0, Math.min(bytes, this.maxBytes - this.used));
    this.used += granted;
    return granted;
  }
}

/** The owner of `folder` when this process is root and the folder is another user's. */
function folderOwnerForRoot(folder: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const { uid, gid } = statSync(folder);
  return uid === 0 ? undefined : { uid, gid };
}

/** Bytes in the files under `path` (a session's outputs: one folder per command). */
function sizeOf(path: string, depth = 0): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isFile()) total += statSync(child).size;
    else if (entry.isDirectory() && depth < 2) total += sizeOf(child, depth + 1);
  }
  return total;
}
