/**
 * The sides of the peers benchmark, each a whole process started the way its users start it, and how one run of a
 * side is measured: `/usr/bin/time` (GNU time) for its CPU time and peak RSS, the harness's clock for its wall time,
 * and a stamp written by each tool's shell when it starts for its tool starts: `bash` on the PATH (and in `SHELL`, which
 * Claude Code takes its shell from) is a shim that appends the time and its arguments to a file, then execs the real
 * bash. Every side runs its commands with `bash -c`, so the stamp is the exec of the tool's process (plus the shim's
 * own start, the same for every side). Claude Code runs grep and find inside its own binary; its shell is still bash.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { DONE } from './peersTask.js';

export const SIDE_NAMES = ['agentloop', 'plain', 'aisdk', 'pi', 'claude'] as const;
export type SideName = (typeof SIDE_NAMES)[number];

export const SIDE_LABELS: Record<SideName, string> = {
  agentloop: 'agentloop CLI `-p … --output-format json` (transcript recorder on)',
  plain: 'plain SDK loop (`messages.create`, tools one by one)',
  aisdk: 'Vercel AI SDK 6 `streamText` + `@ai-sdk/anthropic` 3',
  pi: '`@mariozechner/pi-agent-core` 0.73',
  claude: 'Claude Code 2.1.197 `-p … --output-format json`',
};

export const MODEL = 'claude-sonnet-4-5';
const root = fileURLToPath(new URL('..', import.meta.url));
export const PEERS_DIR = join(root, 'bench', 'peers');
const CLAUDE = join(PEERS_DIR, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');

export interface Bench {
  dir: string;
  workspace: string;
  shims: string;
  stamps: string;
  homes: Record<SideName, string>;
}

/** A temporary folder with the workspace, the shims, and a home for each side (kept across its runs, as a user's). */
export function prepareBench(dir: string): Bench {
  const shims = join(dir, 'shims');
  const stamps = join(dir, 'stamps.txt');
  mkdirSync(shims, { recursive: true });
  const real = ['/usr/bin/bash', '/bin/bash'].find((p) => existsSync(p));
  if (!real) throw new Error('peers bench: bash not found in /usr/bin or /bin');
  // $EPOCHREALTIME needs no process of its own; one line (newlines and tabs of the arguments made spaces) appended
  // with O_APPEND is not torn by a concurrent one.
  const script = [
    `#!${real}`,
    'args="$*"; args="${args//[$\'\\n\\t\']/ }"',
    `printf '%s\\t%s\\n' "$EPOCHREALTIME" "$args" >> '${stamps}'`,
    `exec ${real} "$@"`,
    '',
  ].join('\n');
  writeFileSync(join(shims, 'bash'), script);
  chmodSync(join(shims, 'bash'), 0o755);
  const homes = Object.fromEntries(SIDE_NAMES.map((s) => [s, join(dir, `home-${s}`)])) as Record<SideName, string>;
  for (const home of Object.values(homes)) mkdirSync(home, { recursive: true });
  return { dir, workspace: join(dir, 'workspace'), shims, stamps, homes };
}

/** Where `npm ci --prefix bench/peers` puts Claude Code's native binary; the benchmarks that run it skip when it is missing. */
export const CLAUDE_EXE = CLAUDE;

function commandOf(side: SideName, prompt: string, nodeArgs: string[] = [], main = join(root, 'dist', 'cli', 'main.js'), allowed = 'Bash'): string[] {
  switch (side) {
    case 'agentloop':
      return [process.execPath, ...nodeArgs, main, '-p', prompt, '--output-format', 'json', '--model', MODEL];
    case 'claude':
      return [CLAUDE, '-p', prompt, '--output-format', 'json', '--model', MODEL, '--allowedTools', allowed];
    default:
      return [process.execPath, ...nodeArgs, join(PEERS_DIR, 'sides', `${side}.mjs`), prompt];
  }
}

function envOf(side: SideName, bench: Bench, url: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${bench.shims}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    SHELL: join(bench.shims, 'bash'),
    HOME: bench.homes[side],
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    BENCH_MODEL: MODEL,
    NO_COLOR: '1',
  };
  if (side === 'agentloop') env.AGENTLOOP_HOME = join(bench.homes.agentloop, '.agentloop');
  if (side === 'claude') Object.assign(env, { DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
  return env;
}

export interface Stamp {
  /** `performance.now()` of the harness when a bash started. */
  at: number;
  /** Its arguments, e.g. `-c ls -la src`. */
  args: string;
}

export interface ProcessRun {
  /** `performance.now()` right before the spawn. */
  spawnAt: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stamps: Stamp[];
  /** Why the run does not count: a non-zero exit, or the task's answer missing from the output. */
  failure?: string;
}

/** Epoch ms (bash's $EPOCHREALTIME) → this process's `performance.now()`. */
export function fromEpoch(epochMs: number): number {
  return epochMs - performance.timeOrigin;
}

function readStamps(path: string): Stamp[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      return { at: fromEpoch(Number(line.slice(0, tab)) * 1000), args: line.slice(tab + 1) };
    });
}

/**
 * Runs one side once under `/usr/bin/time`, with `env` added to its environment and `nodeArgs` given to Node (for the
 * sides that run on it), agentloop from `main` (default: dist/cli/main.js), `args` after its own arguments, and
 * Claude Code's `--allowedTools` `allowed` (default `Bash`); resolves when it has exited.
 */
export function runSide(
  side: SideName,
  prompt: string,
  bench: Bench,
  url: string,
  options: { timeoutMs?: number; env?: Record<string, string>; nodeArgs?: string[]; main?: string; args?: string[]; allowed?: string } = {},
): Promise<ProcessRun> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  rmSync(bench.stamps, { force: true });
  const timeFile = join(bench.dir, 'time.txt');
  rmSync(timeFile, { force: true });
  const argv = ['-f', '%e %U %S %M', '-o', timeFile, ...commandOf(side, prompt, options.nodeArgs, options.main, options.allowed), ...(options.args ?? [])];
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const spawnAt = performance.now();
    const child = spawn('/usr/bin/time', argv, { cwd: bench.workspace, env: { ...envOf(side, bench, url), ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      const wallMs = performance.now() - spawnAt;
      clearTimeout(timer);
      const [, user = 'NaN', sys = 'NaN', rssKb = 'NaN'] = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ') : [];
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      const failure =
        code !== 0
          ? `exit ${code}: ${(err.trim().split('\n').at(-1) ?? '').slice(0, 300)}`
          : out.includes(DONE)
            ? undefined
            : `no answer on stdout: ${out.slice(0, 300)}`;
      resolve({
        spawnAt,
        wallMs,
        cpuMs: (Number(user) + Number(sys)) * 1000,
        peakRssMb: Number(rssKb) / 1024,
        exitCode: code,
        stdout: out,
        stderr: err,
        stamps: readStamps(bench.stamps),
        ...(failure ? { failure } : {}),
      });
    });
  });
}
