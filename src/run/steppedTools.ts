/**
 * The tool runner of a stepped run (`--step`): the same actor protocol as `toolRunnerActor`
 * (SUBMIT, FINISH, CANCEL in; TOOL_STARTED, TOOL_RESULT, TOOLS_DONE out), but each tool_use waits
 * at the gate and then runs alone, in the reply's order, through an executor of its own (the same
 * hooks, the same results). Nothing starts while the reply streams, read-only tools included: the
 * learner sees each tool before it runs. Each result goes out as a TOOL_RESULT as it comes; TOOLS_DONE
 * (which makes the machine append them) waits at the gate once more.
 */
import { fromCallback } from 'xstate';
import type { ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import { noRedaction, type Redactor } from '../core/redact.js';
import type { Tool } from '../core/tool.js';
import type { AgentEvent, ToolRunnerCommand } from '../machine/events.js';
import { ToolExecutor, type ExecutorOptions } from '../tools/executor.js';
import type { StepGate } from './gate.js';

/** Runs one block through an executor of its own; resolves with its result, or undefined when cancelled. */
function runOneBlock(
  block: ToolUseBlock,
  tools: ReadonlyMap<string, Tool>,
  settings: ExecutorOptions,
  onStart: (block: ToolUseBlock) => void,
  signal: AbortSignal,
  redactor: Redactor,
): Promise<{ result: ToolResultBlockParam; data?: unknown } | undefined> {
  return new Promise((resolve) => {
    const executor = new ToolExecutor(tools, settings, {
      onStart,
      onResult: (result, _block, _all, data) => resolve({ result: redactor.value(result), ...(data === undefined ? {} : { data: redactor.value(data) }) }),
      onAllDone: () => {},
    });
    signal.addEventListener('abort', () => {
      executor.cancel();
      resolve(undefined);
    }, { once: true });
    executor.finish([block]);
  });
}

/** `redactor` cuts the run's secrets out of every result, as toolRunnerActor's does. */
export function steppedToolRunner(tools: readonly Tool[], settings: ExecutorOptions, gate: StepGate, redactor: Redactor = noRedaction) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return fromCallback<ToolRunnerCommand>(({ sendBack, receive }) => {
    let turn: AbortController | undefined;
    const send = (event: AgentEvent) => sendBack(event);
    const runTurn = async (blocks: readonly ToolUseBlock[], signal: AbortSignal) => {
      const results: ToolResultBlockParam[] = [];
      for (const block of blocks) {
        await gate.wait({ type: 'tool_start', block }, signal);
        const done = await runOneBlock(block, byName, settings, (b) => send({ type: 'TOOL_STARTED', block: b }), signal, redactor);
        if (done === undefined || signal.aborted) return;
        results.push(done.result);
        send({ type: 'TOOL_RESULT', block, ...done });
      }
      // Every result is in (and on record): the machine appends them once the learner says so (the chapter's ⑥).
      if (blocks.length > 0) await gate.wait({ type: 'append', results }, signal);
      send({ type: 'TOOLS_DONE' });
    };
    receive((command) => {
      if (command.type === 'SUBMIT') return; // no start mid-stream: each tool waits for the learner
      if (command.type === 'CANCEL') {
        turn?.abort(new Error('interrupted by user'));
        turn = undefined;
        return;
      }
      const controller = new AbortController();
      turn = controller;
      // A turn left while parked (abort, crash) just ends: its gate rejects with the signal.
      runTurn(command.blocks, controller.signal).catch(() => undefined);
    });
    return () => turn?.abort(new Error('interrupted by user'));
  });
}
