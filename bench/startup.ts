/**
 * Benchmark 5: start-up. `node dist/cli/main.js --version`, a fresh process each time: median
 * wall time over 20 runs, next to `node -e 0` (the floor: Node's own start-up) measured
 * interleaved with it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, now } from './stats.js';

export interface StartupFigures {
  runs: number;
  /** The first run after the build (file cache as the build left it). */
  firstMs: number;
  medianMs: number;
  maxMs: number;
  nodeFloorMs: number;
  version: string;
  built: boolean;
  buildError?: string;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** Builds dist/ with the project's build (tsc -p tsconfig.build.json). */
export function build(): { ok: boolean; error?: string } {
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? { ok: true } : { ok: false, error: (result.stdout + result.stderr).trim().slice(0, 2000) };
}

function timeOnce(args: string[]): { ms: number; stdout: string } {
  const start = now();
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const ms = now() - start;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout.trim() };
}

export function benchStartup(runs = 20, options: { build?: boolean } = {}): StartupFigures {
  let built = false;
  let buildError: string | undefined;
  if (options.build !== false) {
    const result = build();
    built = result.ok;
    buildError = result.error;
  }
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build`);
  const first = timeOnce([main, '--version']);
  const cli: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    cli.push(timeOnce([main, '--version']).ms);
    floor.push(timeOnce(['-e', '0']).ms);
  }
  return {
    runs,
    firstMs: first.ms,
    medianMs: median(cli),
    maxMs: Math.max(...cli),
    nodeFloorMs: median(floor),
    version: first.stdout,
    built,
    ...(buildError !== undefined ? { buildError } : {}),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(benchStartup(20, { build: process.argv[2] !== '--no-build' }));
}
