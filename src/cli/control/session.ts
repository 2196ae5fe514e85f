/**
 * The host's side of a stream-json session driven by a Claude Agent SDK program: the control requests it sends are
 * answered here at once, also while a turn runs (`interrupt` aborts it); what `initialize` set up (system prompt,
 * hooks, in-process MCP tools) and what later requests change (permission mode, model) is read by each turn.
 */
import { randomUUID } from 'node:crypto';
import type { MessageParam } from '../../core/messages.js';
import { resolveModel } from '../../core/models.js';
import type { RunHooks } from '../../core/hooks.js';
import type { Tool } from '../../core/tool.js';
import { PERMISSION_MODES, type PermissionMode } from '../../permissions/modes.js';
import type { PermissionGate } from '../../permissions/gate.js';
import type { GateRef } from '../../run/permissionHooks.js';
import { withRun, type RunSetup } from '../setup/runSetup.js';
import { ControlChannel, type ControlLine } from './channel.js';
import { type HookContext, askHost, controlHooks } from './hooks.js';
import { type SdkSetup, initializeAnswer, readInitialize } from './initialize.js';
import type { AgentDefinitions } from '../../core/agents.js';
import { sdkServers } from './mcpTools.js';
import { overrideOf, type ThinkingOverride } from './thinking.js';
import type { ThinkingFlags } from '../commandLine/sdkFlags.js';
import type { McpServers } from '../../tools/mcp/servers.js';
import { jsonLine } from '../printers/terminal.js';
import type { SessionMcp } from '../setup/sessionMcp.js';
import { mcpToolName } from '../../tools/mcp/tools.js';
import { statusLine } from '../printers/claudeLines.js';
import type { PermissionDenial } from '../printers/output.js';

export interface ControlSessionOptions {
  write: (line: string) => void;
  /** Told on stderr: a hook callback that failed, a control line that was not understood. */
  warn: (line: string) => void;
  sessionId: string;
  cwd: string;
  transcriptPath: string;
  model: string;
  /** The gate of the rules and the mode the session starts with: set_permission_mode swaps in a new one (./session.ts setMode). */
  gate: PermissionGate;
  /** `--permission-prompt-tool stdio`: ask the host about what the mode would not run. */
  askHost: boolean;
  /** Launched with `--dangerously-skip-permissions` or `--allow-dangerously-skip-permissions`: set_permission_mode may switch to bypassPermissions. */
  bypassAvailable: boolean;
  /** Aborts the turn under way, if one is. */
  interrupt: () => void;
  /** The session's servers of --mcp-config and the scopes; with --await-initialize started with initialize's own. */
  mcp?: SessionMcp;
  /** `--await-initialize`: no turn runs before the host's initialize request came (and was answered). */
  awaitInitialize?: boolean;
  /** The session's subagents (its agent files, `--agents`): the initialize answer lists them with the request's. */
  agents?: AgentDefinitions | undefined;
}

export class ControlSession {
  readonly channel: ControlChannel;
  setup: SdkSetup = { hooks: {}, servers: [] };
  tools: Tool[] = [];
  /** The host's in-process MCP servers, once initialize named them. */
  servers: McpServers | undefined;
  model: string;
  /** Settles once the initialize request (if any came) is answered: a turn waits for it. */
  ready: Promise<void> = Promise.resolve();
  private initialized = false;
  /** With --await-initialize: settles when an initialize request comes, or stdin ends without one. */
  private arrived: Promise<void> = Promise.resolve();
  private arrive?: () => void;
  /** --await-initialize, and stdin ended before an initialize request came: no turn may run. */
  missingInitialize = false;
  /** Whether any control request came: the session is driven by a host that speaks the protocol. */
  used = false;
  /** What set_max_thinking_tokens changed of the thinking flags (`thinkingFlags`), if it came. */
  thinking: ThinkingOverride | undefined;
  thinkingFlags: ThinkingFlags = {};
  /**
   * The session's gate, with the host as its asker under --permission-prompt-tool stdio, in the reference each turn
   * judges its calls by (run/permissionHooks.ts): set_permission_mode swaps in a new gate, so a call decided after it,
   * in the turn under way too, is judged in the new mode, as Claude Code's setPermissionMode() applies.
   */
  readonly gateRef: GateRef;
  /** The calls a PreToolUse hook denied, in order (the result's `permission_denials`, beside the gate's). */
  readonly hookDenials: PermissionDenial[] = [];

  constructor(private readonly options: ControlSessionOptions) {
    this.channel = new ControlChannel(options.write);
    this.model = options.model;
    if (options.awaitInitialize) this.arrived = new Promise((resolve) => (this.arrive = resolve));
    const gate = !options.askHost
      ? options.gate
      : options.gate.withAsker(async ({ block, tool, reason, signal, updates }) => {
          const answer = await askHost(this.channel, block, reason, signal, tool, updates);
          if (!answer.allow && answer.interrupt) options.interrupt();
          return answer;
        });
    this.gateRef = { current: gate };
  }

  /** The gate in force now. */
  get gate(): PermissionGate {
    return this.gateRef.current;
  }

  /** A control line read from stdin. */
  handle(line: ControlLine): void {
    switch (line.type) {
      case 'keep_alive':
      case 'control_cancel_request': // every request of the host's is answered at once: none is left to cancel
        return;
      case 'control_response':
        this.channel.settle(line.response);
        return;
      case 'control_request':
        this.used = true;
        this.request(line.request_id, line.request);
    }
  }

  private request(id: string, request: { subtype: string } & Record<string, unknown>): void {
    const { channel } = this;
    switch (request.subtype) {
      case 'initialize':
        this.initialize(id, request);
        return;
      case 'interrupt':
        this.options.interrupt();
        return channel.answer(id);
      case 'set_permission_mode':
        return this.setMode(id, request.mode);
      case 'set_model': {
        const model = typeof request.model === 'string' && request.model !== 'default' ? resolveModel(request.model) : this.options.model;
        this.model = model;
        // Claude Code replays its /model command's output as a user line.
        this.userLine(`<local-command-stdout>Set model to ${model}</local-command-stdout>`, { isReplay: true });
        return channel.answer(id);
      }
      case 'set_max_thinking_tokens': {
        const next = overrideOf(request, this.thinking ?? {}, this.thinkingFlags);
        if ('error' in next) return channel.refuse(id, next.error);
        this.thinking = next;
        return channel.answer(id);
      }
      case 'mcp_status':
        // After initialize's servers are listed.
        void this.ready.then(() => channel.answer(id, { mcpServers: this.mcpStates().map((s) => ({ ...s, tools: this.toolsOf(s.name) })) }));
        return;
      default:
        return channel.refuse(id, `agentloop does not support the control request ${JSON.stringify(request.subtype)}`);
    }
  }

  /** A `user` line as Claude Code writes one the model did not send: a replayed command's output, an interrupt. */
  userLine(content: string | { type: 'text'; text: string }[], extra: Record<string, unknown> = {}): void {
    const line = { type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: this.options.sessionId, uuid: randomUUID(), timestamp: new Date().toISOString(), ...extra };
    this.options.write(jsonLine(line));
  }

  /** Claude Code's line for a turn the host interrupted, before its result: while tools ran (the history ends with their results), or not. */
  interrupted(messages: MessageParam[]): void {
    const last = messages.at(-1);
    const duringTools = last?.role === 'user' && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result');
    this.userLine([{ type: 'text', text: duringTools ? '[Request interrupted by user for tool use]' : '[Request interrupted by user]' }]);
  }

  /** Every server of the session, as the init line lists them: those of the command line, the scopes and initialize first. */
  private mcpStates() {
    return [...(this.options.mcp?.states() ?? []), ...(this.servers?.states() ?? [])];
  }

  private toolsOf(server: string) {
    const prefix = mcpToolName(server, '');
    return [...(this.options.mcp?.tools() ?? []), ...this.tools].filter((t) => t.name.startsWith(prefix)).map((t) => ({ name: t.name.slice(prefix.length), description: t.description }));
  }

  /**
   * set_permission_mode: a new gate for every call decided from now on, in the turn under way too. bypassPermissions is refused, as Claude Code refuses
   * it, to a session not launched with a bypass flag, and by the gate's root rule as root outside a sandbox.
   */
  private setMode(id: string, mode: unknown): void {
    if (typeof mode !== 'string' || !(PERMISSION_MODES as readonly string[]).includes(mode)) {
      return this.channel.refuse(id, `unknown permission mode ${JSON.stringify(mode)}: one of ${PERMISSION_MODES.join(', ')}`);
    }
    if (mode === 'bypassPermissions' && !this.options.bypassAvailable) {
      return this.channel.refuse(id, 'Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions');
    }
    try {
      this.gateRef.current = this.gate.withMode(mode as PermissionMode);
    } catch (error) {
      return this.channel.refuse(id, error instanceof Error ? error.message : String(error));
    }
    this.channel.answer(id, { mode });
    this.options.write(jsonLine(statusLine(this.options.sessionId, { status: null, permissionMode: mode })));
  }

  private initialize(id: string, request: Record<string, unknown>): void {
    this.arrive?.(); // a turn waiting for it goes on once it is answered (refused: without its setup)
    this.arrive = undefined;
    if (this.initialized) return this.channel.refuse(id, 'already initialized');
    const setup = readInitialize(request);
    if ('error' in setup) return this.channel.refuse(id, setup.error);
    const started = this.startMcp(setup);
    if ('error' in started) return this.channel.refuse(id, started.error);
    this.initialized = true;
    this.setup = setup;
    const servers = (this.servers = sdkServers(this.channel, setup.servers, this.options.cwd));
    const applied = started.applied === undefined ? {} : { mcp_servers_applied: started.applied };
    // A server that fails is left out (its state says why), as a --mcp-config one is: initialize is answered anyway.
    this.ready = Promise.all([started.cli, servers.ready()]).then(
      () => {
        this.tools = servers.tools();
        this.channel.answer(id, { ...initializeAnswer(this.model, { ...this.options.agents, ...setup.agents }), ...applied });
      },
      async (error: unknown) => {
        // The servers could not be started at all (--sandbox without bubblewrap): a later initialize may try again.
        this.initialized = false;
        await servers.close();
        this.channel.refuse(id, error instanceof Error ? error.message : String(error));
      },
    );
  }

  /**
   * The session's servers started for an initialize, with its `mcpServers` under --await-initialize (`applied`: the
   * initialize's `mcp_servers_applied`, as Claude Code answers it); the error of a bad configuration.
   */
  private startMcp(setup: SdkSetup): { cli: Promise<unknown>; applied?: boolean } | { error: string } {
    const { mcp } = this.options;
    const applied = setup.mcpServers === undefined ? undefined : mcp?.takesInitialize() === true;
    if (applied === false) {
      const names = Object.keys(setup.mcpServers ?? {}).join(', ');
      this.options.warn(`agentloop: the MCP servers of initialize (${names}) are not started: agentloop reads them only with --await-initialize, as Claude Code does`);
    }
    try {
      return { cli: (applied ? mcp?.start(setup.mcpServers) : mcp?.start()) ?? Promise.resolve(), ...(applied === undefined ? {} : { applied }) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Waits until a turn may start: initialize answered; with none (yet), the session's MCP servers started without it. */
  async beforeTurn(): Promise<void> {
    await this.arrived;
    if (this.missingInitialize) return;
    const { mcp } = this.options;
    if (!this.initialized && mcp && !mcp.starting) this.ready = this.ready.then(() => mcp.start()).then(() => undefined);
    await this.ready;
  }

  /** One line on stderr. */
  warn(line: string): void {
    this.options.warn(line);
  }

  /** stdin ended: no answer can come any more, and no initialize request either. */
  inputEnded(): void {
    this.channel.close();
    if (this.arrive) {
      this.missingInitialize = true;
      this.arrive();
    }
  }

  /** The hook context of the session's hooks (./hooks.ts). */
  hookContext(): HookContext {
    return {
      channel: this.channel,
      setup: this.setup,
      sessionId: this.options.sessionId,
      cwd: this.options.cwd,
      transcriptPath: this.options.transcriptPath,
      permissionMode: () => this.gate.mode,
      onDenied: (block, toolName) => void this.hookDenials.push({ tool_name: toolName, tool_use_id: block.id, tool_input: block.input }),
      onFailure: (event, error) => this.options.warn(`agentloop: a ${event} hook failed (${error instanceof Error ? error.message : String(error)}): the run goes on`),
    };
  }

  /** The run hooks of a turn: the host's hooks (the permission gate judges after them: run/permissionHooks.ts). */
  runHooks(): RunHooks | undefined {
    const hasHooks = Object.values(this.setup.hooks).some((m) => m.length > 0);
    return hasHooks ? controlHooks(this.hookContext()) : undefined;
  }

  /**
   * The setup of the next turn: the model set_model chose, the host's hooks and the gate, the in-process servers'
   * tools after those of --mcp-config, the scopes and initialize's mcpServers (the init line lists them all).
   */
  setupOf<T extends RunSetup>(setup: T): T {
    const hooks = this.runHooks();
    const run = withRun(setup, {
      model: this.model,
      ...(hooks ? { hooks } : {}),
      permissions: this.gateRef,
      addTools: [...(setup.run.addTools ?? []), ...(this.options.mcp?.tools() ?? []), ...this.tools],
    });
    return { ...run, mcpStates: [...(setup.mcpStates ?? []), ...this.mcpStates()] };
  }

  hasHooks(event: keyof SdkSetup['hooks']): boolean {
    return (this.setup.hooks[event]?.length ?? 0) > 0;
  }
}
