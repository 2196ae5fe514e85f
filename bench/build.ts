/** Builds dist/ as it ships (`npm run build`: tsc, the viewer's client, the bundled CLI), for the benchmarks that start the CLI. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export function build(): { ok: boolean; error?: string } {
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? { ok: true } : { ok: false, error: (result.stdout + result.stderr).trim().slice(0, 2000) };
}
