/**
 * `agentloop worker`: the agent as a Restate deployment (durable/worker.ts), with the model, tools, permissions and MCP
 * servers a local run takes from the environment and flags. Prints its address on stdout; with `--register ADMIN_URL`,
 * registers it with Restate (./serving.ts).
 */
import { resolve } from 'node:path';
import type { DurableOptions } from '../commandLine/durableOptions.js';
import type { DurableIo } from './durableIo.js';
import { outputRedactor, shown, useRedactor } from '../printers/terminal.js';
import { register, untilInterrupted } from './serving.js';
import { credentialRedactor } from '../../tools/bash/judge/secrets.js';
import { selfCommand } from '../commandLine/self.js';
import { DEFAULT_MODEL } from '../../core/models.js';

/** The model call and the tools of a worker, from the environment and flags as a local run takes them; a string says what is missing. */
async function workerSettings(options: Extract<DurableOptions, { command: 'worker' }>, io: DurableIo) {
  const { ConfigError, loadModelSettings, requireModelSettings } = await import('../../anthropic/settings.js');
  const cwd = resolve(io.cwd, options.cwd ?? '.');
  let settings;
  try {
    const loaded = loadModelSettings(io.env, cwd, { model: options.model });
    // Claude Code's default when no model is set (with a key), as a local run takes it (./run.ts).
    if (!loaded.model && (loaded.apiKey || loaded.authToken)) loaded.model = DEFAULT_MODEL;
    settings = requireModelSettings(loaded, `${selfCommand()} --demo`);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message;
  }
  const permissions = await workerPermissions(options, io.env);
  if (typeof permissions === 'string') return permissions;
  const { model, ...client } = settings;
  const [{ createAnthropicModel }, { defaultTools }, { toolSettings }, { loadShellParser }] = await Promise.all([
    import('../../anthropic/call.js'),
    import('../../run/defaultTools.js'),
    import('../setup/ask.js'),
    import('../../tools/bash/judge/shell/load.js'),
  ]);
  // Whether a command is read-only is journalled when it first runs (durable/journal.ts); with the
  // parser loaded before the first run, every worker answers it the same way (a quoted line too).
  await loadShellParser();
  // Nothing the worker writes (its lines, the transcripts, Restate's journal) holds the key, the token or a credential of the environment.
  useRedactor(credentialRedactor(io.env, client));
  // The same tools as a run of the CLI, set up by the same function: each session's long outputs in its own folder of
  // the store (AGENTLOOP_HOME), the store's sessions hidden under the sandbox, the client's key never shown.
  const settingsOf = toolSettings(options, cwd, client, io.env);
  const tools = (sessionId: string) => defaultTools(settingsOf(sessionId));
  return { model, modelCall: createAnthropicModel(client), tools, cwd, redactor: outputRedactor(), ...(permissions ? { permissions } : {}) };
}

/**
 * The floor of every run the worker serves: its deny rules, and its mode as the mode of its runs and the most
 * permissive one (bypassPermissions as root only with IS_SANDBOX=1, as for a local run; without a mode, a run's is its
 * own, `default` when it names none). A string says what is wrong.
 */
async function workerPermissions(options: Extract<DurableOptions, { command: 'worker' }>, env: NodeJS.ProcessEnv) {
  const { disallowedTools: deny, permissionMode: mode } = options;
  const { bypassRefusal } = await import('./durableSubmit.js');
  const refused = bypassRefusal(mode, env);
  if (refused) return refused;
  if (!deny && !mode) return undefined;
  const { checkRules } = await import('../../permissions/gate.js');
  const { allBuiltInTools } = await import('../../run/defaultTools.js');
  try {
    checkRules(deny ?? [], allBuiltInTools());
  } catch (error) {
    return `--disallowedTools: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { ...(deny ? { deny } : {}), ...(mode ? { mode } : {}) };
}

/** `agentloop worker`: the agent served as a Restate deployment (its address on stdout), until Ctrl-C. */
export async function workerCommand(options: Extract<DurableOptions, { command: 'worker' }>, io: DurableIo): Promise<number> {
  const settings = await workerSettings(options, io);
  if (typeof settings === 'string') {
    io.stderr.write(`agentloop: ${settings}\n`);
    return 2;
  }
  // Traces, when the OTEL_* variables ask for them, as for a local run (../setup/telemetry.ts); each run's parent comes from its invocation.
  const telemetry = await (await import('../setup/telemetry.js')).startTelemetry(io.env, io.version ?? 'unknown', (line) => io.stderr.write(`${line}\n`));
  const mcp = await workerMcp(options, settings.cwd, io);
  if (typeof mcp === 'string') {
    io.stderr.write(`agentloop: ${shown(mcp)}\n`);
    return 2;
  }
  const { startWorker } = await import('../../durable/worker.js');
  const worker = await startWorker({
    ...settings,
    tools: (sessionId: string) => [...settings.tools(sessionId), ...(mcp?.tools() ?? [])],
    ...(telemetry ? { tracing: { tracer: telemetry.tracing.tracer } } : {}),
    port: options.port,
    host: options.host,
    ...(options.identityKeys ? { identityKeys: options.identityKeys } : {}),
    log: (line) => io.stderr.write(`${shown(line)}\n`),
  });
  const close = async () => {
    await worker.close();
    await mcp?.close();
    await telemetry?.shutdown();
  };
  io.stdout.write(`${worker.url}\n`);
  io.stderr.write(`agentloop worker: serving AgentSession at ${worker.url} (model ${settings.model}, tools in ${settings.cwd}); Ctrl-C stops it\n`);
  if (!(await register(options, options.advertise ?? worker.url, io))) {
    await close();
    return 1;
  }
  return untilInterrupted(close);
}

/**
 * `--mcp-config`'s servers, each connected or failed (a line for each that failed), for every run of the worker: their
 * calls are journalled as bash's are (durable/journal.ts), so a call that is not read-only never runs twice. A bad
 * configuration is its line.
 */
async function workerMcp(options: Extract<DurableOptions, { command: 'worker' }>, cwd: string, io: DurableIo) {
  const { settleMcp, startCliMcp } = await import('../setup/mcp.js');
  try {
    const servers = await startCliMcp(options, cwd, io.env, io.version ?? 'unknown');
    if (servers) await settleMcp(servers, (line) => io.stderr.write(`${line}\n`));
    return servers;
  } catch (error) {
    if (error instanceof Error && (error.name === 'McpConfigError' || error.name === 'SandboxUnavailableError')) return error.message;
    throw error;
  }
}
