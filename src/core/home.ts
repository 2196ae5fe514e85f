/** Where agentloop keeps its state (sessions, their files): `$AGENTLOOP_HOME`, else `.agentloop` in the home. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `env` is typed without Node's types, for the published .d.ts; `home` is the account's home (default: the OS's). */
export function agentloopHome(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  return env.AGENTLOOP_HOME && env.AGENTLOOP_HOME.trim() !== '' ? env.AGENTLOOP_HOME : join(home, '.agentloop');
}
