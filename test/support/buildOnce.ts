import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Vitest global setup: build once as `npm run build` does, so tests that spawn `node dist/cli/main.js`
 * run fresh code, bundled as it ships.
 * Type errors are printed but do not stop the tests (tsc still emits); `npm run typecheck` is
 * the check that fails on them, in CI right after the tests.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  spawnSync(process.execPath, ['scripts/clean-dist.mjs'], { cwd: root }); // nothing left of files src/ no longer has
  const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) process.stderr.write(`tsc reported errors while building dist/:\n${result.stdout}${result.stderr}`);
  const client = spawnSync(process.execPath, ['scripts/build-client.mjs'], { cwd: root, encoding: 'utf8' });
  if (client.status !== 0) throw new Error(`the viewer's client did not bundle:\n${client.stdout}${client.stderr}`);
  // The CLI as shipped: bundled over tsc's dist/cli/main.js (scripts/build-cli.mjs).
  const cli = spawnSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: root, encoding: 'utf8' });
  if (cli.status !== 0) throw new Error(`the CLI did not bundle:\n${cli.stdout}${cli.stderr}`);
  if (!existsSync(`${root}/dist/cli/main.js`)) throw new Error('the build produced no dist/cli/main.js');
}
