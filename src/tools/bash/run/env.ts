/**
 * The environment a command runs with: the base environment without credentials (by name or by
 * value, see secrets.ts), plus settings that keep programs from waiting for a human (editors,
 * pagers, credential prompts) and git's read-only commands from writing; and the credential values
 * cut out of what it prints.
 */
import { isSecretVariable, redactionOrder, type SecretValue } from '../judge/secrets.js';

export { isSecretName } from '../judge/secrets.js';

/**
 * What every command's environment sets, whatever the base environment says. `false` as the editor makes `git commit`
 * without `-m` (and `git rebase -i`, `crontab -e`, ...) fail at once with "There was a problem with the editor 'false'"
 * instead of opening vi.
 */
export const FIXED_ENV: Readonly<Record<string, string>> = {
  GIT_EDITOR: 'false',
  GIT_SEQUENCE_EDITOR: 'false',
  EDITOR: 'false',
  VISUAL: 'false',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  TERM: 'dumb',
  /**
   * `git status` (judged read-only: it may run in parallel, while the reply streams, in plan mode) otherwise refreshes
   * .git/index where its stat data is stale, taking index.lock: a write, and a lock another git command can meet.
   */
  GIT_OPTIONAL_LOCKS: '0',
};

type Env = Readonly<Record<string, string | undefined>>;

export function commandEnv(base: Env, allowEnv: readonly string[] = []): Record<string, string> {
  return new CommandEnvironment(allowEnv).read(base).env;
}

/**
 * Reads the base environment for each command (the caller may load more variables, a .env file, after creating the
 * tool) in one pass: reading process.env is slow, each name and value is fetched from C++. Whether a variable is a
 * credential is worked out once per name and value, not per command (secrets.ts tries some thirty value shapes).
 */
export class CommandEnvironment {
  private readonly known = new Map<string, { value: string; secret: boolean }>();
  /** The credentials of the base environment, in its order; rebuilt when a variable changed. */
  private baseSecrets: SecretValue[] = [];
  private ordered: SecretValue[] = [];

  constructor(private readonly allowEnv: readonly string[] = []) {}

  /** The command's environment, and the values to cut out of its output (`extra` besides the credentials of `base`). */
  read(base: Env, extra: readonly SecretValue[] = []): { env: Record<string, string>; secrets: SecretValue[] } {
    const env: Record<string, string> = {};
    let changed = false;
    let count = 0;
    for (const name of Object.keys(base)) {
      const value = base[name];
      if (value === undefined) continue;
      count++;
      let entry = this.known.get(name);
      if (entry === undefined || entry.value !== value) {
        entry = { value, secret: isSecretVariable(name, value) };
        this.known.set(name, entry);
        changed = true;
      }
      if (name in FIXED_ENV) continue;
      if (!entry.secret || this.allowEnv.includes(name)) env[name] = value;
    }
    if (count !== this.known.size) {
      const present = new Set(Object.keys(base).filter((name) => base[name] !== undefined));
      for (const name of this.known.keys()) if (!present.has(name)) this.known.delete(name);
      changed = true;
    }
    if (changed) {
      this.baseSecrets = [...this.known].filter(([, e]) => e.secret).map(([name, e]) => ({ name, value: e.value }));
      this.ordered = redactionOrder([], this.baseSecrets);
    }
    return { env: Object.assign(env, FIXED_ENV), secrets: extra.length === 0 ? this.ordered : redactionOrder(extra, this.baseSecrets) };
  }
}
