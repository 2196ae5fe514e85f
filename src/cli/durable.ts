/**
 * Durable runs on Restate: `agentloop worker` serves the agent as a Restate deployment; `submit`,
 * `result`, `messages` and `view --restate` talk to Restate's ingress. Loaded by main.ts only for
 * these commands; the worker's SDK and loop load only for `worker`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DurableRunResult } from '../durable/protocol.js';
import { fromDurableResult } from '../durable/protocol.js';
import { attachRun, IngressError, runMessages, runStatus, runTranscript, submitRun } from '../durable/ingress.js';
import type { DurableOptions } from './durableArgs.js';
import { costOf } from '../core/pricing.js';
import type { SessionRecord } from '../transcript/records.js';
import { exitCodeOf, toJsonResult, type RunFacts } from './output.js';

export interface DurableIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Exit code of `result` for a run that is still going. */
export const STILL_RUNNING = 3;

export async function runDurable(options: DurableOptions, io: DurableIo): Promise<number> {
  try {
    switch (options.command) {
      case 'worker':
        return await workerCommand(options, io);
      case 'submit':
        return await submitCommand(options, io);
      case 'result':
        return await resultCommand(options, io);
      case 'messages':
        io.stdout.write(`${JSON.stringify(await runMessages(options.restate, options.id))}\n`);
        return 0;
      case 'view':
        return await viewCommand(options, io);
    }
  } catch (error) {
    if (!(error instanceof IngressError)) throw error;
    io.stderr.write(`agentloop: ${error.message}\n`);
    return 1;
  }
}

/**
 * What the json result reports beyond the final context, from the run's records (the journal's
 * times): the time from each request to its reply, and the usage and cost per model, of the
 * session's latest run.
 */
export function factsOf(records: readonly SessionRecord[]): RunFacts {
  const lastPrompt = records.map((r) => r.type).lastIndexOf('prompt');
  let requestAt: number | undefined;
  let apiMs = 0;
  const modelUsage: RunFacts['modelUsage'] = {};
  for (const record of records.slice(lastPrompt + 1)) {
    if (record.type === 'request') requestAt = Date.parse(record.at);
    if (record.type !== 'usage') continue;
    if (requestAt !== undefined) apiMs += Date.parse(record.at) - requestAt;
    requestAt = undefined;
    const model = record.model ?? 'unknown';
    const sum = (modelUsage[model] ??= { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: 0 });
    sum.inputTokens += record.usage.input_tokens;
    sum.outputTokens += record.usage.output_tokens;
    sum.cacheReadInputTokens += record.usage.cache_read_input_tokens;
    sum.cacheCreationInputTokens += record.usage.cache_creation_input_tokens;
    sum.costUSD += costOf(record.usage, model);
  }
  return { durationApiMs: apiMs, modelUsage };
}

async function printResult(restate: string, result: DurableRunResult, io: DurableIo): Promise<number> {
  const run = fromDurableResult(result);
  const facts = factsOf(await runTranscript(restate, result.sessionId));
  io.stdout.write(`${JSON.stringify(toJsonResult(run, facts))}\n`);
  return exitCodeOf(run);
}

async function submitCommand(options: Extract<DurableOptions, { command: 'submit' }>, io: DurableIo): Promise<number> {
  const sessionId = options.sessionId ?? randomUUID();
  const { prompt, model, maxTurns, maxTokens, maxRetries, appendSystemPrompt } = options;
  const request = { prompt, model, maxTurns, maxTokens, maxRetries, appendSystemPrompt };
  // One key per submit: Restate starts one run for it even if the request is sent again.
  const { invocationId } = await submitRun(options.restate, sessionId, request, randomUUID());
  if (!options.wait) {
    io.stdout.write(`${sessionId}\n`);
    io.stderr.write(`submitted (invocation ${invocationId}); see: agentloop result ${sessionId} --restate ${options.restate}\n`);
    return 0;
  }
  return printResult(options.restate, await attachRun(options.restate, invocationId), io);
}

async function resultCommand(options: { restate: string; id: string }, io: DurableIo): Promise<number> {
  const status = await runStatus(options.restate, options.id);
  if (status.status === 'done') return printResult(options.restate, status.result, io);
  if (status.status === 'running') {
    io.stderr.write(`session ${options.id}: still running\n`);
    return STILL_RUNNING;
  }
  io.stderr.write(`agentloop: no durable run of session ${options.id} at ${options.restate}\n`);
  return 2;
}

async function workerCommand(options: Extract<DurableOptions, { command: 'worker' }>, io: DurableIo): Promise<number> {
  const { ConfigError, loadModelSettings, requireModelSettings } = await import('../anthropic/settings.js');
  const cwd = resolve(io.cwd, options.cwd ?? '.');
  let settings;
  try {
    settings = requireModelSettings(loadModelSettings(io.env, cwd, { model: options.model }));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`agentloop: ${error.message}\n`);
    return 2;
  }
  const { model, ...client } = settings;
  const [{ createAnthropicModel }, { createBashTool }, { loadShellParser }, { startWorker, registerDeployment, RegistrationError }] = await Promise.all([
    import('../anthropic/call.js'),
    import('../tools/bash/bashTool.js'),
    import('../tools/bash/judge/shell/load.js'),
    import('../durable/worker.js'),
  ]);
  // Whether a command is read-only is journalled when it first runs (durable/journal.ts); with the
  // parser loaded before the first run, every worker answers it the same way (a quoted line too).
  await loadShellParser();
  const secrets = [
    ...(client.apiKey ? [{ name: 'ANTHROPIC_API_KEY', value: client.apiKey }] : []),
    ...(client.authToken ? [{ name: 'ANTHROPIC_AUTH_TOKEN', value: client.authToken }] : []),
  ];
  const tools = [createBashTool({ cwd, secrets, ...(options.sandbox ? { sandbox: true } : {}), ...(options.allowEnv ? { allowEnv: options.allowEnv } : {}) })];
  const worker = await startWorker({
    port: options.port,
    host: options.host,
    model,
    modelCall: createAnthropicModel(client),
    tools,
    cwd,
    ...(options.identityKeys ? { identityKeys: options.identityKeys } : {}),
    log: (line) => io.stderr.write(`${line}\n`),
  });
  io.stdout.write(`${worker.url}\n`);
  io.stderr.write(`agentloop worker: serving AgentSession at ${worker.url} (model ${model}, tools in ${cwd}); Ctrl-C stops it\n`);
  if (options.register) {
    const uri = options.advertise ?? worker.url;
    try {
      const deployment = await registerDeployment(options.register, uri);
      io.stderr.write(`registered ${uri} with ${options.register} (deployment ${deployment.id})\n`);
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
      io.stderr.write(`agentloop: ${error.message}\n`);
      await worker.close();
      return 1;
    }
  }
  const { waitForInterrupt } = await import('./view.js');
  await waitForInterrupt();
  await worker.close();
  return 0;
}

/** `view --restate URL ID`: the durable run's records in a temporary home, for the local viewer, refreshed while it runs. */
async function viewCommand(options: Extract<DurableOptions, { command: 'view' }>, io: DurableIo): Promise<number> {
  const records = await runTranscript(options.restate, options.id);
  if (records.length === 0) {
    io.stderr.write(`agentloop: no durable run of session ${options.id} at ${options.restate}\n`);
    return 2;
  }
  const home = mkdtempSync(join(tmpdir(), 'agentloop-durable-view-'));
  const sessions = join(home, 'sessions');
  mkdirSync(sessions);
  const file = join(sessions, `${options.id}.jsonl`);
  const write = (list: readonly unknown[]) => writeFileSync(file, `${list.map((r) => JSON.stringify(r)).join('\n')}\n`);
  write(records);
  let count = records.length;
  const timer = setInterval(() => {
    runTranscript(options.restate, options.id).then(
      (latest) => {
        if (latest.length !== count) write(latest);
        count = latest.length;
      },
      () => {}, // Restate is away for a moment: the page keeps what it has
    );
  }, 1000);
  try {
    const [{ startViewer }, { waitForInterrupt }] = await Promise.all([import('../view/server.js'), import('./view.js')]);
    const viewer = await startViewer({ home, sessionId: options.id, live: true, ...(options.port !== undefined ? { port: options.port } : {}) });
    io.stdout.write(`${viewer.url}\n`);
    io.stderr.write(`Serving durable session ${options.id} from ${options.restate} on 127.0.0.1; press Ctrl-C to stop.\n`);
    await waitForInterrupt();
    await viewer.close();
    return 0;
  } finally {
    clearInterval(timer);
    rmSync(home, { recursive: true, force: true });
  }
}
