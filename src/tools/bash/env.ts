/**
 * The environment a command runs with: the base environment without credentials, plus settings
 * that keep programs from waiting for a human (editors, pagers, credential prompts).
 */

/** Names of variables that hold credentials: `*_API_KEY`, `*_TOKEN`, `*_SECRET`, ... */
const SECRET_NAME = /(^|_)(API_KEY|TOKEN|SECRET|SECRET_KEY|SECRET_ACCESS_KEY|PASSWORD)$/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

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
    if (name in NON_INTERACTIVE_ENV || (isSecretName(name) && !allowEnv.includes(name))) continue;
    const value = base[name];
    if (value !== undefined) env[name] = value;
  }
  return Object.assign(env, NON_INTERACTIVE_ENV);
}
