/**
 * The unshare way: where bubblewrap is missing, util-linux (on every Debian and Ubuntu) contains commands as the
 * contained way does (contained.ts), with `unshare --pid --fork --kill-child --mount-proc` (and `-r`, a user namespace
 * of its own, as an unprivileged user):
 *
 * - a PID namespace and a /proc of its own; `setpriv --pdeathsig KILL` before unshare and `--kill-child` kill the
 *   namespace with the agent; `timeout -s KILL` inside it is the backstop;
 * - before the command, one `mount -a` of a table written here (a /dev of its own as bubblewrap makes it, devices.ts:
 *   the kept devices bound from the host's into a folder of this process, its own devpts, that folder read-only over
 *   /dev; /proc/sys, /proc/fs and, as root, /sys read-only), then `setpriv` leaves root the capabilities of the
 *   contained way (kernel.ts) and sets no_new_privs.
 *
 * The differences that remain: under `-r` the command sees itself as root (uid 0 of its user namespace, the user's own
 * id outside: its files are the user's); as root /sys/fs/cgroup and the other file systems mounted under /sys are not
 * shown (a bind of /sys's folders, read-only, covers them); /dev is read-only (bubblewrap's is a writable tmpfs).
 */
import { accessSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAtExit } from './atExit.js';
import { hostDevices, MADE_DEVICES, MADE_LINKS } from './devices.js';
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

/** The table's lines: `source target type options 0 0`; `dev`, the folder that becomes the command's /dev (devFolder). */
export function mountLines(root: boolean, dev: string): string[] {
  const lines = PROC_READ_ONLY.filter(exists).map((path) => `${path} ${path} none bind,ro 0 0`);
  // As root only: an unprivileged user cannot write /sys, and in its user namespace a bind of a folder with file systems
  // mounted under it (/sys/fs/cgroup) is refused.
  if (root) for (const dir of sysFolders()) lines.push(`${dir} ${dir} none bind,ro 0 0`);
  // A /dev of its own, as bubblewrap's --dev makes it (devices.ts): the harmless nodes and the kept devices bound from
  // the host's, its own devpts; then that folder over /dev, read-only (nothing can be made in it).
  for (const name of [...MADE_DEVICES, ...hostDevices().kept.map((d) => d.name)]) lines.push(`/dev/${name} ${join(dev, name)} none bind 0 0`);
  lines.push(`agentloop-devpts ${join(dev, 'pts')} devpts newinstance,ptmxmode=0666,mode=0620 0 0`);
  lines.push(`${dev} /dev none rbind,ro 0 0`);
  return lines;
}

let table: { dir: string; text: string; path: string } | undefined;

/** The path of the table for this process, written again when what it holds changed (the host's devices). */
function mountTable(root: boolean): string {
  if (table === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'agentloop-unshare-'));
    removeAtExit(dir);
    table = { dir, text: '', path: join(dir, 'fstab') };
  }
  const dev = join(table.dir, 'dev');
  const text = `${mountLines(root, dev).join('\n')}\n`;
  if (table.text === text) return table.path;
  devFolder(dev);
  writeFileSync(table.path, text, { mode: 0o600 });
  table.text = text;
  return table.path;
}

/** The places the table mounts on: an empty file for each device, a folder for each kept folder, bubblewrap's links. */
function devFolder(dev: string): void {
  mkdirSync(join(dev, 'pts'), { recursive: true });
  chmodSync(dev, 0o755); // /dev as commands see it: its own files are not the user's to change anyway (read-only)
  for (const name of MADE_DEVICES) writeFileSync(join(dev, name), '', { mode: 0o644 });
  for (const { name, dir } of hostDevices().kept) {
    if (dir) mkdirSync(join(dev, name), { recursive: true });
    else writeFileSync(join(dev, name), '', { mode: 0o644 });
  }
  for (const [name, target] of MADE_LINKS) {
    try {
      symlinkSync(target, join(dev, name));
    } catch {
      // made already
    }
  }
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
