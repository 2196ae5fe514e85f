/**
 * No process of a command outlives a kill -9 of the agent, at any moment of its start (issue 36 item 4).
 *
 * The kernel tells a process of its parent's death only where it was asked to, and only that one process
 * (PR_SET_PDEATHSIG: bubblewrap's `--die-with-parent`, setpriv's `--pdeathsig`), and only from the moment it asked: a
 * kill -9 of the agent between the spawn and that call, or while bubblewrap still set the namespace up (it ties the
 * namespace's first process to its parent only after its setup), left the command running (3 of 40 kills 0-25 ms
 * after a tool's start; 11 of 100 during bubblewrap's setup).
 *
 * A pipe closes by itself when its last writer dies, whatever the moment. So this process holds the only write end of
 * a pipe, its lifeline, for its whole life (never written to), and every command and MCP server is spawned as
 * `sh -c WATCH sh PROGRAM...` with the read end as fd 3: the shell forks a watcher that reads fd 3 and, at its end,
 * kills the process group, then becomes the program (exec, fd 3 closed for it). The watcher exists before the program
 * does, and an end that came before it started reads as an end all the same: no gap. The group holds everything the
 * abort kills (bwrap, or unshare and the namespace's first process, the plain way's shell: process.ts), and the
 * namespace dies with its first process. The cost is one exec of /bin/sh (dash) and one fork per command; without
 * /bin/sh, commands start as before.
 */
import { isAbsolute } from 'node:path';
import { openLifelinePipe } from './pipe.js';
import { findExecutable, isExecutable, SH } from './programs.js';

/** The watcher, then the program with fd 3 closed. Builtins only: `read` and `kill` run in the shell itself. */
const WATCH = '{ read -r _ <&3; kill -KILL 0; } </dev/null >/dev/null 2>&1 & exec "$@" 3<&-';

let line: Promise<number | undefined> | undefined;

/** The read end of this process's lifeline (opened once), or undefined where it cannot be made or watched. */
export function lifeline(): Promise<number | undefined> {
  line ??= isExecutable(SH)
    ? openLifelinePipe().then(
        ({ readFd }) => readFd, // the write end stays open, unused, until this process ends
        () => undefined,
      )
    : Promise.resolve(undefined);
  return line;
}

/**
 * `argv` started under the watcher of the lifeline `fd` (fd 3 of the spawned process); `argv` itself without one, or
 * when its program is not on `pathVar` (then the spawn fails as it would have, saying so: no process starts).
 */
export function watched(argv: [string, ...string[]], fd: number | undefined, pathVar: string | undefined): [string, ...string[]] {
  if (fd === undefined || (!isAbsolute(argv[0]) && findExecutable(argv[0], pathVar) === undefined)) return argv;
  return [SH, '-c', WATCH, 'sh', ...argv];
}

/** The stdio of a spawn: `io`, and the lifeline as fd 3 when there is one. */
export function withLifeline<T>(io: T[], fd: number | undefined): (T | number)[] {
  return fd === undefined ? io : [...io, fd];
}
