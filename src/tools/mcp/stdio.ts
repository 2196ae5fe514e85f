/**
 * A stdio MCP server's process, started as the bash tool's commands are (tools/bash/run/: the runner interface, its
 * `wrap`): in a PID namespace of its own tied to the agent, so that neither the server nor anything it starts outlives
 * the agent, kill -9 included (its lifeline's watcher: bash/run/lifeline.ts); where nothing can contain, as a plain
 * child in a process group that the same watcher kills.
 *
 * It is spawned detached, as the bash tool's commands are (process.ts): a session of its own with no controlling
 * terminal, so it can neither reach the user's terminal nor get its signals, and a process group whose id is the
 * spawned process's pid. bubblewrap's first process in the namespace stays in that group from its spawn to its end
 * (contained.ts: no `--new-session`), so the stop's SIGKILL to the group takes the namespace at any moment of its
 * setup. The MCP SDK's own StdioClientTransport spawns in the agent's session and kills only the pid it spawned:
 * that needed `--new-session`, and a stop during bubblewrap's setup left the namespace and the server running.
 *
 * Its environment is only what its config names, besides the MCP SDK's safe variables (HOME, LOGNAME, PATH, SHELL,
 * TERM, USER: `getDefaultEnvironment`): the agent's credentials are not passed on unless the config names them.
 * What it writes to stderr is kept (its last 2 KB) to say why it failed, never printed.
 *
 * What it writes to stdout is read with bounded memory (./lines.ts): an answer over the bound is not read but answered
 * for it, to the call it was for, with its size, what to do and its two ends; a line that never ends is the end of
 * the server: every call waiting is answered with why, and it is stopped. The run goes on either way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { lifeline, watched, withLifeline } from '../bash/run/lifeline.js';
import { killGroup, trackGroup, untrackGroup } from '../bash/run/process.js';
import type { CommandRunner } from '../bash/run/runner.js';
import type { McpStdioConfig } from './config.js';
import { answerFor, BoundedLines, endlessText, idOfLine, oversizedText, type LineEvent } from './lines.js';

type Id = string | number;

const STDERR_KEPT = 2048;
/** How long a server has to end by itself once its stdin is closed, as the MCP SDK's transport gives it. */
const GRACE_MS = 2000;

export interface StdioServer {
  transport: Transport;
  /** The end of what it wrote to stderr. */
  stderrTail(): string;
}

/** The transport of `config`'s server (not started: the client starts it), working in `cwd`, contained by `runner`. */
export function stdioServer(config: McpStdioConfig, cwd: string, runner: CommandRunner): StdioServer {
  const program: [string, ...string[]] = [config.command, ...config.args];
  const argv = runner.wrap ? runner.wrap(program, cwd) : program;
  let tail = '';
  const keep = (text: string) => (tail = (tail + text).slice(-STDERR_KEPT));
  const transport = new GroupTransport(argv, { ...getDefaultEnvironment(), ...config.env }, cwd, (chunk) => keep(chunk.toString('utf8')));
  transport.onStopped = (why) => keep(`\n${why}\n`);
  return { transport, stderrTail: () => tail };
}

/** The MCP stdio transport over a process group of its own, killed whole when the transport closes or the process exits. */
class GroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private closing = false;
  /** The spawned process was reaped: its pid, the group's id, may be another's by now. */
  private gone = false;
  private readonly lines = new BoundedLines();
  /** The requests sent and not answered yet, by id, with their method. */
  private readonly pending = new Map<Id, string>();
  /** Told why the server was stopped for what it sent (a line without end). */
  onStopped?: (why: string) => void;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly argv: [string, ...string[]],
    private readonly env: Record<string, string>,
    private readonly cwd: string,
    private readonly onStderr: (chunk: Buffer) => void,
  ) {}

  async start(): Promise<void> {
    if (this.closing) throw new Error('closed before it started');
    // The watcher of the agent's lifeline kills the group when the agent dies, kill -9 included (lifeline.ts).
    const line = await lifeline();
    if (this.closing) throw new Error('closed before it started');
    const [file, ...args] = watched(this.argv, line, this.env.PATH);
    const child = spawn(file, args, { cwd: this.cwd, env: this.env, stdio: withLifeline<'pipe' | number>(['pipe', 'pipe', 'pipe'], line), detached: true });
    this.child = child;
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    // Whatever is left in the group once the spawned process is gone (a namespace still in its setup) goes too.
    child.once('exit', () => this.killAll());
    child.once('close', () => this.onclose?.());
    // Read it always: a full pipe would block the server.
    child.stderr?.on('data', this.onStderr);
    child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on('error', (error) => this.onerror?.(error));
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing) return Promise.reject(new Error('Not connected'));
    if ('method' in message && 'id' in message && message.id !== undefined) this.pending.set(message.id, message.method);
    return new Promise((resolve) => (stdin.write(serializeMessage(message)) ? resolve() : stdin.once('drain', resolve)));
  }

  /** Closes its stdin (a server ends then), waits for it at most GRACE_MS, then kills its whole group. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.child?.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, GRACE_MS)))]);
    clearTimeout(timer);
    this.killAll();
    this.lines.clear();
  }

  private killAll(): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.gone) return;
    killGroup(pid);
    untrackGroup(pid);
    this.gone = this.child?.exitCode !== null || this.child?.signalCode !== null;
  }

  private read(chunk: Buffer): void {
    this.lines.push(chunk, (event) => this.take(event));
  }

  private take(event: LineEvent): void {
    if (event.kind === 'invalid') return this.onerror?.(event.error);
    if (event.kind === 'message') {
      const message = event.message;
      if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) this.pending.delete(message.id);
      return this.onmessage?.(message);
    }
    if (event.kind === 'oversized') {
      const id = idOfLine(event.head, event.tail);
      const ids = id !== undefined && this.pending.has(id) ? [id] : this.pending.size === 1 ? [...this.pending.keys()] : [];
      for (const each of ids) this.answer(each, oversizedText(event.bytes, event.head, event.tail));
      return;
    }
    const why = endlessText(event.bytes);
    for (const each of [...this.pending.keys()]) this.answer(each, why);
    this.onStopped?.(why);
    this.onerror?.(new Error(why));
    void this.close();
  }

  /** Answers the waiting request `id` for the server: a tool call with an error result the model reads, others with an error. */
  private answer(id: Id, text: string): void {
    const method = this.pending.get(id);
    this.pending.delete(id);
    this.onmessage?.(answerFor(id, method, text));
  }
}
