import type { ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import type { RunHooks, ToolCallInfo } from '../core/hooks.js';
import type { DenyRule, Tool, ToolContext, ToolOutput } from '../core/tool.js';
import type { SubagentHost } from '../core/agents.js';

export interface ExecutorOptions {
  cwd: string;
  /** `beforeToolCall` / `afterToolCall` (core/hooks.ts). */
  hooks?: Pick<RunHooks, 'beforeToolCall' | 'afterToolCall'>;
  /** How many concurrency-safe tools may run at once. */
  maxConcurrency?: number;
  /** Variables to add to a call's environment (`ToolContext.env`), asked when the call is made. */
  envOf?: (block: ToolUseBlock) => Readonly<Record<string, string>> | undefined;
  /**
   * Write-ahead: settles once the start of `block` is on record (run/writeAhead.ts); the tool is called only then,
   * never before. Without it, a tool is called once `onStart` has returned.
   */
  writeAhead?: (block: ToolUseBlock) => Promise<void>;
  /**
   * What a call of a tool not offered is told after `No such tool available: NAME` (run/defaultTools.ts gives Claude
   * Code's notes: `. Read exists but is not enabled in this context. ...`); default: nothing.
   */
  unavailableNote?: (name: string) => string | Promise<string>;
  /** The run's deny rules with a specifier (`ToolContext.denyRules`). */
  denyRules?: readonly DenyRule[];
  /** The run's subagents (`ToolContext.subagents`, for the Agent tool). */
  subagents?: SubagentHost;
}

export interface ExecutorListener {
  onStart(block: ToolUseBlock): void;
  /**
   * `completesAll`: this is the last result, and `onAllDone` follows at once. `data`: the tool's structured result
   * (ToolOutput.data), if it gave one.
   */
  onResult(result: ToolResultBlockParam, block: ToolUseBlock, completesAll: boolean, data?: unknown): void;
  /**
   * Every tool_use given to `finish` has a result; `results` are in the order the calls ended (as Claude Code 2.1.197
   * puts them in the next request: test/cli/printers/claudeConcurrentTools.json), which is tool_use order but for
   * concurrency-safe calls that ran at once.
   */
  onAllDone(results: ToolResultBlockParam[]): void;
}

type Status = 'queued' | 'running' | 'done';

interface Entry {
  block: ToolUseBlock;
  safe: boolean;
  status: Status;
  result?: ToolResultBlockParam;
}

/**
 * Runs the tool_use blocks of one model reply.
 *
 * - `submit` hands over a block as soon as it is complete in the stream: a concurrency-safe one
 *   starts at once (bounded by `maxConcurrency`); an unsafe one waits for the end of the stream.
 * - `finish` gives the final list of complete blocks; from then on unsafe tools run too, each
 *   alone, after everything before it has finished.
 * - Results are reported in the order the calls ended by `onAllDone`, once, after `finish`.
 * - `cancel` aborts every running tool; no callback fires after it.
 */
export class ToolExecutor {
  private readonly entries: Entry[] = [];
  /** The entries in the order their calls ended. */
  private readonly ended: Entry[] = [];
  /** Made when the first tool starts: most turns run one tool, or none. */
  private controller: AbortController | undefined;
  private finished = false;
  private cancelled = false;
  /** The block whose start the caller has announced already (`finish`): no `onStart` for it. */
  private announced: string | undefined;
  private readonly maxConcurrency: number;

  constructor(
    private readonly tools: ReadonlyMap<string, Tool>,
    private readonly options: ExecutorOptions,
    private readonly listener: ExecutorListener,
  ) {
    this.maxConcurrency = options.maxConcurrency ?? 10;
  }

  submit(block: ToolUseBlock): void {
    if (this.cancelled || this.finished || this.has(block.id)) return;
    this.entries.push({ block, safe: this.isSafe(block), status: 'queued' });
    this.schedule();
  }

  /**
   * `announced`: the caller has announced this block's start itself, because it starts at once here (it is the first
   * block not started, and none runs): `onStart` is not called for it.
   */
  finish(blocks: readonly ToolUseBlock[], announced?: string): void {
    if (this.cancelled || this.finished) return;
    this.announced = announced;
    for (const block of blocks) {
      if (!this.has(block.id)) this.entries.push({ block, safe: this.isSafe(block), status: 'queued' });
    }
    // The final message decides the order and which blocks exist at all.
    const order = new Map(blocks.map((b, i) => [b.id, i]));
    const dropped = this.entries.filter((e) => !order.has(e.block.id));
    for (const entry of dropped) this.entries.splice(this.entries.indexOf(entry), 1);
    this.entries.sort((a, b) => (order.get(a.block.id) ?? 0) - (order.get(b.block.id) ?? 0));
    this.finished = true;
    this.schedule();
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (this.entries.some((e) => e.status === 'running')) this.controller?.abort(new Error('interrupted by user'));
  }

  /** The stream has ended and every tool_use of it has its result. */
  private allDone(): boolean {
    return this.finished && this.entries.every((e) => e.status === 'done');
  }

  private has(id: string): boolean {
    return this.entries.some((e) => e.block.id === id);
  }

  private isSafe(block: ToolUseBlock): boolean {
    const tool = this.tools.get(block.name);
    try {
      return tool?.isConcurrencySafe?.(block.input) ?? false;
    } catch {
      return false;
    }
  }

  private contextOf(block: ToolUseBlock, signal: AbortSignal): CallContext {
    const env = this.options.envOf?.(block);
    const note = this.options.unavailableNote;
    const { denyRules: deny, subagents } = this.options;
    const more = { ...(env ? { env } : {}), ...(note ? { unavailableNote: note } : {}), ...(deny ? { denyRules: deny } : {}), ...(subagents ? { subagents } : {}) };
    return { cwd: this.options.cwd, signal, toolUseId: block.id, ...more };
  }

  private schedule(): void {
    if (this.cancelled) return;
    let running = this.entries.filter((e) => e.status === 'running').length;
    for (const entry of this.entries) {
      if (entry.status === 'done') continue;
      if (entry.status === 'running') {
        if (!entry.safe) return; // an unsafe tool runs alone
        continue;
      }
      if (entry.safe) {
        if (running >= this.maxConcurrency) return;
        this.start(entry);
        running += 1;
        continue;
      }
      // Unsafe: only after the stream ended and everything before it has finished.
      if (this.finished && running === 0) this.start(entry);
      return;
    }
    if (this.allDone()) {
      // A block the final message dropped (started while the reply streamed) gives no result.
      this.listener.onAllDone(this.ended.filter((e) => this.entries.includes(e)).map((e) => e.result as ToolResultBlockParam));
    }
  }

  private start(entry: Entry): void {
    entry.status = 'running';
    if (entry.block.id === this.announced) this.announced = undefined;
    else this.listener.onStart(entry.block);
    const signal = (this.controller ??= new AbortController()).signal;
    // Write-ahead: the tool is called once its start is on record (the machine announced it, the transcript
    // holds the tool_start record, the run's observers saw it so `envOf` can name the call's trace), even a tool
    // that acts at once when called (test/run/writeAheadGate.test.ts). A turn cancelled meanwhile never calls it.
    const recorded = this.options.writeAhead?.(entry.block) ?? Promise.resolve();
    void recorded
      .then(() => (this.cancelled ? undefined : runOne(this.tools, entry.block, this.contextOf(entry.block, signal), this.options.hooks)))
      .then((output) => {
        if (this.cancelled || output === undefined) return;
        entry.status = 'done';
        entry.result = toToolResult(entry.block.id, output);
        this.ended.push(entry);
        this.listener.onResult(entry.result, entry.block, this.allDone(), output.data);
        this.schedule();
      });
  }
}

/** What a tool is given besides its input. */
type CallContext = ToolContext & { unavailableNote?: (name: string) => string | Promise<string> };

/**
 * Runs one tool_use through the hooks; never rejects: every failure becomes an is_error output.
 * `beforeToolCall` may deny the call (it never runs) or change its input; `afterToolCall` sees
 * every output, a denied or failed call's too. A call of a tool the run does not have is answered at once, as Claude
 * Code answers it (`No such tool available: NAME`): no hook sees it, as none does in Claude Code.
 */
export async function runOne(
  tools: ReadonlyMap<string, Tool>,
  block: ToolUseBlock,
  context: CallContext,
  hooks: Pick<RunHooks, 'beforeToolCall' | 'afterToolCall'> = {},
): Promise<ToolOutput> {
  const tool = tools.get(block.name);
  if (!tool) return noSuchTool(block.name, await Promise.resolve(context.unavailableNote?.(block.name)).catch(() => undefined));
  const call = { block, tool, signal: context.signal };
  const output = await decideAndRun(tool, call, context, hooks);
  if (!hooks.afterToolCall) return output;
  try {
    return (await hooks.afterToolCall({ ...call, output })) ?? output;
  } catch {
    return output;
  }
}

async function decideAndRun(
  tool: Tool,
  call: ToolCallInfo,
  context: CallContext,
  hooks: Pick<RunHooks, 'beforeToolCall'>,
): Promise<ToolOutput> {
  const { block } = call;
  let input = block.input;
  if (hooks.beforeToolCall) {
    let decision;
    try {
      decision = await hooks.beforeToolCall(call);
    } catch (error) {
      decision = { action: 'deny' as const, reason: error instanceof Error ? error.message : String(error) };
    }
    if (decision?.action === 'deny') return { isError: true, content: `Not run: ${decision.reason}` };
    if (decision?.action === 'change') input = decision.input;
  }
  try {
    const { unavailableNote: _note, ...toolContext } = context;
    return await tool.run(input, toolContext);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { isError: true, content: `Tool "${block.name}" failed: ${message}` };
  }
}

/** Claude Code's answer to a call of a tool the run does not offer (no hook sees it, no permission is asked). */
function noSuchTool(name: string, note: string | undefined): ToolOutput {
  return { isError: true, content: `<tool_use_error>Error: No such tool available: ${name}${note ?? ''}</tool_use_error>` };
}

export function toToolResult(toolUseId: string, output: ToolOutput): ToolResultBlockParam {
  const content = output.blocks && output.blocks.length > 0 ? output.blocks : output.content;
  return output.isError ? { type: 'tool_result', tool_use_id: toolUseId, content, is_error: true } : { type: 'tool_result', tool_use_id: toolUseId, content };
}
