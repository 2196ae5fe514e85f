/**
 * The setup of a run, one pipeline from the parsed options to runAgent's options (./runSetup.ts `RunSetup`): the
 * model and how to reach it, the prompt piped on stdin or in files, the permission gate and the MCP servers (started
 * now, beside the rest of the start-up), the tools, OpenTelemetry, the servers' tools. Each step gives the next its
 * input, or ends the command with one line and its exit code. Every entry point of a run (one-shot, the REPL, stream
 * input: ../commands/run.ts) starts from what it gives.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadModelSettings, requireModelSettings } from '../../anthropic/settings.js';
import { DEFAULT_MODEL } from '../../core/models.js';
import type { PermissionGate } from '../../permissions/gate.js';
import { RootBypassError } from '../../permissions/root.js';
import type { McpServers } from '../../tools/mcp/servers.js';
import type { CliOptions } from '../commandLine/args.js';
import { selfCommand } from '../commandLine/self.js';
import { DEMO_MODEL_ID, demoModel } from '../commands/demo.js';
import { palette } from '../printers/output.js';
import { outputRedactor, shown, useRedactor } from '../printers/terminal.js';
import { credentialRedactor } from '../../tools/bash/judge/secrets.js';
import { cliMcpConfigs, type McpScopes, settleMcp, startCliMcp, startConfigs, withMcpTools } from './mcp.js';
import { cliPermissionGate, refusesBypass, ROOT_BYPASS_REFUSAL, RuleError } from './permissions.js';
import { withPromptFiles } from './promptFiles.js';
import type { RunSetup, SetupRun } from './runSetup.js';
import type { SessionMcp } from './sessionMcp.js';
import { startTelemetry } from './telemetry.js';
import { builtInNames, missingTools } from './toolSet.js';

const { stderr, env } = process;
const colors = palette(stderr, env);

/** A run's setup, with what it started: the gate, the MCP servers (of the session, under stream-json), telemetry. */
export interface Prepared {
  setup: RunSetup;
  gate: PermissionGate;
  /** Under `--input-format stream-json`: the session's servers (started now, or at initialize). */
  mcp?: SessionMcp;
  /** Stops what the setup started (telemetry's exporter, the servers). */
  close(): Promise<void>;
}

/**
 * What every local command (a run, `sessions`, `mcp`, `view`) starts with: its working directory (`--cwd`) checked,
 * bypassPermissions refused as root outside a sandbox, and from here on nothing written holds the key, the token
 * (also from .env) or a credential of the environment. The directory, or the exit code.
 */
export function localStart(options: CliOptions): string | number {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    stderr.write(`agentloop: --cwd ${shown(cwd)} is not a directory\n`);
    return 2;
  }
  if (refusesBypass(options, env)) return refuseBypass();
  useRedactor(credentialRedactor(env, loadModelSettings(env, cwd)));
  return cwd;
}

/**
 * The setup of a run from its options: exit code 2 with one line when a model setting, a prompt file, a rule or an
 * MCP server's configuration is bad (1 when a prompt cannot be read).
 */
export async function setUp(given: CliOptions, cwd: string, version: string): Promise<Prepared | number> {
  // No shell parser on the way to the first request (its load was 25-60 ms of it, and a Mark-Compact for its WebAssembly
  // memory): the bash tool loads it while the model thinks, or when a command that is not plain words needs it
  // (tools/bash/ahead.ts).
  const model = modelOf(given, cwd);
  if (typeof model === 'number') return model;
  const options = await withPipedPrompt(given);
  if (typeof options === 'number') return options;
  const started = await gateAndServers(options, cwd, version);
  if (typeof started === 'number') return started;
  const { gate, servers, mcp } = started;
  const { BUILT_IN_TOOLS } = await import('../../run/defaultTools.js');
  const missing = missingTools(options.tools, BUILT_IN_TOOLS);
  if (missing.length > 0) warn(`agentloop: --tools: ${missing.join(', ')} left out: agentloop's built-in tools are ${builtInNames(BUILT_IN_TOOLS)} (Claude Code too leaves out a name it has no tool for)`);
  // Traces, when the OTEL_* variables ask for them (./telemetry.ts); the SDK loads only then.
  const telemetry = await startTelemetry(env, version, warn);
  const close = async () => void (await Promise.all([telemetry?.shutdown(), servers?.close(), mcp?.close()]));
  const run: SetupRun = { ...model, permissions: gate, ...(telemetry ? { tracing: telemetry.tracing } : {}) };
  try {
    const setup = await withMcpTools({ options, cwd, version, run }, servers, warn);
    return { setup, gate, ...(mcp ? { mcp } : {}), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The model and how to reach it: the scripted demo, or the API from env/.env/flags (exit code 2 when it is not set). */
function modelOf(options: CliOptions, cwd: string): SetupRun | number {
  if (options.demo) return { model: DEMO_MODEL_ID, modelCall: demoModel().call, redactor: outputRedactor() };
  try {
    const loaded = loadModelSettings(env, cwd, { model: options.model });
    // Claude Code's default when no model is set (with a key).
    if (!loaded.model && (loaded.apiKey || loaded.authToken)) loaded.model = DEFAULT_MODEL;
    const { model, ...client } = requireModelSettings(loaded, `${selfCommand()} --demo`);
    return { model, client, redactor: outputRedactor() };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 2;
  }
}

/**
 * The options with the prompt piped on stdin (./stdin.ts: the prompt, or context after it) and the prompt files' texts
 * (./promptFiles.ts); the exit code when a -p run has no prompt, or a file cannot be read.
 */
async function withPipedPrompt(given: CliOptions): Promise<CliOptions | number> {
  // --system-prompt-file, --append-system-prompt-file: read first, a bad file is the run's end (exit 1, as Claude Code).
  const options = withPromptFiles(given);
  if ('error' in options) {
    stderr.write(`agentloop: ${shown(options.error)}\nsee ${selfCommand()} --help\n`);
    return 1;
  }
  const piped = await (await import('./stdin.js')).runPrompt(options, env);
  if (piped.error) {
    stderr.write(`agentloop: ${piped.error}\n`);
    return 1;
  }
  if (piped.note) stderr.write(`${colors.dim(piped.note)}\n`);
  if (piped.text !== undefined) return { ...options, prompt: piped.text };
  // `-p --allowedTools Bash go`: the rule list took the prompt (as Claude Code's does); with nothing else to ask, it is the prompt.
  if (options.print && options.lastWordPrompt) return { ...options, ...options.lastWordPrompt };
  const resuming = options.resume !== undefined || options.continue === true;
  if (options.print && options.prompt === undefined && !options.demo && !resuming && options.inputFormat !== 'stream-json') {
    const self = selfCommand();
    stderr.write(`agentloop: -p needs a prompt: ${self} -p "PROMPT", or pipe it: echo "PROMPT" | ${self} -p\nsee ${self} --help\n`);
    return 2;
  }
  return options;
}

/**
 * The gate of --allowedTools / --disallowedTools / --permission-mode (./permissions.ts), and --mcp-config's servers,
 * started now beside the rest of the start-up (the run waits for them before its first request: ./mcp.ts); exit code 2
 * with one line when a rule or a server's configuration is bad.
 */
async function gateAndServers(options: CliOptions, cwd: string, version: string): Promise<{ gate: PermissionGate; servers?: McpServers; mcp?: SessionMcp } | number> {
  let gate: PermissionGate;
  try {
    // With no flag nor settings file, -p, the REPL and stream-json input are in mode default, as Claude Code's
    // (docs/cli.md, "Which entry point runs what").
    gate = cliPermissionGate(options, cwd, env, (await import('../../run/defaultTools.js')).defaultTools({ cwd }), warn);
  } catch (error) {
    if (error instanceof RootBypassError) return refuseBypass();
    if (!(error instanceof RuleError || (error instanceof Error && error.name === 'SettingsError'))) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\nsee ${selfCommand()} --help\n`);
    return 2;
  }
  try {
    const read = options.demo ? 'none' : options.print || options.inputFormat === 'stream-json' ? 'print' : 'interactive';
    if (options.inputFormat === 'stream-json') return { gate, mcp: await sessionMcp(options, cwd, version, read) };
    const servers = await startCliMcp(options, cwd, env, version, { read, warn });
    return { gate, ...(servers ? { servers } : {}) };
  } catch (error) {
    if (!(error instanceof Error && (error.name === 'McpConfigError' || error.name === 'SandboxUnavailableError'))) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 2;
  }
}

/**
 * A stream-json session's servers (./sessionMcp.ts): the configurations read and checked now; started now, or with
 * `--await-initialize` when the Agent SDK's initialize brings its own.
 */
async function sessionMcp(options: CliOptions, cwd: string, version: string, read: McpScopes): Promise<SessionMcp> {
  const configs = await cliMcpConfigs(options, cwd, env, { read, warn });
  const launch = async (all: typeof configs) => {
    const servers = await startConfigs(all, options, cwd, env, version);
    if (servers) await settleMcp(servers, warn);
    return servers;
  };
  const { SessionMcp } = await import('./sessionMcp.js');
  const session = new SessionMcp(configs, launch, options.awaitInitialize === true, env);
  if (!session.awaitsInitialize) await session.start();
  return session;
}

/** Claude Code's refusal of bypassPermissions as root outside a sandbox (a flag, a settings file's defaultMode): exit 1. */
export function refuseBypass(): number {
  stderr.write(`${ROOT_BYPASS_REFUSAL}\n${colors.dim('(as root, only where IS_SANDBOX=1 says this machine is a sandbox: docs/cli.md)')}\n`);
  return 1;
}

// Lines that may carry outside text (an exporter's error, an MCP server's): secrets cut, controls shown (../printers/terminal.ts).
const warn = (line: string) => stderr.write(`${colors.dim(shown(line))}\n`);
