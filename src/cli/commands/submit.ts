/**
 * `agentloop submit PROMPT`: a run handed to Restate (its request redacted, once per idempotency key), then its session
 * id, or with `--wait` its JSON result (./result.ts). The checks around Restate's answer are ./durableSubmit.ts's.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readSession } from '../../durable/admin.js';
import { adminUrlOf } from '../../durable/addresses.js';
import { RestateCallError } from '../../durable/http.js';
import { submitRun } from '../../durable/ingress.js';
import { SERVICE_NAME } from '../../durable/protocol.js';
import { agentsOfJson } from '../commandLine/agentsJson.js';
import type { DurableOptions } from '../commandLine/durableOptions.js';
import { selfCommand, shellWord } from '../commandLine/self.js';
import { outputRedactor, shown } from '../printers/terminal.js';
import type { DurableIo } from './durableIo.js';
import { stillRunning, STILL_RUNNING } from './durableNotDone.js';
import { printResult } from './result.js';

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

export async function submitCommand(options: Extract<DurableOptions, { command: 'submit' }>, io: DurableIo): Promise<number> {
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
