import { fromCallback, fromPromise } from 'xstate';
import { agentMachine } from '../machine/agentMachine.js';
import type { AgentEvent, ToolRunnerCommand } from '../machine/events.js';
import type { ModelCall, ModelCallInput, ModelReply } from '../core/model.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import { ToolExecutor, type ExecutorListener } from '../tools/executor.js';
import type { Tool } from '../core/tool.js';

export interface AgentActorsOptions {
  /** The model: `createAnthropicModel(...)` or `scriptedModel(...).call`. */
  model: ModelCall;
  tools: Tool[];
  /** Working directory handed to every tool. */
  cwd: string;
  /** Concurrency-safe tools run at most this many at once (default 10). */
  maxConcurrency?: number;
  /** Receives text as the model streams it. */
  onText?: (delta: string) => void;
}

/** The model call as an XState actor: aborted when `callingModel` is left. */
export function modelActor(model: ModelCall, onText?: (delta: string) => void) {
  return fromPromise<ModelReply, ModelCallInput>(({ input, signal }) =>
    model(onText ? { ...input, onText } : input, signal),
  );
}

/**
 * The tool runner as an XState actor: one for the whole run, with an executor per turn. `CANCEL`
 * (sent when a turn is left) stops that turn's tools; stopping the actor stops them too.
 */
export function toolRunnerActor(tools: readonly Tool[], cwd: string, maxConcurrency?: number) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return fromCallback<ToolRunnerCommand>(({ sendBack, receive }) => {
    const send = (event: AgentEvent) => sendBack(event);
    // The result that completes the set goes out with TOOLS_DONE, in the same step.
    let last: { block: ToolUseBlock; result: ToolResultBlockParam } | undefined;
    const listener: ExecutorListener = {
      onStart: (block) => send({ type: 'TOOL_STARTED', block }),
      onResult: (result, block, completesAll) => {
        if (completesAll) last = { block, result };
        else send({ type: 'TOOL_RESULT', block, result });
      },
      onAllDone: () => {
        const event: AgentEvent = last ? { type: 'TOOLS_DONE', last } : { type: 'TOOLS_DONE' };
        last = undefined;
        send(event);
      },
    };
    let executor: ToolExecutor | undefined;
    const current = () => (executor ??= new ToolExecutor(byName, { cwd, ...(maxConcurrency ? { maxConcurrency } : {}) }, listener));
    receive((command) => {
      if (command.type === 'SUBMIT') current().submit(command.block);
      else if (command.type === 'FINISH') current().finish(command.blocks);
      else {
        executor?.cancel();
        executor = undefined;
      }
    });
    return () => executor?.cancel();
  });
}

/** The agent machine with a model and tools plugged in. */
export function createAgentMachine(options: AgentActorsOptions) {
  return agentMachine.provide({
    actors: {
      callModel: modelActor(options.model, options.onText),
      runTools: toolRunnerActor(options.tools, options.cwd, options.maxConcurrency),
    },
  });
}
