/**
 * The bash tool's permission parts as the rules of ./rules.ts judge them, for a bash tool that does not carry its own
 * yet (core/tool.ts `permission`, `isReadOnly`): helper `contract` moves them into the bash tool (issue 44), and this
 * file goes with that move.
 */
import { isSafeAlongside } from '../tools/bash/judge/checks.js';
import { checkSoon } from '../tools/bash/judge/shell/reader.js';
import { decidePermission, isFileEdit, parseRules } from './rules.js';
import { suggestRule } from './suggest.js';
import type { JudgedParts } from './toolParts.js';

const commandOf = (input: unknown): string | null =>
  typeof input === 'object' && input !== null && typeof (input as { command?: unknown }).command === 'string' ? (input as { command: string }).command : null;

const asRules = (specifiers: readonly string[]) => parseRules(specifiers.map((s) => `Bash(${s})`));

export const legacyBashParts: JudgedParts = {
  publicName: 'Bash',
  isReadOnly(input) {
    const command = commandOf(input);
    return command === null ? false : checkSoon((read) => isSafeAlongside(read, command));
  },
  permission: {
    matches(specifier, input, effect) {
      const rules = asRules([specifier]);
      if (effect === 'allow') return checkSoon((read) => decidePermission('bash', input, { allow: rules, deny: [] }, read).allowed);
      return checkSoon((read) => !decidePermission('bash', input, { allow: [], deny: rules }, read).allowed);
    },
    allowedBy(specifiers, input) {
      const rules = asRules(specifiers);
      return checkSoon((read) => decidePermission('bash', input, { allow: rules, deny: [] }, read).allowed);
    },
    checkSpecifier(specifier) {
      asRules([specifier]);
    },
    isEditWithin(input, dirs) {
      const command = commandOf(input);
      return command === null ? false : checkSoon((read) => isFileEdit(read(command), dirs as [string, ...string[]]));
    },
    suggestRule: (input) => suggestRule('bash', input),
  },
};
