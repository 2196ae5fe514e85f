/**
 * A stdio MCP server's process, started as the bash tool's commands are (tools/bash/run/: the runner interface, its
 * `wrap`): in a PID namespace of its own tied to the agent, so that neither the server nor anything it starts outlives
 * the agent, kill -9 included; where nothing can contain, as a plain child (then it ends when its stdin closes, as
 * servers do, but a kill -9 of the agent leaves it running until it reads that end).
 *
 * Its environment is only what its config names, besides the MCP SDK's safe variables (HOME, LOGNAME, PATH, SHELL,
 * TERM, USER: `getDefaultEnvironment`): the agent's credentials are not passed on unless the config names them.
 * What it writes to stderr is kept (its last 2 KB) to say why it failed, never printed.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CommandRunner } from '../bash/run/runner.js';
import type { McpStdioConfig } from './config.js';

const STDERR_KEPT = 2048;

export interface StdioServer {
  transport: StdioClientTransport;
  /** The end of what it wrote to stderr. */
  stderrTail(): string;
}

/** The transport of `config`'s server (not started: the client starts it), working in `cwd`, contained by `runner`. */
export function stdioServer(config: McpStdioConfig, cwd: string, runner: CommandRunner): StdioServer {
  const program: [string, ...string[]] = [config.command, ...config.args];
  const [command, ...args] = runner.wrap ? runner.wrap(program, cwd) : program;
  const transport = new StdioClientTransport({ command, args, env: config.env, cwd, stderr: 'pipe' });
  let tail = '';
  // Read it always: a full pipe would block the server.
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  return { transport, stderrTail: () => tail };
}
