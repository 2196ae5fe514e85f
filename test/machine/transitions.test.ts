import { fromCallback } from 'xstate';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { agentMachine, CONTINUE_AFTER_MAX_TOKENS } from '../../src/machine/agentMachine.js';
import { reply, scriptedModel, type ScriptedReply } from '../../src/scripted/model.js';
import { ModelError } from '../../src/core/model.js';
import { zeroUsage } from '../../src/core/usage.js';
import { type MessageParam } from '../../src/core/messages.js';
import { createAgentMachine, modelActor } from '../../src/run/actors.js';
import { drive, echoTool, requestProblems } from '../support/drive.js';

const useEcho = (id: string, text = id) => ({ id, name: 'echo', input: { text } });
const lastUser = (messages: MessageParam[]) => [...messages].reverse().find((m) => m.role === 'user');
const overloaded = () => ({ error: new ModelError('overloaded', 'Overloaded', { status: 529, apiType: 'overloaded_error' }) });

describe('the agent machine, driven by a scripted model', () => {
  it('runs the two-turn example: tool_use, tool_result bound to its id, then the answer', async () => {
    const run = await drive({ steps: [reply.toolUse([useEcho('t1', 'ls')]), reply.text('two files')], tools: [echoTool()] });
    expect(run.finalState).toBe('done');
    expect(run.context.exitReason).toBe('completed');
    expect(run.context.turnCount).toBe(2);
    expect(run.context.transitionReason).toBeNull();
    expect(run.states).toEqual(['callingModel', 'executingTools', 'appendingResults', 'callingModel', 'done']);
    expect(run.context.messages).toHaveLength(4);
    expect(run.context.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: JSON.stringify({ text: 'ls' }) }],
    });
    expect(run.requests).toHaveLength(2);
    expect(run.requests[1]?.messages).toEqual(run.context.messages.slice(0, 3));
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('answers several tool_use blocks in one user message, in tool_use order', async () => {
    const slowFirst = echoTool({ name: 'slow', delayMs: 30, safe: true });
    const run = await drive({
      steps: [
        reply.toolUse([
          { id: 'a', name: 'slow', input: { text: 'first' } },
          useEcho('b', 'second'),
          { id: 'c', name: 'nope', input: {} },
        ]),
        reply.text('ok'),
      ],
      tools: [slowFirst, echoTool()],
    });
    const results = lastUser(run.context.messages.slice(0, 3));
    expect(results?.content).toMatchObject([
      { tool_use_id: 'a', content: JSON.stringify({ text: 'first' }) },
      { tool_use_id: 'b', content: JSON.stringify({ text: 'second' }) },
      { tool_use_id: 'c', is_error: true, content: '<tool_use_error>Error: No such tool available: nope</tool_use_error>' },
    ]);
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('turns a tool that throws into an is_error result and goes on', async () => {
    const run = await drive({
      steps: [reply.toolUse([useEcho('t1')]), reply.text('recovered')],
      tools: [echoTool({ fail: true })],
    });
    expect(run.context.exitReason).toBe('completed');
    expect(run.context.messages[2]?.content).toMatchObject([
      { tool_use_id: 't1', is_error: true, content: expect.stringContaining('echo exploded') },
    ]);
  });

  it('decides to follow up from the tool_use blocks, not from stop_reason', async () => {
    const saysEndTurn: ScriptedReply = { ...reply.toolUse([useEcho('t1')]), stop_reason: 'end_turn' };
    const run = await drive({ steps: [saysEndTurn, reply.text('done')], tools: [echoTool()] });
    expect(run.context.turnCount).toBe(2);
    expect(run.context.messages[2]?.content).toMatchObject([{ tool_use_id: 't1' }]);
  });

  it('knows a follow-up is needed as soon as a tool_use arrives in the stream, before the reply ends', async () => {
    let finishStream: () => void = () => {};
    const streamEnds = new Promise<void>((r) => (finishStream = r));
    const block = { type: 'tool_use' as const, id: 't1', name: 'echo', input: {} };
    const seenWhileStreaming: boolean[] = [];
    let calls = 0;
    const tools = [echoTool({ safe: true })];
    const machine = createAgentMachine({
      tools,
      cwd: process.cwd(),
      model: async ({ onToolUse }) => {
        if (calls++ > 0) return { content: [{ type: 'text', text: 'done' }], stopReason: 'end_turn', usage: zeroUsage(), droppedIncompleteBlock: false };
        onToolUse(block);
        await streamEnds;
        return { content: [block], stopReason: null, usage: zeroUsage(), droppedIncompleteBlock: false };
      },
    });
    const run = await drive({
      steps: [],
      tools,
      machine,
      onStart: (actor) => {
        actor.subscribe((s) => {
          if (s.matches({ turn: 'callingModel' }) && s.context.turnCount === 1) seenWhileStreaming.push(s.context.needsFollowUp);
          if (s.context.turn.startedToolIds.includes('t1')) finishStream();
        });
      },
    });
    expect(seenWhileStreaming).toContain(true);
    expect(run.context.turnCount).toBe(2);
    expect(run.context.stopReason).toBe('end_turn');
  });

  it('stops a tool started while the model streams when the turn is left: aborted, or failed mid-stream', async () => {
    for (const ending of ['abort', 'error'] as const) {
      const block = { type: 'tool_use' as const, id: 't1', name: 'slow', input: {} };
      let toolSignal: AbortSignal | undefined;
      let started: () => void = () => {};
      const toolStarted = new Promise<void>((r) => (started = r));
      const slow = {
        name: 'slow',
        description: 'waits until aborted',
        inputSchema: { type: 'object' as const, properties: {} },
        isConcurrencySafe: () => true,
        run: (_input: unknown, context: { signal: AbortSignal }) => {
          toolSignal = context.signal;
          started();
          return new Promise<{ content: string; isError: boolean }>((resolve) =>
            context.signal.addEventListener('abort', () => resolve({ content: 'stopped', isError: true })),
          );
        },
      };
      const machine = createAgentMachine({
        tools: [slow],
        cwd: process.cwd(),
        model: async ({ onToolUse }, signal) => {
          onToolUse(block);
          await toolStarted;
          if (ending === 'error') throw new ModelError('connection', 'reset', { midStream: true });
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
          throw new Error('unreachable');
        },
      });
      const run = await drive({
        steps: [],
        tools: [slow],
        machine,
        onStart: (actor) => {
          if (ending === 'abort') void toolStarted.then(() => actor.send({ type: 'ABORT' }));
        },
      });
      expect(run.finalState, ending).toBe(ending === 'abort' ? 'aborted' : 'failed');
      expect(toolSignal?.aborted, ending).toBe(true);
      expect(historyProblems(run.context.messages), ending).toEqual([]);
    }
  });

  it('ends with exit reason refusal on a refusal', async () => {
    const run = await drive({ steps: [{ content: [{ type: 'text', text: 'No.' }], stop_reason: 'refusal' }] });
    expect(run.finalState).toBe('done');
    expect(run.context.exitReason).toBe('refusal');
    expect(run.context.stopReason).toBe('refusal');
  });

  it('sends a pause_turn reply back and continues', async () => {
    const paused: ScriptedReply = { content: [{ type: 'text', text: 'searching…' }], stop_reason: 'pause_turn' };
    const run = await drive({ steps: [paused, reply.text('found it')] });
    expect(run.context.exitReason).toBe('completed');
    expect(run.context.turnCount).toBe(2);
    expect(run.requests[1]?.messages.at(-1)).toEqual({ role: 'assistant', content: paused.content });
  });

  it('asks the model to continue after max_tokens, at most 3 times in a row, then stops', async () => {
    const cut = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], stop_reason: 'max_tokens' });
    const run = await drive({ steps: [cut('a'), cut('b'), cut('c'), cut('d')] });
    expect(run.finalState).toBe('done');
    expect(run.context.exitReason).toBe('max_tokens');
    expect(run.requests).toHaveLength(4);
    expect(run.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: CONTINUE_AFTER_MAX_TOKENS }] });
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('never runs a tool_use cut off by max_tokens, and continues after the complete ones', async () => {
    let runs = 0;
    const counting = { ...echoTool(), run: async (input: unknown) => ({ content: `ran ${JSON.stringify(input)}`, isError: (runs++, false) }) };
    const cutReply: ScriptedReply = {
      ...reply.toolUse([useEcho('whole')]),
      stop_reason: 'max_tokens',
      cutBlock: { type: 'tool_use', id: 'cut', name: 'echo', input: {} },
    };
    const run = await drive({ steps: [cutReply, reply.text('done')], tools: [counting] });
    expect(runs).toBe(1);
    expect(run.context.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'whole', content: 'ran {"text":"whole"}' },
      { type: 'text', text: CONTINUE_AFTER_MAX_TOKENS },
    ]);
    expect(JSON.stringify(run.context.messages)).not.toContain('"cut"');
  });

  it('stops at max turns after answering the last reply’s tool_use blocks', async () => {
    const run = await drive({
      steps: [reply.toolUse([useEcho('t1')]), reply.toolUse([useEcho('t2')]), reply.text('never')],
      tools: [echoTool()],
      config: { maxTurns: 2 },
    });
    expect(run.finalState).toBe('done');
    expect(run.context.exitReason).toBe('max_turns');
    expect(run.context.turnCount).toBe(2);
    expect(run.requests).toHaveLength(2);
    expect(run.context.messages.at(-1)).toMatchObject({ role: 'user', content: [{ tool_use_id: 't2' }] });
  });

  it('retries overloaded errors with backoff, then succeeds', async () => {
    const run = await drive({ steps: [overloaded(), overloaded(), reply.text('hi')] });
    expect(run.context.exitReason).toBe('completed');
    expect(run.states).toEqual(['callingModel', 'waitingToRetry', 'callingModel', 'waitingToRetry', 'callingModel', 'done']);
    expect(run.context.turnCount).toBe(1);
    expect(run.context.recovery.retryAttempt).toBe(0);
    expect(run.requests).toHaveLength(3);
  });

  it('gives up after the last retry with the API’s error type and message', async () => {
    const run = await drive({ steps: [overloaded(), overloaded(), overloaded()], config: { maxRetries: 2 } });
    expect(run.finalState).toBe('failed');
    expect(run.context.exitReason).toBe('model_error');
    expect(run.context.error).toMatchObject({ kind: 'overloaded', apiType: 'overloaded_error', message: 'Overloaded' });
    expect(run.requests).toHaveLength(3);
  });

  it('honours retry-after when the API gives one', async () => {
    const limited = { error: new ModelError('rate_limit', 'slow down', { status: 429, retryAfterMs: 40 }) };
    const started = Date.now();
    const run = await drive({ steps: [limited, reply.text('ok')], config: { retryBaseMs: 1 } });
    expect(run.context.exitReason).toBe('completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('fails at once on errors retrying cannot fix', async () => {
    const auth = { error: new ModelError('authentication', 'invalid x-api-key', { status: 401, apiType: 'authentication_error' }) };
    const run = await drive({ steps: [auth, reply.text('never')] });
    expect(run.finalState).toBe('failed');
    expect(run.context.exitReason).toBe('model_error');
    expect(run.requests).toHaveLength(1);
  });

  it('does not retry a mid-stream error once a tool of that turn has started', async () => {
    const tools = [echoTool({ safe: true, delayMs: 5 })];
    const midStream = new ModelError('overloaded', 'Overloaded', { midStream: true, apiType: 'overloaded_error' });
    const machine = createAgentMachine({
      tools,
      cwd: process.cwd(),
      model: async ({ onToolUse }) => {
        onToolUse({ type: 'tool_use', id: 't1', name: 'echo', input: {} });
        await new Promise((r) => setTimeout(r, 1));
        throw midStream;
      },
    });
    const run = await drive({ steps: [], tools, machine });
    expect(run.finalState).toBe('failed');
    expect(run.context.turn.startedToolIds).toEqual(['t1']);
    expect(run.context.messages).toEqual([{ role: 'user', content: 'go' }]);
  });

  it('ends with prompt_too_long on a 400 "prompt is too long" with compaction off (test/machine/compaction.test.ts: on)', async () => {
    const tooLong = { error: new ModelError('prompt_too_long', 'prompt is too long: 210000 tokens > 200000 maximum', { status: 400 }) };
    const run = await drive({ steps: [tooLong], config: { compaction: 'off' } });
    expect(run.finalState).toBe('failed');
    expect(run.context.exitReason).toBe('prompt_too_long');
  });

  it('drops the partial turn when aborted while the model streams', async () => {
    const run = await drive({
      steps: [reply.text('never seen')],
      modelDelayMs: 1000,
      onStart: (actor) => setTimeout(() => actor.send({ type: 'ABORT' }), 5),
    });
    expect(run.finalState).toBe('aborted');
    expect(run.context.exitReason).toBe('aborted');
    expect(run.context.messages).toEqual([{ role: 'user', content: 'go' }]);
  });

  it('answers every unfinished tool with "interrupted by user" when aborted while tools run', async () => {
    const run = await drive({
      steps: [reply.toolUse([{ id: 'fast', name: 'fast', input: {} }, useEcho('slow')])],
      tools: [echoTool({ name: 'fast', safe: true }), echoTool({ delayMs: 5000 })],
      onStart: (actor) => {
        const sub = actor.subscribe((s) => {
          if (s.context.turn.startedToolIds.includes('slow')) {
            sub.unsubscribe();
            actor.send({ type: 'ABORT' });
          }
        });
      },
    });
    expect(run.finalState).toBe('aborted');
    expect(run.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'fast', content: '{}' },
        { type: 'tool_result', tool_use_id: 'slow', content: 'interrupted by user', is_error: true },
      ],
    });
  });

  it('can be aborted while it waits to retry', async () => {
    const run = await drive({
      steps: [overloaded(), reply.text('never')],
      config: { retryBaseMs: 10_000 },
      onStart: (actor) => {
        const sub = actor.subscribe((s) => {
          if (s.matches('waitingToRetry')) {
            sub.unsubscribe();
            actor.send({ type: 'ABORT' });
          }
        });
      },
    });
    expect(run.finalState).toBe('aborted');
    expect(run.requests).toHaveLength(1);
  });

  it('fails with a valid history when the tool runner itself crashes', async () => {
    const model = scriptedModel([reply.toolUse([useEcho('t1')])]);
    const machine = agentMachine.provide({
      actors: {
        callModel: modelActor(model.call),
        runTools: fromCallback(({ receive }) => {
          receive((command) => {
            if (command.type === 'FINISH') throw new Error('runner bug');
          });
        }),
      },
    });
    const run = await drive({ steps: [], machine });
    expect(run.finalState).toBe('failed');
    expect(run.context.exitReason).toBe('tool_runner_error');
    expect(run.context.error?.message).toBe('runner bug');
    expect(run.context.messages.at(-1)).toMatchObject({ role: 'user', content: [{ tool_use_id: 't1', is_error: true }] });
    expect(historyProblems(run.context.messages)).toEqual([]);
  });
});

describe('the request body', () => {
  it('is derived from the state and never carries the loop’s own fields', async () => {
    const run = await drive({
      steps: [reply.toolUse([useEcho('t1')]), reply.text('done')],
      tools: [echoTool()],
      config: { system: 'be brief', maxTokens: 123 },
    });
    for (const request of run.requests) {
      expect(Object.keys(request).sort()).toEqual(['max_tokens', 'messages', 'model', 'system', 'tools']);
      const text = JSON.stringify(request);
      for (const field of ['turnCount', 'transitionReason', 'exitReason', 'toolResults', 'retryAttempt', 'usage']) {
        expect(text).not.toContain(field);
      }
      expect(request.max_tokens).toBe(123);
    }
  });
});
