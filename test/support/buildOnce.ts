import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Vitest global setup of the tiers that run the CLI as shipped (process, browser, restate): build once with `npm run build`'s own script (scripts/build.mjs), so tests
 * that spawn `node dist/cli/main.js` run fresh code, bundled as it ships.
 * Type errors are printed but do not stop the tests (`--type-errors-warn`: tsc still emits);
 * `npm run typecheck` is the check that fails on them, in CI right after the tests.
 */
export default function setup(): void {
  // Each tier that runs the CLI names this file (vitest.config.ts): the first one builds, for all.
  if (process.env.AGENTLOOP_TEST_BUILT === '1') return;
  process.env.AGENTLOOP_TEST_BUILT = '1';
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const result = spawnSync(process.execPath, ['scripts/build.mjs', '--type-errors-warn'], { cwd: root, encoding: 'utf8' });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`the build (scripts/build.mjs) failed:\n${output}`);
  process.stderr.write(output); // tsc's type errors, esbuild's warnings
}
