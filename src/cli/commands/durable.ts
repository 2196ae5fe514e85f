/**
 * Durable runs on Restate: `agentloop worker` serves the agent as a Restate deployment; `submit`,
 * `result`, `messages` and `view --restate` talk to Restate's ingress. Loaded by main.ts only for
 * these commands; the worker's SDK and loop load only for `worker`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readSession } from '../../durable/admin.js';
import { RestateCallError } from '../../durable/http.js';
import { submitRun } from '../../durable/ingress.js';
import { agentsOfJson } from '../commandLine/agentsJson.js';
import { fromDurableResult, SERVICE_NAME, type DurableRunResult } from '../../durable/protocol.js';
import type { DurableOptions } from '../commandLine/durableOptions.js';
import type { DurableIo } from './durableIo.js';
import { notDone, stillRunning, STILL_RUNNING } from './durableNotDone.js';
import { costOf } from '../../core/pricing.js';
import type { SessionRecord } from '../../transcript/records.js';
import { recordedMessages } from '../../transcript/resume.js';
import { emptyModelUsage, exitCodeOf, toJsonResult, type RunFacts } from '../printers/output.js';
import { defaultRunConfig } from '../../core/config.js';
import { jsonLine, outputRedactor, shown, useRedactor } from '../printers/terminal.js';
import { loadModelSettings } from '../../anthropic/settings.js';
import { credentialRedactor } from '../../tools/bash/judge/secrets.js';
import { selfCommand, shellWord } from '../commandLine/self.js';
import { adminUrlOf } from '../../durable/addresses.js';

export type { DurableIo } from './durableIo.js';


export async function runDurable(options: DurableOptions, io: DurableIo): Promise<number> {
  // What these commands print holds no key of this configuration, nor a credential of the environment (../printers/terminal.ts).
  useRedactor(credentialRedactor(io.env, loadModelSettings(io.env, io.cwd)));
  try {
    switch (options.command) {
      case 'worker':
      case 'balancer':
        return await (await import('./durableServers.js')).serve(options, io);
      case 'submit':
        return await submitCommand(options, io);
      case 'result':
        return await resultCommand(options, io);
      case 'messages':
        return await messagesCommand(options, io);
      case 'view':
        return await (await import('./durableView.js')).viewCommand(options, io);
      case 'approvals':
      case 'approve':
      case 'deny':
        return await (await import('./durableApprovals.js')).approvalCommand(options, io);
    }
  } catch (error) {
    // A rule that does not parse (read once the command runs, not by the parser every command line goes through).
    if (error instanceof Error && error.name === 'UsageError') {
      io.stderr.write(`agentloop: ${shown(error.message)}\nsee ${selfCommand()} ${options.command} --help\n`);
      return 2;
    }
    // `view --port N` on a port taken (loopback/listen.ts): one line, as the local viewer's.
    if (error instanceof Error && error.name === 'PortError') {
      io.stderr.write(`agentloop: ${shown(error.message)}\n`);
      return 2;
    }
    if (!(error instanceof RestateCallError)) throw error;
    io.stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 1;
  }
}

/**
 * What the json result reports beyond the final context, from the run's records (the journal's
 * times): the time from each request to its reply, the usage and cost per model, and the calls the permissions
 * denied (`permission_denials`, as -p's), of the session's latest run.
 */
export function factsOf(records: readonly SessionRecord[]): RunFacts {
  const lastPrompt = records.map((r) => r.type).lastIndexOf('prompt');
  let requestAt: number | undefined;
  let apiMs = 0;
  const modelUsage: RunFacts['modelUsage'] = {};
  const permissionDenials: NonNullable<RunFacts['permissionDenials']> = [];
  for (const record of records.slice(lastPrompt + 1)) {
    if (record.type === 'request') requestAt = Date.parse(record.at);
    if (record.type === 'permission_denied') permissionDenials.push({ tool_name: record.toolName, tool_use_id: record.toolUseId, tool_input: record.input });
    if (record.type !== 'usage') continue;
    if (requestAt !== undefined) apiMs += Date.parse(record.at) - requestAt;
    requestAt = undefined;
    const model = record.model ?? 'unknown';
    const sum = (modelUsage[model] ??= emptyModelUsage(defaultRunConfig.maxTokens));
    sum.inputTokens += record.usage.input_tokens;
    sum.outputTokens += record.usage.output_tokens;
    sum.cacheReadInputTokens += record.usage.cache_read_input_tokens;
    sum.cacheCreationInputTokens += record.usage.cache_creation_input_tokens;
    sum.costUSD += costOf(record.usage, model);
  }
  return { durationApiMs: apiMs, modelUsage, permissionDenials };
}

function printResult(result: DurableRunResult, records: readonly SessionRecord[], io: DurableIo): number {
  const run = fromDurableResult(result);
  io.stdout.write(jsonLine(toJsonResult(run, factsOf(records))));
  return exitCodeOf(run);
}

/** The session id of a submit that names none: from its idempotency key when it has one, so that a retried submit finds its run. */
export function sessionIdOfKey(key: string | undefined): string {
  if (key === undefined) return randomUUID();
  const hex = createHash('sha256').update(`agentloop submit ${key}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The submitter's trace (TRACEPARENT, TRACESTATE), forwarded with the run: the worker's spans of it join that trace. */
function traceHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
  const headers: Record<string, string> = {};
  if (env.TRACEPARENT) headers.traceparent = env.TRACEPARENT.trim();
  if (env.TRACEPARENT && env.TRACESTATE) headers.tracestate = env.TRACESTATE.trim();
  return headers;
}

async function submitCommand(options: Extract<DurableOptions, { command: 'submit' }>, io: DurableIo): Promise<number> {
  const sessionId = options.sessionId ?? sessionIdOfKey(options.idempotencyKey);
  const { prompt, model, maxTurns, maxTokens, maxRetries, appendSystemPrompt, permissionMode, allowedTools, disallowedTools } = options;
  const approvalTimeoutMs = options.approvalTimeout === undefined ? undefined : Math.round(options.approvalTimeout * 1000);
  const { bypassRefusal, checkRules } = await import('./durableSubmit.js');
  // bypassPermissions as root outside a sandbox is refused as -p refuses it; a rule the worker could not read too (the worker would end the run with it).
  const refused = bypassRefusal(permissionMode, io.env);
  if (refused) {
    io.stderr.write(`agentloop: ${refused}\n`);
    return 2;
  }
  checkRules(allowedTools, disallowedTools);
  const rules = { permissionMode, allowedTools, disallowedTools, approvalTimeoutMs };
  // Restate journals the request as it arrives: a key or credential pasted into the prompt is cut before it leaves.
  const agents = options.agents === undefined ? undefined : agentsOfJson(options.agents);
  const request = outputRedactor().value({ prompt, model, maxTurns, maxTokens, maxRetries, appendSystemPrompt, ...rules, ...(agents ? { agents } : {}) });
  let submitted: { invocationId: string; again: boolean };
  try {
    // Restate starts one run per key, even if the request reaches it twice.
    submitted = await submitRun(options.restate, sessionId, request, options.idempotencyKey ?? randomUUID(), traceHeaders(io.env));
  } catch (error) {
    if (error instanceof RestateCallError && error.maybeDelivered) {
      const again = options.idempotencyKey ? 'submit again with the same --idempotency-key' : 'give a submit an --idempotency-key';
      throw new RestateCallError(`${error.message}; the run may have started (session ${sessionId}): ${again} to be sure it runs once`);
    }
    throw error;
  }
  const { invocationId } = submitted;
  const { awaitRun, reusedKeyProblem } = await import('./durableSubmit.js');
  // A key Restate knows answers with its run, whatever the request: one that is not this one is refused.
  const reused = submitted.again && options.idempotencyKey ? await reusedKeyProblem(options.admin, invocationId, options.idempotencyKey, request) : undefined;
  if (reused) {
    io.stderr.write(`agentloop: ${shown(reused)}\n`);
    return 2;
  }
  // The reading command as it must be typed: --admin too when it is not the one --restate implies.
  const admin = options.admin === adminUrlOf(options.restate) ? '' : ` --admin ${shellWord(options.admin)}`;
  const see = `${selfCommand()} result ${sessionId} --restate ${shellWord(options.restate)}${admin}`;
  if (!options.wait) {
    io.stdout.write(`${sessionId}\n`);
    io.stderr.write(`submitted (invocation ${invocationId}); see: ${see}\n`);
    return 0;
  }
  const waited = await awaitRun(options, invocationId, sessionId);
  if ('stuck' in waited) {
    // As `result` says it (exit 3), and how to read the result once a worker has run it.
    io.stderr.write(`${shown(`${stillRunning(sessionId, waited.stuck)}; submit stopped waiting: ${see}`)}\n`);
    return STILL_RUNNING;
  }
  const view = await readSession({ admin: options.admin }, SERVICE_NAME, sessionId);
  return printResult(waited.result, 'records' in view ? view.records : [], io);
}


async function resultCommand(options: { restate: string; admin: string; id: string }, io: DurableIo): Promise<number> {
  const view = await readSession({ admin: options.admin }, SERVICE_NAME, options.id);
  if (view.state === 'done') return printResult(view.result, view.records, io);
  return notDone(view, options, io);
}

/** The conversation so far, as JSON; while the run goes on, with exit code 3. */
async function messagesCommand(options: { restate: string; admin: string; id: string }, io: DurableIo): Promise<number> {
  const view = await readSession({ admin: options.admin }, SERVICE_NAME, options.id);
  if (view.state === 'unknown') return notDone(view, options, io);
  io.stdout.write(jsonLine(recordedMessages(view.records).messages));
  return view.state === 'done' ? 0 : notDone(view, options, io);
}
