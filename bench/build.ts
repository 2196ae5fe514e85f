/** Builds dist/ with the project's build (tsc -p tsconfig.build.json), for the benchmarks that start the CLI. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export function build(): { ok: boolean; error?: string } {
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? { ok: true } : { ok: false, error: (result.stdout + result.stderr).trim().slice(0, 2000) };
}
