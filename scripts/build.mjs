// The build of dist/, its steps in order: `npm run build` runs this, and so does the tests' global
// setup (test/support/buildOnce.ts), so the tests run what ships. Each step is a process of its own;
// the first that fails stops the build with its status.
//   --type-errors-warn: tsc's type errors are reported but do not stop the build (tsc still emits);
//   the tests use it, and `npm run typecheck` is the check that fails on them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const typeErrorsWarn = process.argv.includes('--type-errors-warn');

const steps = [
  { what: 'clean dist/', args: ['scripts/clean-dist.mjs'] }, // nothing left of files src/ no longer has
  { what: 'compile src/ (tsc)', args: ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], typeCheck: true },
  { what: "bundle the viewer's client", args: ['scripts/build-client.mjs'] },
  { what: "lay the viewer's diagram out", args: ['scripts/build-machine-view.mjs'] },
  { what: 'bundle the simulator into one page', args: ['scripts/build-simulator.mjs'] },
  { what: 'bundle the CLI over tsc’s dist/cli/main.js', args: ['scripts/build-cli.mjs'] },
];

for (const step of steps) {
  const result = spawnSync(process.execPath, step.args, { cwd: root, stdio: 'inherit' });
  if (result.status === 0) continue;
  if (step.typeCheck && typeErrorsWarn && result.status !== null) {
    process.stderr.write('tsc reported errors while building dist/ (above); the build goes on with what it emitted.\n');
    continue;
  }
  process.stderr.write(`build: "${step.what}" failed (${result.error?.message ?? `status ${result.status ?? result.signal}`})\n`);
  process.exit(result.status || 1);
}
if (!existsSync(`${root}/dist/cli/main.js`)) {
  process.stderr.write('build: it produced no dist/cli/main.js\n');
  process.exit(1);
}
