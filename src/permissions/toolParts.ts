/**
 * What the gate asks of a tool (the tool contract, core/tool.ts): its public name (what rules name), whether a call
 * only reads, and how a rule's specifier matches its calls. The gate judges every tool through these, none by name.
 */
import { publicToolName, type Tool, type ToolPermission } from '../core/tool.js';
import { ruleCovers, type ParsedRule } from './ruleText.js';

/** The parts of a tool the gate judges with. */
export interface JudgedParts {
  publicName: string;
  isReadOnly?(input: unknown): boolean | Promise<boolean>;
  permission?: ToolPermission;
}

/** The parts of `tool` (called `name` by the model; a name no tool has is judged by its rules alone). */
export function partsOf(tool: Tool | undefined, name: string): JudgedParts {
  if (tool === undefined) return { publicName: name };
  return {
    publicName: publicToolName(tool),
    ...(tool.isReadOnly ? { isReadOnly: (input: unknown) => tool.isReadOnly?.(input) ?? false } : {}),
    ...(tool.permission ? { permission: tool.permission } : {}),
  };
}

/** The names rules may call the tool by: the model's and the public one. */
export function namesOf(parts: JudgedParts, name: string): string[] {
  return parts.publicName === name ? [name] : [name, parts.publicName];
}

/**
 * The rules about the tool (called `name` by the model): those naming it, and those with a specifier naming a tool
 * whose rules also apply to it (`permission.ruleNames`: `Edit(...)` for Write, `Read(...)` for Glob and Grep). As in
 * Claude Code 2.1.197, a rule naming another tool without a specifier (`Edit`) is that tool's alone.
 */
export function rulesAbout(rules: readonly ParsedRule[], parts: JudgedParts, name: string): ParsedRule[] {
  const names = namesOf(parts, name);
  const others = parts.permission?.ruleNames ?? [];
  return rules.filter((r) => ruleCovers(r.tool, names) || (r.specifier !== null && ruleCovers(r.tool, others)));
}

/** How the tool a rule names (among `tools`) checks the rule's specifier, when it can. */
export function specifierChecker(toolName: string, tools: readonly Tool[]): ((specifier: string) => void) | undefined {
  const lower = toolName.toLowerCase();
  const permission = tools.find((t) => t.name.toLowerCase() === lower || publicToolName(t).toLowerCase() === lower)?.permission;
  return permission?.checkSpecifier ? (specifier) => permission.checkSpecifier?.(specifier) : undefined;
}
