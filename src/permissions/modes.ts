/**
 * The modes of `--permission-mode`, as agentloop runs them (the permission gate: decide.ts). Claude Code's `manual` is
 * `default`; its `auto` needs its safety classifier, which agentloop does not have. A module of its own, without
 * imports, so that the command line can check a mode without loading the rules.
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
