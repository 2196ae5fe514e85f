/**
 * The bash tool as the permission gate (src/permissions/) and the hosts see it: Claude Code's name `Bash`, how rules
 * with a specifier match a command line (./judge/rules.ts), which lines only read (run unasked in the default and plan
 * modes: the check that lets a command start mid-stream, ./judge/checks.ts) or only edit files inside the working
 * directories (acceptEdits: ./judge/fileEdit.ts), the rule a question offers (./judge/suggest.ts), and the line a call
 * is shown as (`$ ls -A`).
 */
import type { ToolDisplay, ToolPermission } from '../../core/tool.js';
import { isSafeAlongside } from './judge/checks.js';
import { isFileEdit } from './judge/fileEdit.js';
import { commandPattern, denies, uncovered, type CommandPattern } from './judge/rules.js';
import { checkSoon } from './judge/shell/reader.js';
import { commandSuggestions, suggestCommandRule } from './judge/suggest.js';
import { BASH_PUBLIC_NAME } from './names.js';

/** The command of a call, or null when its input has none. */
export function commandOf(input: unknown): string | null {
  const command = (input as { command?: unknown } | null)?.command;
  return typeof command === 'string' ? command : null;
}

/** Whether the command only reads; false when it cannot be judged (no command, the parser did not load). */
export async function isReadOnlyCommand(input: unknown): Promise<boolean> {
  const command = commandOf(input);
  if (command === null) return false;
  return checkSoon((read) => isSafeAlongside(read, command)).catch(() => false);
}

/** `$ command`. */
export const bashDisplay: ToolDisplay = {
  call: (input) => `$ ${commandOf(input) ?? JSON.stringify(input)}`,
};

export const bashPermission: ToolPermission = {
  checkSpecifier: (specifier) => void commandPattern(specifier),
  // A rule that does not parse, a call without a command, a parser that did not load: a deny rule denies, an allow
  // rule does not allow.
  matches: (specifier, input, effect) => (effect === 'deny' ? denied(specifier, input) : allowedBy([specifier], input)),
  allowedBy: (specifiers, input) => allowedBy(specifiers, input),
  async isEditWithin(input, dirs) {
    const command = commandOf(input);
    if (command === null) return false;
    return checkSoon((read) => isFileEdit(read(command), dirs)).catch(() => false);
  },
  suggestRule: (input) => suggestCommandRule(BASH_PUBLIC_NAME, commandOf(input) ?? ''),
  async suggestions(input, dirs) {
    const command = commandOf(input) ?? '';
    const script = await checkSoon((read) => read(command)).catch(() => null);
    return commandSuggestions(BASH_PUBLIC_NAME, command, script, dirs);
  },
};

async function denied(specifier: string, input: unknown): Promise<boolean> {
  const command = commandOf(input);
  const pattern = patternOrNull(specifier);
  if (command === null || pattern === null) return true;
  return checkSoon((read) => denies([pattern], command, read)).catch(() => true);
}

async function allowedBy(specifiers: readonly string[], input: unknown): Promise<boolean> {
  const command = commandOf(input);
  const patterns = specifiers.map(patternOrNull).filter((p): p is CommandPattern => p !== null);
  if (command === null || patterns.length === 0) return false;
  return checkSoon((read) => uncovered(patterns, command, read) === null).catch(() => false);
}

function patternOrNull(specifier: string): CommandPattern | null {
  try {
    return commandPattern(specifier);
  } catch {
    return null;
  }
}
