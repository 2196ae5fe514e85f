import { assign, emit, enqueueActions, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { ChoiceState, CompactBoundary, LoopState, MachineEvent } from '../core/events.js';
import type { CompactInput } from '../history/compact.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import type { ModelCallInput, ModelReply } from '../core/model.js';
import { INTERRUPTED_BY_USER, NO_RESULT, RUNNER_FAILED } from '../core/prompts.js';
import { toRunError, type ExitReason } from '../core/outcome.js';
import { toolUseProblem } from '../history/validate.js';
import { buildRequest, freshTurn, initialContext, outputOf, type AgentContext, type AgentInput, type AgentOutput } from './context.js';
import { choose, exit, otherwise, when } from './choices.js';
import { canCompactAfterRefusal, compactedUpdate, compactInputOf, compactionBlockedUpdate, compactionFailedUpdate, isCompactionBlocked, needsCompaction, refusedUpdate } from './compaction.js';
import type { AgentEvent, ToolRunnerCommand } from './events.js';
import { nextTransitionReason, overBudget } from './rules.js';
import { invalidReplyError, openToolUsesUpdate, problemsOfReply, replyMessageUpdate, replyUpdate, resultsUpdate, startedAtFinish } from './updates.js';
import { applyWrite, recordFailure, recordStart, replyEvent } from './writes.js';

export { CONTINUE_AFTER_MAX_TOKENS } from '../core/prompts.js';

const notProvided = (name: string): never => { throw new Error(`the "${name}" actor was not provided: use createAgentMachine() or machine.provide()`); };

/**
 * The agent loop. Pure: the model call (`callModel`) and the tool runner (`runTools`) are actors
 * provided at run time, so every transition can be driven by a scripted model. It announces what
 * happens with `emit` (core/events.ts): listen with `actor.on('*', ...)`.
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    input: {} as AgentInput,
    events: {} as AgentEvent,
    output: {} as AgentOutput,
    emitted: {} as MachineEvent,
  },
  actors: {
    callModel: fromPromise<ModelReply, ModelCallInput>(async () => notProvided('callModel')),
    runTools: fromCallback<ToolRunnerCommand>(() => notProvided('runTools')),
    compactHistory: fromPromise<CompactBoundary, CompactInput>(async () => notProvided('compactHistory')),
  },
  delays: {
    retryDelay: ({ context }) => context.recovery.retryDelayMs,
  },
  guards: {
    needsCompaction: ({ context }) => needsCompaction(context),
    isCompactionBlocked: (_, params: { error: unknown }) => isCompactionBlocked(params.error),
    canCompactAfterRefusal: ({ context }) => canCompactAfterRefusal(context),
    needsFollowUp: ({ context }) => context.needsFollowUp,
    isRefusal: ({ context }) => context.stopReason === 'refusal',
    needsContinuation: ({ context }) => context.turn.continuation !== null,
    isCutByMaxTokens: ({ context }) => context.stopReason === 'max_tokens',
    isPromptTooLong: ({ context }) => context.error?.kind === 'prompt_too_long',
    canRetry: ({ context }) => context.error?.retryable === true && context.recovery.retryAttempt <= context.config.maxRetries,
    reachedMaxTurns: ({ context }) => context.turnCount >= context.config.maxTurns,
    reachedBudget: ({ context }) => overBudget(context.costUsd, context.config.maxBudgetUsd),
    /** A tool_use from the stream that may join the history (so it may run). */
    isUsableToolUse: ({ context }, params: { block: ToolUseBlock }) =>
      !context.turn.streamedToolUseIds.includes(params.block.id) && toolUseProblem(params.block, context.toolUseIds) === undefined,
    isInvalidReply: ({ context }, params: { reply: ModelReply }) => problemsOfReply(context, params.reply).length > 0,
    /** A start the runner announces that the machine has not announced itself already (see `finishToolUses`). */
    isNewStart: ({ context }, params: { block: ToolUseBlock }) => !context.turn.startedToolIds.includes(params.block.id),
    /**
     * The tool runner starts the tool `startedAtFinish` picks as soon as FINISH comes (toolRunnerActor does). The
     * stepped runner does not (each tool waits at the gate first): createAgentMachine provides this as false there.
     * (It takes its argument, unused, because a guard with none upsets XState's inference of the other guards.)
     */
    runnerStartsAtFinish: ({ context: _ }) => true,
  },
  actions: {
    enter: emit(({ context, event }, params: { state: LoopState }) => ({
      type: 'transition' as const,
      state: params.state,
      event: event.type,
      turnCount: context.turnCount,
      transitionReason: context.transitionReason,
      exitReason: context.exitReason,
    })),
    decide: emit((_, params: { state: ChoiceState; guard: string; target: string }) => ({ type: 'decision' as const, ...params })),
    startTurn: assign(() => ({ needsFollowUp: false, turn: freshTurn() })),
    /** A complete tool_use in the stream: a follow-up is needed, and the runner may start it now. */
    acceptToolUse: enqueueActions(({ context, enqueue }, params: { block: ToolUseBlock }) => {
      enqueue.assign({ needsFollowUp: true, turn: { ...context.turn, streamedToolUseIds: [...context.turn.streamedToolUseIds, params.block.id] } });
      enqueue.emit({ type: 'tool_use', turnCount: context.turnCount, block: params.block });
      enqueue.sendTo('tools', { type: 'SUBMIT', block: params.block } satisfies ToolRunnerCommand);
    }),
    /**
     * The reply is in: the runner gets its tool_uses. The tool it will start at once is announced here, in the step
     * that took the reply, and FINISH names it, so the runner sends no TOOL_STARTED for it: one macrostep less in a
     * tool turn (~8 % of it, BENCHMARKS.md section 1). The order of the events and records is the same as with the
     * runner's TOOL_STARTED: tool_start follows the transition into executingTools and comes before the tool is
     * called (the executor still awaits the write-ahead). Every other start is the runner's to announce.
     */
    finishToolUses: enqueueActions(({ context, enqueue, check }) => {
      // `check` looks the guard up by name at run time (so a provided one counts); XState's types do not know the
      // setup's guard names inside the setup's own actions, hence the cast.
      const first = check('runnerStartsAtFinish' as never) ? startedAtFinish(context.turn) : undefined;
      if (first) recordStart(enqueue, context, first);
      const blocks = context.turn.toolUses;
      enqueue.sendTo('tools', (first ? { type: 'FINISH', blocks, announced: first.id } : { type: 'FINISH', blocks }) satisfies ToolRunnerCommand);
    }),
    // Not after TOOLS_DONE (nothing of the turn runs then, and the runner has let the turn go), nor
    // to a runner that crashed (its error is what ends the turn then).
    cancelTools: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'TOOLS_DONE' && self.getSnapshot().children.tools?.getSnapshot().status === 'active') {
        enqueue.sendTo('tools', { type: 'CANCEL' } satisfies ToolRunnerCommand);
      }
    }),
    recordToolStarted: enqueueActions(({ context, enqueue }, params: { block: ToolUseBlock }) => recordStart(enqueue, context, params.block)),
    recordToolResult: enqueueActions(
      ({ context, enqueue }, params: { done: { block: ToolUseBlock; result: ToolResultBlockParam; data?: unknown } | undefined }) => {
        if (!params.done) return;
        const { block, result, data } = params.done;
        enqueue.assign({ turn: { ...context.turn, toolResults: { ...context.turn.toolResults, [block.id]: result } } });
        enqueue.emit(data === undefined ? { type: 'tool_result', block, result } : { type: 'tool_result', block, result, data });
      },
    ),
    /** The reply joins the history: what the model said and asked for is in its next request. */
    appendReply: enqueueActions(({ context, enqueue }, params: { reply: ModelReply }) =>
      applyWrite(enqueue, context, (c) => replyMessageUpdate(c, params.reply), 'model'),
    ),
    /** The turn's outcome is read from the reply (after `appendReply`). */
    recordReply: enqueueActions(({ context, enqueue }, params: { reply: ModelReply }) => {
      enqueue.assign(replyUpdate(context, params.reply));
      enqueue.emit(({ context: after }) => replyEvent(after, params.reply));
    }),
    recordError: enqueueActions(({ context, enqueue }, params: { error: unknown }) => recordFailure(enqueue, context, params.error)),
    rejectReply: enqueueActions(({ context, enqueue }, params: { reply: ModelReply }) =>
      recordFailure(enqueue, context, invalidReplyError(problemsOfReply(context, params.reply))),
    ),
    announceRetry: emit(({ context }) => ({
      type: 'retry' as const,
      turnCount: context.turnCount,
      attempt: context.recovery.retryAttempt,
      delayMs: context.recovery.retryDelayMs,
      error: context.error ?? toRunError('unknown error'),
      model: context.model,
      ...(context.recovery.fallbackFrom !== undefined ? { fallbackFrom: context.recovery.fallbackFrom } : {}),
    })),
    recordToolRunnerError: assign((_, params: { error: unknown }) => ({ error: toRunError(params.error) })),
    appendResults: enqueueActions(({ context, enqueue }) =>
      applyWrite(enqueue, context, (c) => resultsUpdate(c, NO_RESULT), context.turn.toolUses.length > 0 ? 'tools' : 'continuation'),
    ),
    answerOpenToolUses: enqueueActions(({ context, enqueue }, params: { reason: string }) =>
      applyWrite(enqueue, context, (c) => openToolUsesUpdate(c, params.reason), 'interrupted'),
    ),
    /** Why the loop goes on (the chapter's step ⑥): marked as the results are written, before the guards decide. */
    markTransitionReason: assign({
      transitionReason: ({ context }) => nextTransitionReason(context.turn.toolUses.length > 0, context.turn.continuation),
    }),
    startNextTurn: assign({ turnCount: ({ context }) => context.turnCount + 1 }),
    /** Lets the machine rest in appendingResults: the event arrives once this step's snapshot is out. */
    sendResultsAppended: sendTo(({ self }) => self, { type: 'RESULTS_APPENDED' } satisfies AgentEvent),
    markRetry: assign({ transitionReason: 'retry' }),
    /** A request refused as too long: compact, then send it again. */
    markRefused: assign(({ context }) => refusedUpdate(context)),
    /** The boundary: what is sent from now on is the compacted history (the transcript keeps all of it). */
    applyCompaction: enqueueActions(({ context, enqueue }, params: { boundary: CompactBoundary }) => {
      enqueue.assign(compactedUpdate(context, params.boundary));
      enqueue.emit({ type: 'compact_boundary', turnCount: context.turnCount, boundary: params.boundary });
    }),
    markCompactionFailed: assign(({ context }) => compactionFailedUpdate(context)),
    markCompactionBlocked: assign(({ context }) => compactionBlockedUpdate(context)),
    exit: assign((_, reason: ExitReason) => ({ exitReason: reason, transitionReason: null })),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => initialContext(input),
  output: ({ context }) => outputOf(context),
  // One tool runner for the whole run; each turn's tools are cancelled when the turn is left.
  invoke: {
    id: 'tools',
    src: 'runTools',
    onError: {
      target: '.failed',
      actions: [
        { type: 'recordToolRunnerError', params: ({ event }) => ({ error: event.error }) },
        { type: 'answerOpenToolUses', params: { reason: RUNNER_FAILED } },
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
        TOOL_STARTED: {
          guard: { type: 'isNewStart', params: ({ event }) => ({ block: event.block }) },
          actions: { type: 'recordToolStarted', params: ({ event }) => ({ block: event.block }) },
        },
        TOOL_RESULT: { actions: { type: 'recordToolResult', params: ({ event }) => ({ done: event }) } },
      },
      initial: 'checkingContext',
      states: {
        // Before each request: compact first when it would pass the threshold of the window, or was refused as too long.
        checkingContext: { always: choose('checkingContext', when('needsCompaction', 'compacting'), otherwise('callingModel')) },
        compacting: {
          entry: { type: 'enter', params: { state: 'compacting' } },
          invoke: {
            id: 'compaction',
            src: 'compactHistory',
            input: ({ context }) => compactInputOf(context),
            onDone: { target: 'callingModel', actions: { type: 'applyCompaction', params: ({ event }) => ({ boundary: event.output }) } },
            onError: [
              { guard: { type: 'isCompactionBlocked', params: ({ event }) => ({ error: event.error }) }, target: 'callingModel', actions: 'markCompactionBlocked' },
              { target: 'checkingError', actions: ['markCompactionFailed', { type: 'recordError', params: ({ event }) => ({ error: event.error }) }] }],
          },
          on: { ABORT: { target: '#agent.aborted', actions: exit('aborted') } },
        },
        callingModel: {
          entry: { type: 'enter', params: { state: 'callingModel' } },
          invoke: {
            id: 'model',
            src: 'callModel',
            input: ({ context, self }) => ({
              request: buildRequest(context),
              turnCount: context.turnCount,
              onToolUse: (block) => self.send({ type: 'TOOL_USE_READY', block }),
            }),
            onDone: [
              {
                guard: { type: 'isInvalidReply', params: ({ event }) => ({ reply: event.output }) },
                target: 'checkingError',
                actions: { type: 'rejectReply', params: ({ event }) => ({ reply: event.output }) },
              },
              {
                target: 'checkingReply',
                actions: [
                  { type: 'appendReply', params: ({ event }) => ({ reply: event.output }) },
                  { type: 'recordReply', params: ({ event }) => ({ reply: event.output }) },
                ],
              },
            ],
            onError: { target: 'checkingError', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
          },
          on: {
            TOOL_USE_READY: {
              guard: { type: 'isUsableToolUse', params: ({ event }) => ({ block: event.block }) },
              actions: { type: 'acceptToolUse', params: ({ event }) => ({ block: event.block }) },
            },
            ABORT: { target: '#agent.aborted', actions: { type: 'exit', params: 'aborted' } },
          },
        },
        checkingReply: {
          always: choose(
            'checkingReply',
            when('needsFollowUp', 'executingTools'),
            when('isRefusal', '#agent.done', exit('refusal')),
            when('needsContinuation', '#agent.appendingResults'),
            when('isCutByMaxTokens', '#agent.done', exit('max_tokens')),
            otherwise('#agent.done', exit('completed')),
          ),
        },
        checkingError: {
          always: choose(
            'checkingError',
            when('canCompactAfterRefusal', 'compacting', 'markRefused'),
            when('isPromptTooLong', '#agent.failed', exit('prompt_too_long')),
            when('canRetry', '#agent.waitingToRetry'),
            otherwise('#agent.failed', exit('model_error')),
          ),
        },
        executingTools: {
          entry: [{ type: 'enter', params: { state: 'executingTools' } }, 'finishToolUses'],
          on: {
            TOOLS_DONE: { target: '#agent.appendingResults', actions: { type: 'recordToolResult', params: ({ event }) => ({ done: event.last }) } },
            ABORT: {
              target: '#agent.aborted',
              actions: [{ type: 'answerOpenToolUses', params: { reason: INTERRUPTED_BY_USER } }, exit('aborted')],
            },
          },
        },
      },
    },
    // The results are written on entry; the machine rests here (a snapshot of its own, as the chapter draws the
    // loop) until the event it sends itself, then picks the way on.
    appendingResults: {
      entry: ['appendResults', 'markTransitionReason', { type: 'enter', params: { state: 'appendingResults' } }, 'sendResultsAppended'],
      on: {
        RESULTS_APPENDED: choose(
          'appendingResults',
          when('reachedMaxTurns', 'done', exit('max_turns')),
          when('reachedBudget', 'done', exit('max_budget')),
          otherwise('turn', 'startNextTurn'),
        ),
        ABORT: { target: 'aborted', actions: exit('aborted') },
      },
    },
    waitingToRetry: {
      entry: [{ type: 'enter', params: { state: 'waitingToRetry' } }, 'announceRetry'],
      after: { retryDelay: { target: 'turn', actions: 'markRetry' } },
      on: { ABORT: { target: 'aborted', actions: exit('aborted') } },
    },
    done: { type: 'final', entry: { type: 'enter', params: { state: 'done' } } },
    failed: { type: 'final', entry: { type: 'enter', params: { state: 'failed' } } },
    aborted: { type: 'final', entry: { type: 'enter', params: { state: 'aborted' } } },
  },
});

export type AgentMachine = typeof agentMachine;
