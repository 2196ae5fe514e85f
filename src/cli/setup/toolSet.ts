/**
 * Which built-in tools a CLI run offers, as Claude Code 2.1.197 chooses them (run/defaultTools.ts holds the list):
 *
 * - `--tools` (the Agent SDK's `tools` option): `default` (any case) the default set, `""` none, else the names given
 *   (by commas or spaces), matched exactly: a name agentloop has no tool for is left out and said once on stderr, the
 *   run goes on (exit 0). `--tools Bash` is the chapter's one-tool agent.
 * - without it: the default set (Bash, Read, Write, Edit), and the search tools (Glob, Grep) when a rule of
 *   `--allowedTools` names either (Claude Code then offers both).
 * - the offline demo: the bash tool alone, as the chapter shows it.
 *
 * MCP servers' tools and --json-schema's StructuredOutput are not built-in and stay, as in Claude Code.
 */
// The list is passed in: the CLI loads run/defaultTools.ts (and with it the bash tool) only when a run needs its tools.
import type { BuiltInTool } from '../../run/defaultTools.js';
import type { CliOptions } from '../commandLine/args.js';

/** The names `defaultTools({ tools })` is given for a run with these flags (undefined: the default set). */
export function offeredToolNames(options: Pick<CliOptions, 'tools' | 'allowedTools' | 'demo'>, list: readonly BuiltInTool[]): readonly string[] | undefined {
  if (options.demo) return list.filter((entry) => entry.chapter).map((entry) => entry.publicName);
  if (options.tools !== undefined) return options.tools.some((name) => name.toLowerCase() === 'default') ? ['default', ...options.tools] : options.tools;
  const named = new Set((options.allowedTools ?? []).map((rule) => /^[^(]*/.exec(rule.trim())?.[0] ?? ''));
  const search = list.filter((entry) => entry.offered === 'search');
  if (!search.some((entry) => named.has(entry.publicName))) return undefined;
  return ['default', ...search.map((entry) => entry.publicName)];
}

/** The names of `--tools` agentloop has no built-in tool for (said once on stderr: ../commands/run.ts). */
export function missingTools(names: readonly string[] | undefined, list: readonly BuiltInTool[]): string[] {
  if (names === undefined) return [];
  return names.filter((name) => name.toLowerCase() !== 'default' && !list.some((entry) => entry.publicName === name || entry.name === name));
}

/** `Bash, Read, ...`: agentloop's built-in tools, for the line that says a name was left out. */
export function builtInNames(list: readonly BuiltInTool[]): string {
  return list.map((entry) => entry.publicName).join(', ');
}
