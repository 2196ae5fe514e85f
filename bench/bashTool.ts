/**
 * Benchmark 3: the bash tool. Per command, three sides interleaved: `createBashTool().run` (each
 * command in a PID namespace of its own, through bwrap), the same tool with `contain: false` (a
 * process group only, the tool before containment), and a raw `child_process.spawn('bash', ['-c',
 * cmd])` that collects the same output; and the
 * peak RSS of a process (bashRss.ts, started fresh) while a command prints 1 GB through the tool.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBashTool } from '../src/tools/bash/bashTool.js';
import { containedArgv } from '../src/tools/bash/run/contained.js';
import { lifeline, watched, withLifeline } from '../src/tools/bash/run/lifeline.js';
import { backstopPrograms, findExecutable } from '../src/tools/bash/run/programs.js';
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
  /** The tool as shipped: contained in a PID namespace. */
  toolMs: number;
  /** The tool with `contain: false`. */
  uncontainedMs: number;
  rawMs: number;
  /** Uncontained tool ÷ raw spawn: what the tool itself adds. */
  ratio: number;
  ratioPaired: number;
  /** Contained ÷ uncontained, and the difference in ms: what containment adds. */
  containRatio: number;
  containAddedMs: number;
  /**
   * The contained command's argv (bwrap, timeout, bash) spawned by itself, and under the lifeline's watcher
   * (`/bin/sh -c WATCH sh …`, the lifeline as fd 3: lifeline.ts), spawn → exit, in the same rounds; undefined
   * without bwrap or /bin/sh.
   */
  bwrapMs?: number;
  watchedMs?: number;
  lifelineAddedMs?: number;
}

/** Spawns `argv` detached (as the runner does), `fd3` as its fd 3; resolves at its exit, its group killed. */
function spawnToExit(argv: string[], fd3: number | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: withLifeline<'ignore' | number>(['ignore', 'ignore', 'ignore'], fd3), detached: true });
    child.once('error', reject);
    child.once('exit', () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
      resolve();
    });
  });
}

export async function benchBashCommands(pairs = 40, log: (line: string) => void = () => {}): Promise<BashCommandFigures[]> {
  const cwd = mkdtempSync(join(tmpdir(), 'agentloop-bench-'));
  try {
    const tool = createBashTool({ cwd });
    const uncontained = createBashTool({ cwd, contain: false });
    const signal = new AbortController().signal;
    const runTool = async (t: typeof tool, command: string) => {
      const out = await t.run({ command }, { cwd, signal });
      if (out.isError) throw new Error(`bash tool failed on ${command}: ${out.content}`);
    };
    const bwrap = findExecutable('bwrap', process.env.PATH);
    const line = await lifeline();
    const direct = (command: string) => containedArgv(bwrap as string, backstopPrograms(process.env.PATH), cwd, command, 60_000);
    const sides: Record<string, (command: string) => Promise<unknown>> = {
      tool: (command: string) => runTool(tool, command),
      uncontained: (command: string) => runTool(uncontained, command),
      raw: (command: string) => rawSpawn(command, cwd),
      ...(bwrap !== undefined && line !== undefined
        ? {
            bwrap: (command: string) => spawnToExit(direct(command), undefined),
            watched: (command: string) => spawnToExit(watched(direct(command), line, process.env.PATH), line),
          }
        : {}),
    };
    const names = Object.keys(sides);
    const figures: BashCommandFigures[] = [];
    for (const command of BASH_COMMANDS) {
      for (let i = 0; i < 5; i++) for (const name of names) await sides[name]?.(command);
      const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
      for (let i = 0; i < pairs; i++) {
        // Rotate which goes first.
        for (let k = 0; k < names.length; k++) {
          const name = names[(i + k) % names.length] as string;
          const start = now();
          await sides[name]?.(command);
          times[name]?.push(now() - start);
        }
      }
      const toolMs = median(times.tool ?? []);
      const uncontainedMs = median(times.uncontained ?? []);
      const rawMs = median(times.raw ?? []);
      const ratioPaired = median((times.uncontained ?? []).map((t, i) => t / (times.raw?.[i] as number)));
      const bwrapMs = times.bwrap ? median(times.bwrap) : undefined;
      const watchedMs = times.watched ? median(times.watched) : undefined;
      figures.push({
        command,
        toolMs,
        uncontainedMs,
        rawMs,
        ratio: uncontainedMs / rawMs,
        ratioPaired,
        containRatio: toolMs / uncontainedMs,
        containAddedMs: toolMs - uncontainedMs,
        ...(bwrapMs !== undefined && watchedMs !== undefined
          ? { bwrapMs, watchedMs, lifelineAddedMs: median((times.watched ?? []).map((t, i) => t - (times.bwrap?.[i] as number))) }
          : {}),
      });
      log(
        `bash ${JSON.stringify(command)}: contained ${toolMs.toFixed(2)} ms, uncontained ${uncontainedMs.toFixed(2)} ms, ` +
          `raw spawn ${rawMs.toFixed(2)} ms; containment adds ${(toolMs - uncontainedMs).toFixed(2)} ms; bwrap alone ${bwrapMs?.toFixed(2)} ms, ` +
          `under the lifeline ${watchedMs?.toFixed(2)} ms`,
      );
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
