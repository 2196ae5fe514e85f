/**
 * Out of file descriptors: `EMFILE` (this process holds as many as its limit, `ulimit -n`, allows) or `ENFILE` (the
 * system's table is full). Many runs at once in one process hold one or more each (its connection to the API, and
 * with a session its transcript and lock: BENCHMARKS.md, "Many agents in one process"); what a user is told is this
 * one line saying what to do, rather than the system call's error (the limit itself cannot be read then: reading
 * /proc/self/limits takes a descriptor).
 */
/** What to say of an error whose code (or whose cause's, at any depth) is EMFILE or ENFILE; otherwise undefined. */
export function outOfFiles(error: unknown): string | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    const code = (at as NodeJS.ErrnoException).code;
    if (code === 'EMFILE') return 'this process has as many files open as its limit (ulimit -n) allows: run fewer at once, or raise the limit';
    if (code === 'ENFILE') return 'the system has as many files open as it allows (fs.file-max): run fewer at once';
  }
  return undefined;
}
