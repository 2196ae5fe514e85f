import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  /** One letter: R, S, Z, ... */
  state: string;
  cmdline: string;
}

/** Every process visible in /proc (zombies included: they hold nothing but a pid). */
export function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      out.push({ pid: Number(name), state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]), cmdline });
    } catch {
      // the process went away while we looked
    }
  }
  return out;
}

/** Live (non-zombie) processes whose command line contains `marker`. */
export function liveWithMarker(marker: string): ProcInfo[] {
  return processes().filter((p) => p.cmdline.includes(marker) && p.state !== 'Z');
}

/** Kills (SIGKILL) every live process whose command line contains `marker`. */
export function killMarked(marker: string): void {
  for (const p of liveWithMarker(marker)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
