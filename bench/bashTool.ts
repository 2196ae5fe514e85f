/**
 * Benchmark 3: the bash tool. Per command, `createBashTool().run` ÷ a raw
 * `child_process.spawn('bash', ['-c', cmd])` that collects the same output, interleaved; and the
 * peak RSS of a process (bashRss.ts, started fresh) while a command prints 1 GB through the tool.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBashTool } from '../src/tools/bash.js';
import { median, now } from './stats.js';

export const BASH_COMMANDS = ['true', 'echo hello', 'ls -la /usr/bin | wc -l'];

/** The baseline: spawn bash, collect stdout and stderr, wait for it to close. */
export function rawSpawn(command: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', reject);
    child.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export interface BashCommandFigures {
  command: string;
  toolMs: number;
  rawMs: number;
  ratio: number;
  ratioPaired: number;
}

export async function benchBashCommands(pairs = 40, log: (line: string) => void = () => {}): Promise<BashCommandFigures[]> {
  const cwd = mkdtempSync(join(tmpdir(), 'agentloop-bench-'));
  try {
    const tool = createBashTool({ cwd });
    const signal = new AbortController().signal;
    const runTool = async (command: string) => {
      const out = await tool.run({ command }, { cwd, signal });
      if (out.isError) throw new Error(`bash tool failed on ${command}: ${out.content}`);
    };
    const figures: BashCommandFigures[] = [];
    for (const command of BASH_COMMANDS) {
      for (let i = 0; i < 5; i++) {
        await runTool(command);
        await rawSpawn(command, cwd);
      }
      const tool_: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < pairs; i++) {
        // Alternate which goes first.
        const sides = i % 2 === 0 ? (['tool', 'raw'] as const) : (['raw', 'tool'] as const);
        for (const side of sides) {
          const start = now();
          if (side === 'tool') await runTool(command);
          else await rawSpawn(command, cwd);
          (side === 'tool' ? tool_ : raw).push(now() - start);
        }
      }
      const toolMs = median(tool_);
      const rawMs = median(raw);
      const ratioPaired = median(tool_.map((t, i) => t / (raw[i] as number)));
      figures.push({ command, toolMs, rawMs, ratio: toolMs / rawMs, ratioPaired });
      log(`bash ${JSON.stringify(command)}: tool ${toolMs.toFixed(2)} ms, raw spawn ${rawMs.toFixed(2)} ms, ratio ${(toolMs / rawMs).toFixed(2)}`);
    }
    return figures;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export interface BashRssFigures {
  command: string;
  /** VmHWM before the command (after loading the tool and running `true`), MB. */
  baselineMb: number;
  /** VmHWM after the command: the peak RSS of the whole process, MB. */
  peakMb: number;
  /** Highest RSS seen by sampling every 20 ms during the command, MB. */
  sampledPeakMb: number;
  totalBytes: number;
  ms: number;
  /** The same output read through a raw spawn that discards it, for scale. */
  rawMs: number;
}

/** Runs bashRss.ts in a fresh process (so its peak RSS is this command's alone). */
export function benchBashRss(command = 'head -c 1G /dev/zero'): BashRssFigures {
  const script = fileURLToPath(new URL('./bashRss.ts', import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, command], { encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`bashRss.ts failed (${result.status}): ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as BashRssFigures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchBashCommands(Number(process.argv[2] ?? 20), console.log));
  console.log(benchBashRss());
}
