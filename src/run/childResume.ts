/**
 * Taking up the subagents a resumed session's last run cut off (transcript/cutAgents.ts), before the resumed run asks
 * its model: each child's history is restored from its records as a session's is (transcript/resume.ts: its finished
 * tools' results kept, its own cut-off call answered as interrupted, never run again), and the child runs on to its
 * end with its agent of this run (prompt, tools; the model it ran on), its own cut children taken up the same way.
 * Its answer replaces the "interrupted" result of its Agent call, so the parent's history stays valid and the new
 * prompt goes on from there. A child that cannot go on (no such agent in this run, damaged records) is said in an
 * `agent_resume` event with `why`, and its call keeps the interrupted result: nothing is lost, nothing runs twice.
 * An Agent call cut before its child started (nothing of the child ran) runs now, as the machine runs a call: its hooks
 * and the permission gate judge it again (their first verdict was never recorded), then its child runs from its prompt.
 */
import type { RunEvent } from '../core/events.js';
import type { SubagentCall, SubagentResult } from '../core/agents.js';
import type { ContentBlock, MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import { zeroUsage } from '../core/usage.js';
import { appendUserText, textOf } from '../history/messages.js';
import { outputOf } from '../tools/agent/agentTool.js';
import { runOne, toToolResult } from '../tools/executor.js';
import type { Tool, ToolOutput } from '../core/tool.js';
import type { RunHooks } from '../core/hooks.js';
import { standIn, type CutAgent } from '../transcript/cutAgents.js';
import type { AgentEndRecord, AgentStartRecord } from '../transcript/records.js';
import { recordedMessages, restoreConversation, type RestoredConversation } from '../transcript/resume.js';
import type { ChildResume, RunSubagents } from './subagents.js';

export interface Resuming {
  host: RunSubagents | undefined;
  emit: ((event: RunEvent) => void) | undefined;
  signal: AbortSignal | undefined;
  /** The run's tools (its Agent tool among them), working directory and hooks (the gate's verdict in them): a call cut before its child started runs with them. */
  tools: readonly Tool[];
  cwd: string;
  hooks: RunHooks | undefined;
}

/**
 * `history` (a resumed session's: it ends with the user message that answers the cut calls) with each cut child's
 * answer in place of its call's stand-in; the message is emitted again when any changed (its record replaces the old).
 */
export async function resumeCutAgents(cut: readonly CutAgent[], history: MessageParam[], resuming: Resuming): Promise<MessageParam[]> {
  const last = history[history.length - 1];
  if (last?.role !== 'user' || typeof last.content === 'string') return history;
  const uses = toolUsesBefore(history);
  // Only a call still answered by the stand-in: a later run of the session may have taken it up already.
  const open = new Set((last.content as ContentBlock[]).filter(standIn).map((b) => b.tool_use_id));
  const answers = new Map<string, ToolResultBlockParam>();
  await Promise.all(
    cut.map(async (agent) => {
      const block = open.has(agent.toolUseId) ? uses.get(agent.toolUseId) : undefined;
      const answer = block && (await answerOf(agent, block, resuming));
      if (answer) answers.set(agent.toolUseId, answer);
    }),
  );
  if (answers.size === 0) return history;
  const content = (last.content as ContentBlock[]).map((b) => (b.type === 'tool_result' ? (answers.get(b.tool_use_id) ?? b) : b));
  const message: MessageParam = { ...last, content };
  resuming.emit?.({ type: 'message', index: history.length - 1, message, origin: 'tools' });
  return [...history.slice(0, -1), message];
}

/** The tool_use blocks of the assistant message before the last one, by id. */
function toolUsesBefore(history: readonly MessageParam[]): Map<string, ToolUseBlock> {
  const reply = history[history.length - 2];
  const blocks = reply?.role === 'assistant' && typeof reply.content !== 'string' ? (reply.content as ContentBlock[]) : [];
  return new Map(blocks.flatMap((b) => (b.type === 'tool_use' ? [[b.id, b] as const] : [])));
}

/** The Agent call's result once its child has gone on to its end (or had ended, or ran from its start), or undefined when it cannot. */
async function answerOf(cut: CutAgent, block: ToolUseBlock, resuming: Resuming): Promise<ToolResultBlockParam | undefined> {
  const output = cut.start ? await outputAfter(cut, cut.start, resuming) : await runCall(block, resuming);
  if (!output) return undefined;
  const answer = toToolResult(block.id, output);
  resuming.emit?.({ type: 'tool_result', block, result: answer, ...(output.data !== undefined ? { data: output.data } : {}) });
  return answer;
}

/** The call's output once its child, which had started, has ended. */
async function outputAfter(cut: CutAgent, start: AgentStartRecord, resuming: Resuming): Promise<ToolOutput | undefined> {
  const result = cut.end ? endedResult(cut.end, start.model) : await goOn(cut, start, resuming);
  return result && outputOf(result, { prompt: start.prompt, agentType: start.agentType, durationMs: result.durationMs });
}

/** An Agent call cut before its child started, run now as the machine runs a call (tools/executor.ts runOne); undefined in a run without agents. */
async function runCall(block: ToolUseBlock, { host, tools, cwd, hooks, signal }: Resuming): Promise<ToolOutput | undefined> {
  if (!host) return undefined;
  const context = { cwd, signal: signal ?? new AbortController().signal, toolUseId: block.id, subagents: host };
  return runOne(new Map(tools.map((tool) => [tool.name, tool])), block, context, hooks);
}

/** A child that ended before its call's result was written: its end record says what it gave. */
function endedResult(end: AgentEndRecord, model: string): SubagentResult {
  const state = end.state === 'done' || end.state === 'aborted' ? end.state : 'failed';
  return { agentId: end.agentId, state, exitReason: end.exitReason as SubagentResult['exitReason'], text: end.text, model, usage: end.usage, toolUses: end.toolUses, durationMs: end.durationMs, turnCount: 0 };
}

/** Why the child of `cut` cannot go on in this run, if it cannot. */
function cannotGoOn(cut: CutAgent, start: AgentStartRecord, restored: RestoredConversation, host: RunSubagents | undefined): string | undefined {
  const { agentType } = start;
  if (!host || !Object.hasOwn(host.agents, agentType)) return `this run has no agent "${agentType}"`;
  if (recordedMessages(cut.records).gap !== undefined) return 'its records are damaged (a message is missing)';
  if (restored.problems.length > 0) return `its records are damaged (${restored.problems[0]})`;
  return undefined;
}

/** Restores the child's history and runs it on to its end; undefined (said in `agent_resume`) when it cannot. */
async function goOn(cut: CutAgent, start: AgentStartRecord, { host, emit, signal }: Resuming): Promise<SubagentResult | undefined> {
  const named = { toolUseId: cut.toolUseId, agentId: start.agentId, agentType: start.agentType, description: start.description, prompt: start.prompt, model: start.model };
  const restored = withPrompt(restoreConversation(cut.records), start.prompt);
  const why = cannotGoOn(cut, start, restored, host);
  if (why !== undefined || !host) {
    emit?.({ type: 'agent_resume', ...named, turnCount: restored.turnCount, messageCount: restored.recordedCount, repaired: [], why: why ?? 'no agents' });
    return undefined;
  }
  emit?.({ type: 'agent_resume', ...named, turnCount: restored.turnCount, messageCount: restored.recordedCount, repaired: restored.repaired });
  const { messages, recordedCount } = restored;
  messages.slice(recordedCount).forEach((message, i) => {
    const origin = i === 0 && recordedCount === 0 ? 'prompt' : 'interrupted';
    emit?.({ type: 'agent_event', toolUseId: cut.toolUseId, agentId: start.agentId, agentType: start.agentType, event: { type: 'message', index: recordedCount + i, message, origin } });
  });
  if (!restored.awaitsModel) return answered(cut, start, restored, emit);
  const call: SubagentCall = { toolUseId: cut.toolUseId, agentType: start.agentType, description: start.description, prompt: start.prompt };
  return host.resume(call, { ...before(cut), messages, turnCount: restored.turnCount, cutAgents: restored.cutAgents, model: start.model }, signal ?? new AbortController().signal);
}

/** A child cut before its prompt reached its history starts from its prompt. */
function withPrompt(restored: RestoredConversation, prompt: string): RestoredConversation {
  if (restored.messages.length > 0) return restored;
  return { ...restored, messages: appendUserText([], prompt), awaitsModel: true, repaired: [...restored.repaired, 'its prompt had not reached its history: added'] };
}

/** The child's tool calls and usage before the cut. */
function before(cut: CutAgent): Pick<ChildResume, 'toolUses' | 'usage'> {
  let usage = zeroUsage();
  let toolUses = 0;
  for (const record of cut.records) {
    if (record.type === 'tool_start') toolUses += 1;
    if (record.type === 'usage') usage = record.total;
  }
  return { toolUses, usage };
}

/** A child whose last reply, its answer, was recorded but not its end: that reply is its result. */
function answered(cut: CutAgent, start: AgentStartRecord, restored: RestoredConversation, emit: Resuming['emit']): SubagentResult {
  const last = restored.messages[restored.messages.length - 1] as MessageParam;
  const { toolUses, usage } = before(cut);
  const result: SubagentResult = { agentId: start.agentId, state: 'done', exitReason: 'completed', text: textOf(last.content), model: start.model, usage, toolUses, durationMs: 0, turnCount: restored.turnCount };
  const { text, exitReason, durationMs } = result;
  emit?.({ type: 'agent_end', toolUseId: cut.toolUseId, agentId: start.agentId, agentType: start.agentType, state: 'done', exitReason, text, usage, toolUses, durationMs });
  return result;
}
