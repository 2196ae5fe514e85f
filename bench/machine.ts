/** A description of the machine a benchmark ran on, for the top of BENCHMARKS.md. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface MachineInfo {
  date: string;
  cpuModel: string;
  cpuCount: number;
  cpuMhz: number;
  memoryGb: number;
  freeMemoryGb: number;
  node: string;
  platform: string;
  loadAverage: number[];
  commit: string;
  dirtyFiles: number;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function describeMachine(): MachineInfo {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    cpuMhz: cpus[0]?.speed ?? 0,
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGb: Math.round((os.freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    dirtyFiles: git(['status', '--porcelain']).split('\n').filter(Boolean).length,
  };
}
