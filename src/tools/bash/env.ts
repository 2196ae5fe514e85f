/**
 * The environment a command runs with: the base environment without credentials (by name or by
 * value, see secrets.ts), plus settings that keep programs from waiting for a human (editors,
 * pagers, credential prompts).
 */
import { withheldBecause } from './secrets.js';

export { isSecretName } from './secrets.js';

/**
 * `false` as the editor makes `git commit` without `-m` (and `git rebase -i`, `crontab -e`, ...)
 * fail at once with "There was a problem with the editor 'false'" instead of opening vi.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  GIT_EDITOR: 'false',
  GIT_SEQUENCE_EDITOR: 'false',
  EDITOR: 'false',
  VISUAL: 'false',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  TERM: 'dumb',
};

export function commandEnv(
  base: Readonly<Record<string, string | undefined>>,
  allowEnv: readonly string[] = [],
): Record<string, string> {
  // One pass over `base` (reading process.env is slow: each name and value is fetched from C++).
  const env: Record<string, string> = {};
  for (const name of Object.keys(base)) {
    if (name in NON_INTERACTIVE_ENV) continue;
    const value = base[name];
    if (value !== undefined && withheldBecause(name, value, allowEnv) === null) env[name] = value;
  }
  return Object.assign(env, NON_INTERACTIVE_ENV);
}
