import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: the tests that need no build, no server and no browser, in seconds. The machine with the
 * scripted model, the rules, the history check, the layers and the docs, tool schemas and the executor, the bash
 * tool's judging (guard, read-only, interactive, hidden paths), hooks, the viewer's timeline, the diagram, the CLI's
 * parser. The README's example imports the package by name: here that name is the source (src/index.ts), so an edit
 * is tested without a build; the full suite (vitest.config.ts) builds once and imports dist/ as a user would.
 */
export default defineConfig({
  resolve: {
    alias: { agentloop: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    include: [
      'test/machine/**/*.test.ts',
      'test/history/**/*.test.ts',
      'test/house/**/*.test.ts',
      'test/scripted/**/*.test.ts',
      'test/tools/schema.test.ts',
      'test/tools/executor.test.ts',
      'test/tools/bashGuard.test.ts',
      'test/tools/bashReadOnly.test.ts',
      'test/tools/bashInteractive.test.ts',
      'test/tools/bashHidden.test.ts',
      'test/tools/protectWrite.test.ts',
      'test/tools/files/claudeCode.test.ts',
      'test/tools/files/edges.test.ts',
      'test/session/hooks.test.ts',
      'test/view/timeline.test.ts',
      'test/view/lessonCheck.test.ts',
      'test/view/texts.test.ts',
      'test/view/toolCards.test.ts',
      'test/diagram/**/*.test.ts',
      'test/cli/args.test.ts',
      'test/core/**/*.test.ts',
      'test/durable/journal.test.ts',
      'test/durable/replayProperty.test.ts',
    ],
    exclude: ['test/machine/property.test.ts'],
    testTimeout: 30_000,
  },
});
