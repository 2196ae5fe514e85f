/**
 * What the gate asks of a tool (the tool contract, core/tool.ts): its public name (what rules name), whether a call
 * only reads, and how a rule's specifier matches its calls. The gate judges every tool through these, none by name.
 */
import type { Tool } from '../core/tool.js';
import { legacyBashParts } from './bashLegacy.js';

/** How rules with a specifier apply to a tool's calls (core/tool.ts ToolPermission). */
export interface ToolPermissionParts {
  matches(specifier: string, input: unknown, effect: 'allow' | 'deny', dirs: readonly string[]): boolean | Promise<boolean>;
  /**
   * Whether the allow rules' specifiers together cover the call, each part of it by one of them (`Bash(git log:*)` and
   * `Bash(wc:*)` allow `git log | wc -l`, which neither allows alone). Absent: one specifier must match the call.
   */
  allowedBy?(specifiers: readonly string[], input: unknown, dirs: readonly string[]): boolean | Promise<boolean>;
  checkSpecifier?(specifier: string): void;
  isEditWithin?(input: unknown, dirs: readonly string[]): boolean | Promise<boolean>;
  suggestRule?(input: unknown): string;
}

/** The parts of a tool the gate judges with. */
export interface JudgedParts {
  publicName: string;
  isReadOnly?(input: unknown): boolean | Promise<boolean>;
  permission?: ToolPermissionParts;
}

/** The tool contract's fields (issue 44), read structurally until every tool carries them. */
type ContractTool = Tool & { publicName?: string; isReadOnly?: JudgedParts['isReadOnly']; permission?: ToolPermissionParts };

/** The parts of `tool` (called `name` by the model); a bash tool without its own parts has the rules of ./rules.ts. */
export function partsOf(tool: Tool | undefined, name: string): JudgedParts {
  const t = tool as ContractTool | undefined;
  if (t !== undefined && (t.permission !== undefined || t.isReadOnly !== undefined)) {
    return { publicName: t.publicName ?? t.name, ...(t.isReadOnly ? { isReadOnly: (input) => t.isReadOnly?.(input) ?? false } : {}), ...(t.permission ? { permission: t.permission } : {}) };
  }
  if (name === 'bash' && (t === undefined || t.publicName === undefined || t.publicName === 'Bash')) return legacyBashParts;
  return { publicName: t?.publicName ?? name };
}

/** The names rules may call the tool by: the model's and the public one. */
export function namesOf(parts: JudgedParts, name: string): string[] {
  return parts.publicName === name ? [name] : [name, parts.publicName];
}

/** The parts that check a rule's specifier for the rule's tool name, when the gate knows that tool. */
export function specifierChecker(toolName: string, tools: readonly Tool[]): ((specifier: string) => void) | undefined {
  const lower = toolName.toLowerCase();
  const tool = tools.find((t) => t.name.toLowerCase() === lower || (t as ContractTool).publicName?.toLowerCase() === lower);
  const permission = tool ? partsOf(tool, tool.name).permission : lower === 'bash' ? legacyBashParts.permission : undefined;
  return permission?.checkSpecifier ? (specifier) => permission.checkSpecifier?.(specifier) : undefined;
}
