/**
 * `--tools` (the Agent SDK's `tools` option), as Claude Code 2.1.197 takes it: the built-in tools offered to the model.
 * `default` (any case) offers them all, `""` none, else the names given (by commas or spaces), matched exactly: a name
 * Claude Code has no tool for is left out, the run goes on (exit 0). agentloop's one built-in tool is Bash; MCP servers'
 * tools and --json-schema's StructuredOutput are not built-in and stay, as in Claude Code.
 */
import { claudeToolName } from './claudeLines.js';

/** Whether `tool` is among `names` (`undefined`: no `--tools`, every tool). Claude Code's name or agentloop's own. */
function chosen(tool: { name: string }, names: readonly string[] | undefined): boolean {
  if (names === undefined || names.includes('default')) return true;
  return names.includes(claudeToolName(tool.name)) || names.includes(tool.name);
}

/** The built-in tools `--tools` keeps of `tools`. */
export function builtInTools<T extends { name: string }>(tools: readonly T[], names: readonly string[] | undefined): T[] {
  return tools.filter((tool) => chosen(tool, names));
}

/** The names of `--tools` agentloop has no built-in tool for (said once on stderr: ./run.ts). */
export function missingTools(names: readonly string[] | undefined, builtIn: readonly string[] = ['bash']): string[] {
  if (names === undefined) return [];
  return names.filter((name) => name !== 'default' && !builtIn.some((tool) => chosen({ name: tool }, [name])));
}
