/**
 * Writing a rule where Claude Code writes "don't ask again" answers: `permissions.allow` of the project's local
 * settings file (`.claude/settings.local.json`), made with its folder when missing, every other key kept. A file
 * that is not a JSON object is not overwritten (the caller says why); the write is whole or not at all (a temporary
 * file renamed over it).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Adds `rule` to the local settings' allow rules of `cwd` (once); the file written, or why not. */
export function addLocalAllowRule(cwd: string, rule: string): { path: string } | { error: string } {
  const dir = join(cwd, '.claude');
  const path = join(dir, 'settings.local.json');
  let settings: Record<string, unknown> = {};
  try {
    const text = readFileSync(path, 'utf8');
    const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: `${path} is not a JSON object: left as it is` };
    settings = value as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof SyntaxError) return { error: `${path} is not valid JSON: left as it is` };
    if (code !== 'ENOENT') return { error: `cannot read ${path} (${code ?? (error as Error).message})` };
  }
  const permissions = isObject(settings.permissions) ? settings.permissions : {};
  const allow = Array.isArray(permissions.allow) ? permissions.allow : [];
  if (allow.includes(rule)) return { path };
  const next = { ...settings, permissions: { ...permissions, allow: [...allow, rule] } };
  try {
    mkdirSync(dir, { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`);
    renameSync(temporary, path);
  } catch (error) {
    return { error: `cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  return { path };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
