/**
 * The unshare way: where bubblewrap is missing, util-linux (on every Debian and Ubuntu) contains commands as the
 * contained way does (contained.ts), with `unshare --pid --fork --kill-child --mount-proc` (and `-r`, a user namespace
 * of its own, as an unprivileged user):
 *
 * - a PID namespace and a /proc of its own; `setpriv --pdeathsig KILL` before unshare and `--kill-child` kill the
 *   namespace with the agent; `timeout -s KILL` inside it is the backstop;
 * - before the command, one `mount -a` of a table written here (its own devpts over /dev/pts, /dev/null over every
 *   other terminal and input device it could open, /proc/sys, /proc/fs and, as root, /sys read-only), then `setpriv`
 *   leaves root the capabilities of the contained way (kernel.ts) and sets no_new_privs.
 *
 * The differences that remain: under `-r` the command sees itself as root (uid 0 of its user namespace, the user's own
 * id outside: its files are the user's); as root /sys/fs/cgroup and the other file systems mounted under /sys are not
 * shown (a bind of /sys's folders, read-only, covers them); the host's /dev is kept as it is otherwise.
 */
import { accessSync, constants, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAtExit } from './atExit.js';
import { hostDevices } from './devices.js';
import { PROC_READ_ONLY, rootBoundingSet } from './kernel.js';
import { backstop, isRoot } from './programs.js';
import { launch, type CommandRunner } from './runner.js';

export interface UnsharePrograms {
  setpriv: string;
  unshare: string;
  timeout: string | undefined;
}

/** What runs in the namespace first: the mounts, then the command with root's capabilities cut down. */
const SETUP = 'mount -a -T "$0" && exec "$1" --no-new-privs --bounding-set "$2" --inh-caps -all -- "${@:3}"';

export function unshareArgv(p: UnsharePrograms, command: string, timeoutMs: number): [string, ...string[]] {
  return [...unsharePrefix(p), ...backstop(p.timeout, timeoutMs), 'bash', '-c', command];
}

/**
 * The argv up to the program run contained. The setup's bash reads no ~/.bashrc (`--norc`), which bash would read
 * when its stdin is a socket (as for a program talked to over its stdin: an MCP server).
 */
function unsharePrefix(p: UnsharePrograms): [string, ...string[]] {
  const root = isRoot();
  return [
    p.setpriv, '--pdeathsig', 'KILL', '--',
    p.unshare, ...(root ? [] : ['-r']), '--pid', '--fork', '--kill-child', '--mount-proc', '--',
    'bash', '--norc', '-c', SETUP, mountTable(root), p.setpriv, rootBoundingSet(),
  ];
}

export function unshareRunner(p: UnsharePrograms): CommandRunner {
  return {
    kind: 'unshare',
    run: (run) => launch(unshareArgv(p, run.command, run.timeoutMs), run),
    wrap: (argv) => [...unsharePrefix(p), ...argv],
  };
}

/** The table's lines: `source target type options 0 0`. */
export function mountLines(root: boolean): string[] {
  const lines = PROC_READ_ONLY.filter(exists).map((path) => `${path} ${path} none bind,ro 0 0`);
  // As root only: an unprivileged user cannot write /sys, and in its user namespace a bind of a folder with file systems
  // mounted under it (/sys/fs/cgroup) is refused.
  if (root) for (const dir of sysFolders()) lines.push(`${dir} ${dir} none bind,ro 0 0`);
  lines.push('agentloop-devpts /dev/pts devpts newinstance,ptmxmode=0666,mode=0620 0 0');
  for (const { path, dir } of hostDevices().covered) {
    if (!root && !writable(path)) continue;
    lines.push(dir ? `agentloop-empty ${path} tmpfs ro,mode=0555 0 0` : `/dev/null ${path} none bind 0 0`);
  }
  return lines;
}

let table: { dir: string; text: string; path: string } | undefined;

/** The path of the table for this process, written again when what it holds changed (the host's devices). */
function mountTable(root: boolean): string {
  const text = `${mountLines(root).join('\n')}\n`;
  if (table?.text === text) return table.path;
  if (table === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'agentloop-unshare-'));
    removeAtExit(dir);
    table = { dir, text: '', path: join(dir, 'fstab') };
  }
  writeFileSync(table.path, text, { mode: 0o600 });
  table.text = text;
  return table.path;
}

function sysFolders(): string[] {
  try {
    return readdirSync('/sys', { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join('/sys', e.name));
  } catch {
    return [];
  }
}

function exists(path: string): boolean {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
