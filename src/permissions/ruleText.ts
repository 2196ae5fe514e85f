/**
 * Claude Code's permission rules as text, the part every tool shares: `Tool` (every call of the tool; `Tool(*)` the
 * same), `Tool(specifier)` (the calls the tool's own `permission.matches` says the specifier covers), and an MCP
 * server's rule `mcp__server` (also written `mcp__server__*`: every tool of that server). Tool names compare without
 * regard to case, against the name the model sees and the tool's public name (`bash` and `Bash`). What a specifier
 * means is the tool's (core/tool.ts, ToolPermission): this file never reads one.
 */

export type RuleEffect = 'allow' | 'deny' | 'ask';

export interface ParsedRule {
  /** As written, trimmed: `Bash(git log:*)`. */
  text: string;
  /** The tool's name as written (`Bash`, `mcp__github`). */
  tool: string;
  /** The text inside the parentheses; null: every call of the tool (also for `Tool(*)`). */
  specifier: string | null;
  effect: RuleEffect;
  /** Where the rule came from: `cliArg`, `userSettings`, `projectSettings`, `localSettings`, `flagSettings`, `session`, ... */
  source: string;
  /** The settings file it is written in. */
  path?: string;
}

/** A rule that does not parse, a mode refused: one line, for the user. */
export class PermissionError extends Error {
  override readonly name = 'PermissionError';
}

/** Parses one rule; throws a PermissionError naming it when it is not `Name` or `Name(specifier)`. */
export function parseRule(raw: string, effect: RuleEffect, source: string): ParsedRule {
  const text = raw.trim();
  const bad = (why: string) => new PermissionError(`invalid permission rule ${JSON.stringify(raw)}: ${why}`);
  const m = /^([A-Za-z_][\w.-]*?)(?:__\*)?(?:\((.*)\))?$/s.exec(text);
  if (m === null) {
    if (/^[A-Za-z_][\w.-]*\(/.test(text) && !text.endsWith(')')) throw bad('missing ")"');
    throw bad('expected a tool name, e.g. Bash or Bash(git log:*)');
  }
  const tool = m[1] as string;
  const spec = m[2]?.trim();
  if (spec === '') throw bad(`empty parentheses (write ${tool} for every call)`);
  return { text, tool, specifier: spec === undefined || spec === '*' ? null : spec, effect, source };
}

/**
 * Whether a rule naming `ruleTool` is about a tool of these names (its name and public name): the same name, or a
 * server's rule (`mcp__server`) and one of that server's tools (`mcp__server__tool`).
 */
export function ruleCovers(ruleTool: string, names: readonly string[]): boolean {
  const rule = ruleTool.toLowerCase();
  return names.some((name) => {
    const tool = name.toLowerCase();
    if (rule === tool) return true;
    return /^mcp__/.test(rule) && rule.split('__').length === 2 && tool.startsWith(`${rule}__`);
  });
}
