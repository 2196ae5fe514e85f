/**
 * Claude Code's model aliases: `--model sonnet` means the current Sonnet (first-party ids the aliases resolve to
 * in Claude Code 2.1.293 and later). Each full id has a price in ./pricing.ts
 * (test/cli/commandLine/args.test.ts checks that).
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
};

/** The full model id of `name`: an alias resolved (any case), anything else as given. */
export function resolveModel(name: string): string {
  return MODEL_ALIASES[name.toLowerCase()] ?? name;
}

/** The model Claude Code 2.1.197 asks for when none is set and a key is (recorded in test/cli/sdk/claudeCode.json). */
export const DEFAULT_MODEL = 'claude-opus-4-8';

/** The context window of the models agentloop knows, in tokens (every current Claude model's is 200,000). */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/**
 * The context window of `model`: a Claude model's is DEFAULT_CONTEXT_WINDOW; another name (a gateway's, a scripted
 * model's) has none known, so only a refused request (prompt too long) or a window the user sets
 * (`--context-window`, AGENTLOOP_CONTEXT_WINDOW, runAgent's `contextWindow`) makes the loop compact.
 */
export function knownContextWindow(model: string): number | undefined {
  return /^claude-/i.test(resolveModel(model)) ? DEFAULT_CONTEXT_WINDOW : undefined;
}
