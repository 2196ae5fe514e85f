import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { selfCommand } from '../../src/cli/commandLine/self.js';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
/** How the CLI under test names itself in the commands it prints (cli/commandLine/self.ts: no agentloop on the PATH, so node and its path). */
export const SELF = selfCommand(CLI);

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Where the CLI under test looks for Claude Code's configuration (~/.claude.json, ~/.claude/settings.json): a folder
 * that does not exist, so a developer's own MCP servers and approvals never start in a test. A test of those files
 * deletes it from its env (test/cli/mcpScopes.process.test.ts) and gives its own HOME.
 */
export const NO_CLAUDE_CONFIG = '/nonexistent/agentloop-tests/claude-config';

/**
 * The flag of a test whose run relies on every tool call running (`touch`, `echo > file`, a command with `$(...)`):
 * like Claude Code's `-p`, agentloop's denies by default what it would ask about (docs/cli.md#permissions). A test
 * that is not about permissions says so with this flag; one that calls an MCP server's tools names them in
 * `--allowedTools` instead, as a Claude Code user does. As root the flag needs `IS_SANDBOX=1`, which cliEnv sets.
 */
export const RUN_EVERYTHING = '--dangerously-skip-permissions';

/**
 * An environment for the CLI under test: nothing of the developer's own configuration leaks in
 * (keys, base URL, model, sessions home, Claude Code's configuration), only what the test sets. `IS_SANDBOX=1`: the
 * tests run in a throwaway checkout (CI: a fresh clone, as root), where `--dangerously-skip-permissions` is allowed
 * as root, as Claude Code allows it there; a test of the refusal deletes it.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(ANTHROPIC_|MODEL_ID$|AGENTLOOP_|CLAUDE_CONFIG_DIR$|IS_SANDBOX$|CLAUDE_CODE_BUBBLEWRAP$)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: '1', CLAUDE_CONFIG_DIR: NO_CLAUDE_CONFIG, IS_SANDBOX: '1', ...extra };
}

/** Starts the CLI as a real process; `openStdin` leaves its stdin open for the test to write to (`child.stdin`). */
export function startCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; openStdin?: boolean; prefix?: string[] }) {
  // `prefix`: what runs the CLI as another user (test/support/users.ts: setpriv execs it, so the pid is the CLI's).
  const [file, ...rest] = [...(options.prefix ?? []), process.execPath, CLI, ...args] as [string, ...string[]];
  const child = spawn(file, rest, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A -p run reads piped stdin: a test that gives none ends it, as a caller with nothing to pipe would (< /dev/null).
  if (options.input !== undefined) child.stdin.end(options.input);
  else if (!options.openStdin && (args.includes('-p') || args.includes('--print'))) child.stdin.end();
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child: child as ChildProcess, done, output: () => ({ stdout, stderr }) };
}

export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<CliRun> {
  return startCli(args, { input: '', ...options }).done;
}
