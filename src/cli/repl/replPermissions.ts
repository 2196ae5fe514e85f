/**
 * The REPL's permissions beyond its question (./replAsk.ts): "don't ask again" saves the rule in the project's
 * `.claude/settings.local.json`, as Claude Code does, and allows it for the rest of the session at once; `/permissions`
 * lists the mode and every rule in force with where it came from.
 */
import { relative } from 'node:path';
import type { PermissionGate } from '../../permissions/gate.js';
import { addLocalAllowRule } from '../../settings/write.js';

/** The REPL's gate for the next run (each "don't ask again" makes a new one). */
export interface ReplGates {
  gate: PermissionGate;
  asks: boolean;
}

/** Allows `rule` from now on and saves it in the local settings of `cwd`; the line that says so. */
export function rememberRule(gates: ReplGates, cwd: string, rule: string): string {
  gates.gate = gates.gate.withRules({ allow: [rule] }, 'localSettings');
  const saved = addLocalAllowRule(cwd, rule);
  if ('error' in saved) return `${rule} is allowed until the REPL ends (not saved: ${saved.error}).`;
  return `${rule} is allowed from now on in this project (saved in ${relative(cwd, saved.path) || saved.path}).`;
}

const SOURCES: Record<string, string> = {
  cliArg: 'the command line',
  userSettings: 'user settings',
  projectSettings: 'project settings',
  localSettings: 'local settings',
  flagSettings: '--settings',
  session: 'this session',
};

/** `/permissions`: the mode, then each rule by effect with where it came from. */
export function permissionsText(gate: PermissionGate): string {
  const lines = [`Permission mode: ${gate.mode}`];
  for (const effect of ['deny', 'ask', 'allow'] as const) {
    const rules = gate.rules.filter((r) => r.effect === effect);
    lines.push(`${effect} rules:${rules.length === 0 ? ' none' : ''}`);
    for (const r of rules) lines.push(`  ${r.rule}  (${SOURCES[r.source] ?? r.source}${r.path ? `: ${r.path}` : ''})`);
  }
  if (gate.dirs.length > 1) lines.push(`Additional directories: ${gate.dirs.slice(1).join(', ')}`);
  return lines.join('\n');
}
