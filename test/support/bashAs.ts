/**
 * The bash tool as a given user (test/support/users.ts): "every security test runs as root AND as an unprivileged
 * user", also the tests of the tool itself. For this process's own user the tool runs here, as it always did; for
 * nobody it runs in a process of nobody's own (CHILD below, through setpriv) that lives as long as the tool, so what a
 * command leaves behind is looked at while the agent that ran it still lives. That process runs the built tool
 * (dist/, which vitest's global setup builds from src/ first: test/support/buildOnce.ts), as the CLI tests do: it
 * starts in a fraction of the time tsx takes, which counts on a loaded machine.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createBashTool, type BashToolOptions } from '../../src/tools/bash/bashTool.js';
import type { ToolContext, ToolOutput } from '../../src/core/tool.js';
import type { TestUser } from './users.js';

export interface BashAs {
  run(input: { command: string; timeout?: number }, context: ToolContext): Promise<ToolOutput>;
  /** Ends the user's process (and so the tool); nothing for a tool of this process. */
  close(): void;
}

const DIST_BASH = fileURLToPath(new URL('../../dist/tools/bash/bashTool.js', import.meta.url));

/**
 * The user's process: one bash tool, made from the options on the first line of stdin (JSON), then one command per
 * further line (`{ command, timeout?, cwd }`), each answered with its ToolOutput as a line of JSON, in order, until
 * stdin ends.
 */
const CHILD = `
import { createInterface } from 'node:readline';
import { createBashTool } from ${JSON.stringify(DIST_BASH)};
let tool;
for await (const line of createInterface({ input: process.stdin })) {
  if (tool === undefined) { tool = createBashTool(JSON.parse(line)); continue; }
  const { cwd, ...input } = JSON.parse(line);
  const result = await tool.run(input, { cwd, signal: new AbortController().signal });
  process.stdout.write(JSON.stringify(result) + '\\n');
}`;

/**
 * A bash tool made of `options` (JSON: no functions) for `user`. Nobody's process starts at the first command, with
 * the environment nobody would have (PATH, HOME=/nonexistent) unless `options.env` says otherwise.
 */
export function bashToolAs(user: Pick<TestUser, 'prefix'>, options: BashToolOptions = {}): BashAs {
  if (user.prefix.length === 0) {
    const tool = createBashTool(options);
    return { run: (input, context) => tool.run(input, context), close: () => {} };
  }
  let child: UserTool | undefined;
  return {
    run: (input, context) => (child ??= startUserTool(user.prefix, options)).ask({ ...input, cwd: context.cwd }),
    close: () => child?.process.stdin.end(),
  };
}

interface UserTool {
  process: ChildProcessWithoutNullStreams;
  ask(request: { command: string; timeout?: number; cwd: string }): Promise<ToolOutput>;
}

function startUserTool(prefix: string[], options: BashToolOptions): UserTool {
  const argv = [...prefix, process.execPath, '--input-type=module', '-e', CHILD];
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: '/', env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiting: { resolve: (r: ToolOutput) => void; reject: (e: Error) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line) as ToolOutput));
  child.on('close', (code, signal) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the bash tool's process ended (${code ?? signal}) before answering: ${stderr}`));
  });
  child.stdin.write(`${JSON.stringify(options)}\n`);
  return {
    process: child,
    ask: (request) =>
      new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify(request)}\n`);
      }),
  };
}

/** Hands `paths` to `user` (chown -R) when the user is not this process's, so the user's commands may work there. */
export function handTo(user: Pick<TestUser, 'owner'>, ...paths: string[]): void {
  if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, ...paths]);
}
