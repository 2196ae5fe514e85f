import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: the pure tests, in seconds: no build, no processes, no servers, no browser.
 * The machine with the scripted model, the rules, the history check, the layers, tool schemas.
 */
export default defineConfig({
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
      'test/session/hooks.test.ts',
      'test/view/timeline.test.ts',
      'test/view/graph.test.ts',
      'test/cli/args.test.ts',
      'test/core/**/*.test.ts',
      'test/durable/journal.test.ts',
    ],
    exclude: ['test/machine/property.test.ts'],
    testTimeout: 30_000,
  },
});
