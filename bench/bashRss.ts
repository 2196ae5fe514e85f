/**
 * Child process of benchmark 3: prints one JSON line with the peak RSS (VmHWM) of this process
 * while `argv[2]` (default: 1 GB of zeros) runs through the bash tool. The full-output file the
 * tool saves is removed afterwards.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { createBashTool } from '../src/tools/bash/bashTool.js';

function statusKb(field: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

const command = process.argv[2] ?? 'head -c 1G /dev/zero';
const cwd = tmpdir();
const tool = createBashTool({ cwd });
const signal = new AbortController().signal;
await tool.run({ command: 'true' }, { cwd, signal });
const baselineKb = statusKb('VmHWM');

let sampledPeakKb = 0;
const sampler = setInterval(() => {
  sampledPeakKb = Math.max(sampledPeakKb, statusKb('VmRSS'));
}, 20);
const start = performance.now();
const out = await tool.run({ command, timeout: 300_000 }, { cwd, signal });
const ms = performance.now() - start;
clearInterval(sampler);
const peakKb = statusKb('VmHWM');

const saved = /the (?:full output is in|first \d+ bytes are in) (\S+?)\]/.exec(out.content)?.[1];
if (saved) rmSync(dirname(saved), { recursive: true, force: true });
const total = /of (\d+) bytes omitted/.exec(out.content);
const totalBytes = total ? Number(total[1]) : out.content.length;

// The same output through a raw spawn that only counts it, for scale.
const rawStart = performance.now();
await new Promise<void>((resolve, reject) => {
  const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.on('data', () => undefined);
  child.once('error', reject);
  child.once('close', () => resolve());
});
const rawMs = performance.now() - rawStart;

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
console.log(
  JSON.stringify({
    command,
    baselineMb: mb(baselineKb),
    peakMb: mb(peakKb),
    sampledPeakMb: mb(sampledPeakKb),
    totalBytes,
    ms: Math.round(ms),
    rawMs: Math.round(rawMs),
    isError: out.isError,
  }),
);
