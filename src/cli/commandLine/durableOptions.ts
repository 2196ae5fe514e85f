/**
 * The options of the durable commands (Restate): `worker`, `balancer`, `submit`, `result`, `messages` (`view --restate` is read
 * by ./args.ts with `view`). Their flags are read by the one parser (./parse.ts) from the option table, as a run's
 * are: `worker --model sonnet` resolves the alias as `-p` does.
 */
import { adminUrlOf } from '../../durable/addresses.js';
import type { RunRequest } from '../../durable/protocol.js';
import type { PermissionMode } from '../../permissions/modes.js';
import { restateId, UsageError } from './argValues.js';
import { pickFlags, type ParsedLine } from './parse.js';

export type DurableOptions =
  | {
      command: 'worker';
      port: number;
      host: string;
      /** Admin API to register with (`--register`). */
      register?: string;
      /** The address to register (a load balancer's, say); default the worker's own. */
      advertise?: string;
      /** Register even though another address serves AgentSession (new runs come here). */
      replace?: boolean;
      cwd?: string;
      model?: string;
      sandbox?: boolean;
      allowEnv?: string[];
      allowWrite?: string[];
      /** `--mcp-config` values: MCP servers whose tools every run of this worker has (journalled as bash's are). */
      mcpConfig?: string[];
      /** Restate's request-signing public keys (`publickeyv1_...`): unsigned requests are refused. */
      identityKeys?: string[];
      /** Deny rules every run it serves keeps (`--disallowedTools`). */
      disallowedTools?: string[];
      /** The most permissive mode of its runs (`--permission-mode`). */
      permissionMode?: PermissionMode;
    }
  | ({
      command: 'submit';
      restate: string;
      /** Restate's admin API (`--admin`; default: the ingress's host, port 9070): `--wait` reads the run's records there. */
      admin: string;
      wait: boolean;
      sessionId?: string;
      /** Restate starts one run per key: a submit retried with it does not start another. */
      idempotencyKey?: string;
      /** Seconds a call asked about waits before it is denied (the request carries it in ms). */
      approvalTimeout?: number;
      /** `--agents JSON`: the run's subagents (checked when parsed: cli/setup/agents.ts). */
      agents?: string;
    } & Omit<RunRequest, 'approvalTimeoutMs' | 'agents'>)
  | {
      command: 'balancer';
      port: number;
      host: string;
      /** The workers' addresses. */
      backends: string[];
      /** Admin API to register the balancer's address with. */
      register?: string;
      replace?: boolean;
    }
  | { command: 'result' | 'messages'; restate: string; admin: string; id: string }
  | { command: 'approvals'; restate: string; admin: string }
  | { command: 'approve' | 'deny'; restate: string; admin: string; id: string; toolUseId: string; reason?: string }
  | { command: 'view'; restate: string; admin: string; id: string; port?: number };

/** `--restate` (it has a default) and `--admin` (default: the ingress's host, port 9070). */
export function restateOf(flags: ParsedLine['flags']): { restate: string; admin: string } {
  const restate = flags.restate as string;
  return { restate, admin: flags.admin ?? adminUrlOf(restate) };
}

/** `worker` and `balancer`: they serve until Ctrl-C, on `--host`/`--port` (both have defaults). */
function servingOptions(command: 'worker' | 'balancer', { flags, positionals }: ParsedLine): DurableOptions {
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" after ${command}`);
  if (flags.advertise !== undefined && flags.register === undefined) throw new UsageError('--advertise goes with --register');
  if (flags.replace && flags.register === undefined) throw new UsageError('--replace goes with --register');
  const serving = { port: flags.workerPort as number, host: flags.host as string, ...pickFlags(flags, ['register', 'replace'] as const) };
  if (command === 'balancer') {
    if (flags.backends === undefined) throw new UsageError("balancer needs the workers' addresses: --backend URL, once for each");
    return { command, ...serving, backends: flags.backends };
  }
  if (flags.allowWrite !== undefined && !flags.sandbox) throw new UsageError('--allow-write goes with --sandbox');
  const keys = ['advertise', 'cwd', 'model', 'sandbox', 'allowEnv', 'allowWrite', 'mcpConfig', 'identityKeys', 'disallowedTools', 'permissionMode'] as const;
  return { command, ...serving, ...pickFlags(flags, keys) };
}

/** `approvals`, `approve ID TOOL_USE_ID`, `deny ID TOOL_USE_ID [--reason TEXT]`. */
function approvalOptions(command: 'approvals' | 'approve' | 'deny', { flags, positionals }: ParsedLine): DurableOptions {
  if (command === 'approvals') {
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" after approvals`);
    return { command, ...restateOf(flags) };
  }
  const [id, toolUseId, extra] = positionals;
  if (toolUseId === undefined) throw new UsageError(`${command} needs a session id and a tool_use id (${command} ID TOOL_USE_ID: see approvals)`);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}" after ${command} ID TOOL_USE_ID`);
  if (!/^[a-zA-Z0-9_-]{1,256}$/.test(toolUseId)) throw new UsageError(`${command}: "${toolUseId}" is not a tool_use id (letters, digits, _ and -)`);
  return { command, ...restateOf(flags), id: restateId(command, id), toolUseId, ...pickFlags(flags, ['reason'] as const) };
}

export function durableOptions(command: 'worker' | 'balancer' | 'submit' | 'result' | 'messages' | 'approvals' | 'approve' | 'deny', line: ParsedLine): DurableOptions {
  const { flags, positionals } = line;
  switch (command) {
    case 'worker':
    case 'balancer':
      return servingOptions(command, line);
    case 'submit': {
      const [prompt, extra] = positionals;
      if (prompt === undefined || prompt.trim() === '') throw new UsageError('submit needs -p "PROMPT"');
      if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}" after submit`);
      const options: DurableOptions = { command, ...restateOf(flags), prompt, wait: flags.wait === true };
      if (flags.submitSessionId !== undefined) options.sessionId = flags.submitSessionId;
      const keys = ['idempotencyKey', 'model', 'maxTurns', 'maxTokens', 'maxRetries', 'appendSystemPrompt', 'permissionMode', 'allowedTools', 'disallowedTools', 'approvalTimeout', 'agents'] as const;
      return { ...options, ...pickFlags(flags, keys) };
    }
    case 'approvals':
    case 'approve':
    case 'deny':
      return approvalOptions(command, line);
    case 'result':
    case 'messages':
      if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}" after ${command} ID`);
      return { command, ...restateOf(flags), id: restateId(command, positionals[0]) };
  }
}
