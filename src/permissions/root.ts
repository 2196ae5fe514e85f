/**
 * The root rule, Claude Code's: as root, every call runs unasked (bypassPermissions) only on a machine that says it is
 * a sandbox (`IS_SANDBOX=1`, or `CLAUDE_CODE_BUBBLEWRAP`). It is the gate's (./gate.ts): a gate in that mode cannot be
 * built, nor made by `withMode`, whatever asked for it (a flag, an initialize, set_permission_mode, a settings file's
 * `defaultMode`).
 */
import type { PermissionMode } from './modes.js';
import { PermissionError } from './ruleText.js';

/** Claude Code's words when root asks for bypassPermissions outside a sandbox. */
export const ROOT_BYPASS_REFUSAL = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';

/** Whether `mode` is refused for this user in this environment. */
export function refusesBypassMode(mode: PermissionMode | undefined, env: Readonly<Record<string, string | undefined>> = process.env, uid: number | undefined = process.getuid?.()): boolean {
  return mode === 'bypassPermissions' && uid === 0 && env.IS_SANDBOX !== '1' && !/^(1|true|yes|on)$/i.test(env.CLAUDE_CODE_BUBBLEWRAP ?? '');
}

/** Throws the refusal when `mode` is refused (see refusesBypassMode). */
export function checkRootRule(mode: PermissionMode, env: Readonly<Record<string, string | undefined>> | undefined, uid: number | undefined): void {
  if (refusesBypassMode(mode, env ?? process.env, uid === undefined ? process.getuid?.() : uid)) throw new RootBypassError(ROOT_BYPASS_REFUSAL);
}

/** bypassPermissions refused as root outside a sandbox. */
export class RootBypassError extends PermissionError {}
