import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The tests by tier, each a vitest project chosen by the file's name (README "Tests"):
 * - `unit` (`x.test.ts`): in this process only. No build, no process, no server, no browser, no Restate: its setup
 *   file (test/support/unitGuard.ts) makes child_process and net.Server.listen throw. `npm run test:unit`.
 * - `slow` (`x.slow.test.ts`): in this process too, under the same guard, but long (property runs of thousands of
 *   cases, 10,000-turn runs).
 * - `process` (`x.process.test.ts`): starts processes or servers: the CLI as a user runs it (built once into dist/),
 *   bash commands, MCP servers, the local Messages API server.
 * - `browser` (`x.browser.test.ts`): the viewer in Debian's chromium.
 * - `restate` (`x.restate.test.ts`): durable runs on a real restate-server.
 * `npm test` runs them all; `npx vitest run --project process test/cli` one tier of a folder.
 */
const TIERS = ['slow', 'process', 'browser', 'restate'] as const;

/**
 * In-process tiers import the package by name from the source (src/index.ts): an edit is tested without a build.
 * Their files share a process per worker (isolate: false): each imports src/ once, not once a file (41 s instead of
 * 110 s for the unit tier at a load of 20 on 2 cores; half the CPU).
 */
const inProcess = (name: string, include: string[], exclude: string[] = []): TestProjectInlineConfiguration => ({
  extends: true,
  resolve: { alias: { agentloop: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: { name, include, exclude, setupFiles: ['test/support/unitGuard.ts'], isolate: false },
});

/** Tiers that run the CLI as shipped: dist/ is built once, before the first of them (test/support/buildOnce.ts). */
const built = (name: string): TestProjectInlineConfiguration => ({
  extends: true,
  test: { name, include: [`test/**/*.${name}.test.ts`], globalSetup: ['test/support/buildOnce.ts'] },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      inProcess('unit', ['test/**/*.test.ts'], TIERS.map((tier) => `test/**/*.${tier}.test.ts`)),
      inProcess('slow', ['test/**/*.slow.test.ts']),
      built('process'),
      built('browser'),
      built('restate'),
    ],
  },
});
