/**
 * A guard against the model's worst mistakes: it is NOT a security boundary (use the sandbox for
 * that). It reads the command line with a real bash parser (tree-sitter-bash, shell/parse.ts), or,
 * before that has loaded, a line of plain words the same way (shell/plain.ts, shell/reader.ts),
 * and sees through what it shows: variables assigned earlier in the line (`x=rm; $x -rf /`),
 * `$(echo rm)` and backquotes, `cd / && rm -rf *`, scripts handed to a shell (`bash -c`, `eval`,
 * `echo ... | sh`, `sh <<EOF`, `bash <<< ...`, `source <(echo ...)`, `base64 -d` of a known
 * text into bash), `find -delete/-exec`, `xargs`, `busybox` and wrappers such as `env`, `nohup`,
 * `timeout`. It blocks:
 *
 * - privilege escalation in command position: `sudo`, `doas`, `pkexec`, `su`
 *   (`echo sudo`, `grep sudo file`, `apt show sudo` are allowed: only the command word counts);
 * - `shutdown`, `reboot`, `halt`, `poweroff`, `init 0|6`, `systemctl reboot|poweroff|halt|...`;
 * - making or wiping filesystems and partition tables: `mkfs*`, `mke2fs`, `mkswap`, `wipefs`, `blkdiscard`, `fdisk /dev/...`;
 * - recursive `rm` (also `chmod`/`chown`/`chgrp -R`, `find -delete`, `find -exec rm`, `xargs rm`)
 *   of `/`, `/*`, a top-level directory (`/usr`, `/home`, ...), `~`, `~/*`, `$HOME`; `mv` of one;
 *   `shred` of one or of a device; any `rm --no-preserve-root`
 *   (`rm -rf ./build`, `rm -rf /tmp/x`, `rm -rf node_modules` are allowed);
 * - writes to device files: `> /dev/sda`, `dd of=/dev/...`, `tee`/`cp`/`mv` to `/dev/...`, except the
 *   harmless ones (`/dev/null`, `/dev/stdout`, `/dev/stderr`, `/dev/tty`, `/dev/fd/N`, `/dev/shm/...`, ...);
 * - decoded data piped into a shell when the guard cannot decode it (`base64 -d file | bash`);
 * - fork bombs (`:(){ :|:& };:` and any function calling itself twice in a pipe or the background).
 *
 * A command line it cannot parse is judged on what it can see of it.
 */
import { DESTRUCTIVE, checkCommandWords, isDangerousDevice, isProtectedPath, resolvePath } from './guardRules.js';
import { basename, unwrap, type Value } from './shell/commandWords.js';
import type { ReadScript } from './shell/reader.js';
import type { Flow, Redirect, Script, SimpleCommand } from './shell/types.js';

export { isDangerousDevice, isProtectedPath } from './guardRules.js';

/**
 * Why the script is blocked, or null when it may run. `read` reads the scripts it hands to a shell (`bash -c`,
 * `eval`, `echo ... | sh`): the reader `script` came from.
 */
export function findDanger(script: Script, read: ReadScript): string | null {
  return new Guard(read).script(script, 0);
}

const MAX_DEPTH = 8;
const FORK_BOMB = /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:/;
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish']);

class Guard {
  constructor(private readonly read: ReadScript) {}

  private check(source: string, depth: number, cwd: string | null): string | null {
    if (depth > MAX_DEPTH) return 'command nested too deeply to check';
    return this.script(this.read(source, { cwd }), depth);
  }

  script(script: Script, depth: number): string | null {
    if (!script.complete && FORK_BOMB.test(script.source)) return 'fork bomb';
    if (script.misread) {
      // Each line on its own as well: bash reads `cd / && rm -rf usr` on a line of its own, whatever the tree says.
      for (const line of script.source.split('\n')) {
        const reason = this.check(line, depth + 1, null);
        if (reason !== null) return reason;
      }
    }
    if (script.functions.some((f) => f.selfCalls >= 2 && /[|&]/.test(f.body))) return 'fork bomb';
    for (const r of script.redirects) {
      const target = r.target?.value;
      if (target != null && writesFile(r) && isDangerousDevice(target)) return `write to device ${target}`;
    }
    for (const command of script.commands) {
      const reason = this.command(command, depth);
      if (reason !== null) return reason;
    }
    return null;
  }

  private command(command: SimpleCommand, depth: number): string | null {
    const { words, via } = unwrap(command.words.map((w) => w.value));
    const reads = command.words.slice(command.words.length - words.length).map((w) => w.reads ?? null);
    const cwd = command.cwd;
    if (via.includes('xargs')) {
      const reason = this.xargs(words, command.stdin, cwd);
      if (reason !== null) return reason;
    }
    return this.words(words, command.stdin, cwd, depth, reads);
  }

  /** `reads`: for each word that is a `<(...)`, what reading it gives. */
  private words(words: Value[], stdin: Flow | null, cwd: string | null, depth: number, reads: (Flow | null)[] = []): string | null {
    const reason = checkCommandWords(words, cwd);
    if (reason !== null) return reason;
    const [first, ...args] = words;
    if (first === null || first === undefined) return null;
    const name = basename(first);
    if (SHELLS.has(name)) return this.shell(name, args, stdin, cwd, depth, reads.slice(1));
    if (name === 'source' || name === '.') return this.readScript(name, reads[1] ?? null, cwd, depth);
    if (name === 'eval') return args.every((a) => a !== null) ? this.check(args.join(' '), depth + 1, cwd) : null;
    if (name === 'watch') {
      const script = args.filter((a): a is string => a !== null && !a.startsWith('-'));
      return script.length > 0 ? this.check(script.join(' '), depth + 1, cwd) : null;
    }
    if (name === 'find') return this.find(args, cwd, depth);
    return null;
  }

  /** `bash -c SCRIPT`, and a shell reading its script from stdin (`| sh`, `sh <<EOF`, `bash <<< ...`). */
  private shell(name: string, args: Value[], stdin: Flow | null, cwd: string | null, depth: number, reads: (Flow | null)[]): string | null {
    const c = args.findIndex((a) => a !== null && /^-[a-z]*c[a-z]*$/.test(a));
    if (c >= 0) {
      const script = args[c + 1];
      return script === null || script === undefined ? null : this.check(script, depth + 1, cwd);
    }
    const first = args.findIndex((a) => a === null || !a.startsWith('-') || a === '-');
    const fromStdin = first < 0 || args[first] === '-' || args.some((a) => a !== null && /^-[a-z]*s/.test(a));
    return this.readScript(name, fromStdin ? stdin : (reads[first] ?? null), cwd, depth);
  }

  /** The script a shell reads (from stdin or from `<(...)`), when known. */
  private readScript(name: string, flow: Flow | null, cwd: string | null, depth: number): string | null {
    if (flow === null) return null;
    if (flow.kind === 'text') return this.check(flow.text, depth + 1, cwd);
    if (flow.kind === 'decoded') return `decoded data piped into ${name} (${flow.by}): the script cannot be checked`;
    return null;
  }

  /** `find ROOT... -delete`, `-exec CMD {} ;` (CMD checked with `{}` as the root). */
  private find(args: Value[], cwd: string | null, depth: number): string | null {
    const firstExpr = args.findIndex((a) => a === null || /^[-(!]/.test(a));
    const roots = (firstExpr < 0 ? args : args.slice(0, firstExpr)).filter((a): a is string => a !== null);
    const root = (roots.length === 0 ? ['.'] : roots).find((r) => isProtectedPath(resolvePath(r, cwd)));
    if (root !== undefined && args.includes('-delete')) return `find ${root} -delete`;
    for (let i = 0; i < args.length; i++) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(args[i] ?? '')) continue;
      let end = i + 1;
      while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
      const exec = args.slice(i + 1, end);
      const runs = exec[0] == null ? '' : basename(exec[0]);
      if (root !== undefined && DESTRUCTIVE.has(runs)) return `find ${root} -exec ${runs}`;
      const withRoot = exec.map((a) => (a === '{}' && root !== undefined ? root : a));
      const reason = this.words(withRoot, null, cwd, depth + 1);
      if (reason !== null) return reason;
      i = end;
    }
    return null;
  }

  /** `... | xargs CMD`: CMD gets the words piped in; `find /` or `ls /` piped into `xargs rm`. */
  private xargs(words: Value[], stdin: Flow | null, cwd: string | null): string | null {
    const name = words[0] == null ? '' : basename(words[0]);
    if (stdin?.kind === 'text') {
      const piped = stdin.text.split(/\s+/).filter((w) => w !== '');
      return checkCommandWords([...words, ...piped], cwd);
    }
    if (stdin?.kind !== 'command' || !DESTRUCTIVE.has(name)) return null;
    const [producer, ...args] = unwrap(stdin.command.words.map((w) => w.value)).words;
    if (producer == null || !['find', 'ls', 'echo', 'printf'].includes(basename(producer))) return null;
    const root = args.find((a): a is string => a !== null && !a.startsWith('-') && isProtectedPath(resolvePath(a, stdin.command.cwd)));
    return root === undefined ? null : `xargs ${name} on ${root}`;
  }
}

/** Redirection operators that open a file for writing. */
function writesFile(r: Redirect): boolean {
  if (r.op === '>&') return !/^(\d+|-)$/.test(r.target?.value ?? '');
  return ['>', '>>', '>|', '&>', '&>>', '<>'].includes(r.op);
}
