/**
 * Claude Code's model aliases: `--model sonnet` means the current Sonnet. Each full id has a price in ./pricing.ts
 * (test/cli/args.test.ts checks that).
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-4-5-20250929',
  opus: 'claude-opus-4-5-20251101',
  haiku: 'claude-haiku-4-5-20251001',
};

/** The full model id of `name`: an alias resolved (any case), anything else as given. */
export function resolveModel(name: string): string {
  return MODEL_ALIASES[name.toLowerCase()] ?? name;
}
