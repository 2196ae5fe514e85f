import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Vitest global setup: compile once, so tests that spawn `node dist/cli/main.js` run fresh code. */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
