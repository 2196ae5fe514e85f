/**
 * `agentloop result ID` and `agentloop messages ID`: a durable run's JSON result (as -p's json) and its conversation so
 * far, read from its session's records in Restate; while the run goes on, exit 3 (./durableNotDone.ts).
 */
import { readSession } from '../../durable/admin.js';
import { fromDurableResult, SERVICE_NAME, type DurableRunResult } from '../../durable/protocol.js';
import { defaultRunConfig } from '../../core/config.js';
import { costOf } from '../../core/pricing.js';
import type { SessionRecord } from '../../transcript/records.js';
import { recordedMessages } from '../../transcript/resume.js';
import { emptyModelUsage, exitCodeOf, toJsonResult, type RunFacts } from '../printers/output.js';
import { jsonLine } from '../printers/terminal.js';
import type { DurableIo } from './durableIo.js';
import { notDone } from './durableNotDone.js';

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

export function printResult(result: DurableRunResult, records: readonly SessionRecord[], io: DurableIo): number {
  const run = fromDurableResult(result);
  io.stdout.write(jsonLine(toJsonResult(run, factsOf(records))));
  return exitCodeOf(run);
}

export async function resultCommand(options: { restate: string; admin: string; id: string }, io: DurableIo): Promise<number> {
  const view = await readSession({ admin: options.admin }, SERVICE_NAME, options.id);
  if (view.state === 'done') return printResult(view.result, view.records, io);
  return notDone(view, options, io);
}

/** The conversation so far, as JSON; while the run goes on, with exit code 3. */
export async function messagesCommand(options: { restate: string; admin: string; id: string }, io: DurableIo): Promise<number> {
  const view = await readSession({ admin: options.admin }, SERVICE_NAME, options.id);
  if (view.state === 'unknown') return notDone(view, options, io);
  io.stdout.write(jsonLine(recordedMessages(view.records).messages));
  return view.state === 'done' ? 0 : notDone(view, options, io);
}
