import { assign, enqueueActions, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import { completeResults, pushAssistant, pushUser, toolUsesOf } from '../history/messages.js';
import type { ModelCallInput, ModelReply } from '../core/model.js';
import type { ToolResultBlockParam } from '../core/messages.js';
import { addUsage } from '../core/usage.js';
import { buildRequest, initialContext, retryDelayMs, type AgentContext, type AgentInput } from './context.js';
import { isModelError, toRunError, type ExitReason } from '../core/run.js';
import type { AgentEvent, ToolRunnerCommand } from './events.js';

/** The user message that asks the model to go on after a reply cut by max_tokens. */
export const CONTINUE_AFTER_MAX_TOKENS =
  'Output token limit hit. Resume directly where you stopped: no apology, no recap. Break the remaining work into smaller pieces.';

/**
 * `messages` and `turnUsage` are append-only logs owned by one run: appends push in place, so a
 * turn costs the same at 10,000 turns as at 10 (copying the arrays every turn made long runs
 * quadratic, see BENCHMARKS.md). Snapshots of one run share these arrays: copy them
 * (`slice()`) to keep the history as it was at a given snapshot.
 */
function pushed<T>(log: T[], item: T): T[] {
  log.push(item);
  return log;
}

function notProvided(name: string): never {
  throw new Error(`the "${name}" actor was not provided: use createAgentMachine() or machine.provide()`);
}

/**
 * The agent loop. Pure: the model call (`callModel`) and the tool runner (`runTools`) are actors
 * provided at run time, so every transition can be driven by a scripted model.
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    input: {} as AgentInput,
    events: {} as AgentEvent,
    output: {} as AgentContext,
  },
  actors: {
    callModel: fromPromise<ModelReply, ModelCallInput>(async () => notProvided('callModel')),
    runTools: fromCallback<ToolRunnerCommand>(() => notProvided('runTools')),
  },
  delays: {
    retryDelay: ({ context }) => context.retryDelayMs,
  },
  guards: {
    hasToolUse: ({ context }) => context.toolUses.length > 0,
    isRefusal: ({ context }) => context.stopReason === 'refusal',
    needsContinuation: ({ context }) => context.continuation !== null,
    isCutByMaxTokens: ({ context }) => context.stopReason === 'max_tokens',
    isPromptTooLong: ({ context }) => context.error?.kind === 'prompt_too_long',
    canRetry: ({ context }) => context.error?.retryable === true && context.retryAttempt <= context.config.maxRetries,
    reachedMaxTurns: ({ context }) => context.turnCount >= context.config.maxTurns,
  },
  actions: {
    startTurn: assign({ needsFollowUp: false, toolUses: [], startedToolIds: [], toolResults: {}, continuation: null }),
    submitToolUse: sendTo('tools', ({ event }) => {
      if (event.type !== 'TOOL_USE_READY') throw new Error(`submitToolUse got ${event.type}`);
      return { type: 'SUBMIT', block: event.block } satisfies ToolRunnerCommand;
    }),
    markFollowUpNeeded: assign({ needsFollowUp: true }),
    finishToolUses: sendTo('tools', ({ context }) => ({ type: 'FINISH', blocks: context.toolUses }) satisfies ToolRunnerCommand),
    // Not to a runner that crashed (its error is what ends the turn then).
    cancelTools: enqueueActions(({ enqueue, self }) => {
      if (self.getSnapshot().children.tools?.getSnapshot().status === 'active') {
        enqueue.sendTo('tools', { type: 'CANCEL' } satisfies ToolRunnerCommand);
      }
    }),
    recordToolStarted: assign({
      startedToolIds: ({ context, event }) =>
        event.type === 'TOOL_STARTED' ? [...context.startedToolIds, event.block.id] : context.startedToolIds,
    }),
    recordToolResult: assign({
      toolResults: ({ context, event }) => {
        const done = event.type === 'TOOL_RESULT' ? event : event.type === 'TOOLS_DONE' ? event.last : undefined;
        return done ? { ...context.toolResults, [done.block.id]: done.result } : context.toolResults;
      },
    }),
    recordReply: assign(({ context }, reply: ModelReply) => {
      const cut = reply.stopReason === 'max_tokens';
      const streak = cut ? context.maxTokensStreak + 1 : 0;
      const continuation =
        reply.stopReason === 'pause_turn'
          ? 'pause_turn'
          : cut && streak <= context.config.maxTokensContinuations
            ? 'max_tokens'
            : null;
      return {
        messages: pushAssistant(context.messages, reply.content),
        stopReason: reply.stopReason,
        usage: addUsage(context.usage, reply.usage),
        turnUsage: pushed(context.turnUsage, reply.usage),
        toolUses: toolUsesOf(reply.content),
        needsFollowUp: context.needsFollowUp || toolUsesOf(reply.content).length > 0,
        maxTokensStreak: streak,
        continuation,
        retryAttempt: 0,
        error: null,
      } satisfies Partial<AgentContext>;
    }),
    recordError: assign(({ context }, params: { error: unknown }) => {
      const attempt = context.retryAttempt + 1;
      const error = params.error;
      const retryable =
        isModelError(error) && error.retryable && !(error.details.midStream && context.startedToolIds.length > 0);
      const retryAfterMs = isModelError(error) ? error.details.retryAfterMs : undefined;
      return {
        error: toRunError(error, retryable),
        retryAttempt: attempt,
        retryDelayMs: retryable ? retryDelayMs(attempt, context.config, retryAfterMs, Math.random()) : 0,
      } satisfies Partial<AgentContext>;
    }),
    recordToolRunnerError: assign((_, params: { error: unknown }) => ({ error: toRunError(params.error) })),
    appendResults: assign({
      messages: ({ context }) =>
        pushUser(context.messages, [
          ...completeResults(context.toolUses, context.toolResults, 'no result was produced'),
          ...(context.continuation === 'max_tokens' ? [{ type: 'text' as const, text: CONTINUE_AFTER_MAX_TOKENS }] : []),
        ]),
    }),
    /** Answers every tool_use of the latest reply that has no result yet, so the history stays valid. */
    answerOpenToolUses: assign(({ context }, params: { reason: string }) => {
      const last = context.messages[context.messages.length - 1];
      if (context.toolUses.length === 0 || last?.role !== 'assistant') return {};
      const results: ToolResultBlockParam[] = completeResults(context.toolUses, context.toolResults, params.reason);
      return { messages: pushUser(context.messages, results) };
    }),
    startNextTurn: assign({
      turnCount: ({ context }) => context.turnCount + 1,
      transitionReason: ({ context }) =>
        context.toolUses.length > 0
          ? 'tool_result'
          : context.continuation === 'max_tokens'
            ? 'max_tokens_continuation'
            : 'pause_turn',
    }),
    markRetry: assign({ transitionReason: 'retry' }),
    exit: assign((_, reason: ExitReason) => ({ exitReason: reason, transitionReason: null })),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => initialContext(input),
  output: ({ context }) => context,
  // One tool runner for the whole run; each turn's tools are cancelled when the turn is left.
  invoke: {
    id: 'tools',
    src: 'runTools',
    onError: {
      target: '.failed',
      actions: [
        { type: 'recordToolRunnerError', params: ({ event }) => ({ error: event.error }) },
        { type: 'answerOpenToolUses', params: { reason: 'not run: the tool runner failed' } },
        { type: 'exit', params: 'tool_runner_error' },
      ],
    },
  },
  initial: 'turn',
  states: {
    turn: {
      entry: 'startTurn',
      // Leaving the turn (done, retry, abort) stops the tools it started.
      exit: 'cancelTools',
      on: {
        TOOL_STARTED: { actions: 'recordToolStarted' },
        TOOL_RESULT: { actions: 'recordToolResult' },
      },
      initial: 'callingModel',
      states: {
        callingModel: {
          invoke: {
            id: 'model',
            src: 'callModel',
            input: ({ context, self }) => ({
              request: buildRequest(context),
              turnCount: context.turnCount,
              onToolUse: (block) => self.send({ type: 'TOOL_USE_READY', block }),
            }),
            onDone: { target: 'checkingReply', actions: { type: 'recordReply', params: ({ event }) => event.output } },
            onError: { target: 'checkingError', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
          },
          on: {
            TOOL_USE_READY: { actions: ['markFollowUpNeeded', 'submitToolUse'] },
            ABORT: { target: '#agent.aborted', actions: { type: 'exit', params: 'aborted' } },
          },
        },
        checkingReply: {
          always: [
            { guard: 'hasToolUse', target: 'executingTools' },
            { guard: 'isRefusal', target: '#agent.done', actions: { type: 'exit', params: 'refusal' } },
            { guard: 'needsContinuation', target: '#agent.appendingResults' },
            { guard: 'isCutByMaxTokens', target: '#agent.done', actions: { type: 'exit', params: 'max_tokens' } },
            { target: '#agent.done', actions: { type: 'exit', params: 'completed' } },
          ],
        },
        checkingError: {
          always: [
            { guard: 'isPromptTooLong', target: '#agent.failed', actions: { type: 'exit', params: 'prompt_too_long' } },
            { guard: 'canRetry', target: '#agent.waitingToRetry' },
            { target: '#agent.failed', actions: { type: 'exit', params: 'model_error' } },
          ],
        },
        executingTools: {
          entry: 'finishToolUses',
          on: {
            TOOLS_DONE: { target: '#agent.appendingResults', actions: 'recordToolResult' },
            ABORT: {
              target: '#agent.aborted',
              actions: [
                { type: 'answerOpenToolUses', params: { reason: 'interrupted by user' } },
                { type: 'exit', params: 'aborted' },
              ],
            },
          },
        },
      },
    },
    appendingResults: {
      entry: 'appendResults',
      always: [
        { guard: 'reachedMaxTurns', target: 'done', actions: { type: 'exit', params: 'max_turns' } },
        { target: 'turn', actions: 'startNextTurn' },
      ],
    },
    waitingToRetry: {
      after: { retryDelay: { target: 'turn', actions: 'markRetry' } },
      on: { ABORT: { target: 'aborted', actions: { type: 'exit', params: 'aborted' } } },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
    aborted: { type: 'final' },
  },
});

export type AgentMachine = typeof agentMachine;
