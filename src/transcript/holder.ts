/**
 * Who holds a session's lock (lock.ts): the process a lock file names, whether it still runs, and
 * the line that names it to a user.
 */
import { readFileSync, readSync } from 'node:fs';

/** The process that holds a session, as its lock file says. */
export interface LockHolder {
  pid: number;
  /** When the process started (ISO). */
  startedAt: string;
  /** Its start time in clock ticks since boot (/proc/PID/stat, field 22): with the pid, the process itself. */
  start?: string;
  /** Its command line, e.g. `agentloop --continue -p "fix it"`. */
  command?: string;
}

/** The start time of process `pid` in clock ticks since boot, or `undefined` (no such process, no /proc). */
export function procStartOf(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19]; // field 22 of the line, the 20th after the name
}

/** Whether the process a lock file names is alive: the same pid with the same start time. */
export function holderAlive(holder: LockHolder | undefined): boolean {
  if (!holder) return false;
  if (holder.start !== undefined && procStartOf(process.pid) !== undefined) return procStartOf(holder.pid) === holder.start;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file's text as a holder, or `undefined` when it is empty or not one. */
export function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (typeof value?.pid !== 'number' || typeof value.startedAt !== 'string') return undefined;
    return {
      pid: value.pid,
      startedAt: value.startedAt,
      ...(typeof value.start === 'string' ? { start: value.start } : {}),
      ...(typeof value.command === 'string' ? { command: value.command } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * The holder an open lock file names. A holder writes it right after it takes the lock: with
 * `waitMs`, a file that is empty, or still names a process that is gone, is read again for that
 * long (the new holder is between the two steps).
 */
export function holderOf(fd: number, waitMs = 0): LockHolder | undefined {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const buffer = Buffer.alloc(4096);
    const holder = parseHolder(buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0)));
    if (holderAlive(holder) || Date.now() >= deadline) return holder;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
  }
}

/** `process 4242 (running for 2 min 5 s: agentloop --continue -p "fix it")`. */
export function describeHolder(holder: LockHolder | undefined, now = Date.now()): string {
  if (!holder) return 'another process';
  const seconds = Math.max(0, Math.round((now - Date.parse(holder.startedAt)) / 1000));
  const ran = Number.isFinite(seconds) ? `running for ${duration(seconds)}` : 'running';
  return `process ${holder.pid} (${ran}${holder.command ? `: ${holder.command}` : ''})`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
