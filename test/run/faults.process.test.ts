/**
 * Fault injection: the real SDK, through runAgent, against the local Messages API server, with
 * every kind of failure the API and the network produce. Each run must end `done` or `failed`
 * (never a crash, never a hang), say what went wrong with the API's own error type where there is
 * one, never send an invalid history, and keep everything done before the fault.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { ModelCall } from '../../src/core/model.js';
import { runAgent, type RunResult } from '../../src/run/runAgent.js';
import { type RunEvent } from '../../src/core/events.js';
import type { Tool } from '../../src/core/tool.js';
import { answerFromResults, startCheckedServer } from '../support/agentServer.js';
import type { MessagesServer, ScriptedBlock, Step } from '../support/messagesServer.js';

/** A tool with no I/O: these tests are about the model side. */
const echoTool: Tool = {
  name: 'echo',
  description: 'Answers with the text it is given.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: async (input) => ({ content: `echo: ${String((input as { text?: unknown }).text)}`, isError: false }),
};

/** The same, but concurrency-safe: it starts while the reply is still streaming. */
const eagerEchoTool: Tool = { ...echoTool, isConcurrencySafe: () => true };

/** The idle timeout of the model calls that are meant to stall. */
const IDLE_TIMEOUT_MS = 200;
/** The idle timeout of every other call: long, so that a busy machine never turns a reply into a stall. */
const PATIENT_IDLE_TIMEOUT_MS = 20_000;
const MAX_RETRIES = 3;

const text = (t: string): ScriptedBlock => ({ type: 'text', text: t });
const echoUse = (id: string, t: string): ScriptedBlock => ({ type: 'tool_use', id, name: 'echo', input: { text: t } });
const finalAnswer: Step = { content: [text('All done.')], stop_reason: 'end_turn' };
const toolTurn: Step = { content: [text('Echoing.'), echoUse('toolu_1', 'first')], stop_reason: 'tool_use' };
const apiError = (status: number, type: string, message: string, headers?: Record<string, string>): Step => ({
  error: { status, type, message },
  ...(headers ? { headers } : {}),
});

let server: MessagesServer;
const crashes: unknown[] = [];
const onCrash = (error: unknown) => crashes.push(error);

beforeAll(() => {
  process.on('unhandledRejection', onCrash);
  process.on('uncaughtException', onCrash);
});
afterAll(() => {
  process.off('unhandledRejection', onCrash);
  process.off('uncaughtException', onCrash);
});
afterEach(async () => {
  await server?.close();
  expect(crashes).toEqual([]);
});

interface Outcome {
  result: RunResult;
  events: RunEvent[];
  retries: Array<Extract<RunEvent, { type: 'retry' }>>;
  /** Messages the run reported as written, in order (what a transcript records). */
  written: MessageParam[];
}

/**
 * The real SDK through `createAnthropicModel`, with the short idle timeout only on the calls
 * whose scripted step is a stall (so the timeout is the expected outcome, never a race).
 */
function modelFor(steps: Step[]): ModelCall {
  const client = { baseURL: server.url, apiKey: 'test' };
  const short = createAnthropicModel({ ...client, idleTimeoutMs: IDLE_TIMEOUT_MS });
  const patient = createAnthropicModel({ ...client, idleTimeoutMs: PATIENT_IDLE_TIMEOUT_MS });
  let call = 0;
  return (input, signal) => {
    const step = steps[call++];
    const stalls = typeof step === 'object' && 'fault' in step && step.fault === 'stall';
    return (stalls ? short : patient)(input, signal);
  };
}

async function runWith(steps: Step[], options: { tools?: Tool[] } = {}): Promise<Outcome> {
  server = await startCheckedServer();
  server.enqueue(...steps);
  const events: RunEvent[] = [];
  const result = await runAgent('Echo "first", then finish.', {
    model: 'claude-test',
    modelCall: modelFor(steps),
    tools: options.tools ?? [echoTool],
    retryBaseMs: 5,
    retryMaxMs: 50,
    maxRetries: MAX_RETRIES,
    onEvent: (event) => events.push(event),
  });

  // Never an invalid request, and the history the run ends with could be sent as it is.
  expect(server.violations).toEqual([]);
  expect(historyProblems(result.context.messages)).toEqual([]);
  expect(['done', 'failed']).toContain(result.state);
  const written: MessageParam[] = [];
  for (const event of events) {
    if (event.type !== 'message') continue;
    const at = (event as { index?: number }).index;
    if (typeof at === 'number') written[at] = event.message;
    else written.push(event.message);
  }
  const retries = events.filter((e): e is Extract<RunEvent, { type: 'retry' }> => e.type === 'retry');
  return { result, events, retries, written };
}

function expectCompleted({ result }: Outcome, turns = 2): void {
  expect(result.state).toBe('done');
  expect(result.context.exitReason).toBe('completed');
  expect(result.context.error).toBeNull();
  expect(result.context.turnCount).toBe(turns);
  expect(result.text).toBe('All done.');
}

function expectFailed({ result }: Outcome, error: { kind: string; apiType?: string; status?: number; message: RegExp }): void {
  expect(result.state).toBe('failed');
  expect(result.context.exitReason).toBe('model_error');
  expect(result.context.error).toMatchObject({
    kind: error.kind,
    ...(error.apiType ? { apiType: error.apiType } : {}),
    ...(error.status ? { status: error.status } : {}),
  });
  expect(result.context.error?.message).toMatch(error.message);
}

describe('HTTP errors from the API', () => {
  it('429 with retry-after-ms: waits what the API asks, then completes', async () => {
    const outcome = await runWith([
      toolTurn,
      apiError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after-ms': '10' }),
      answerFromResults,
    ]);
    expect(outcome.result.state).toBe('done');
    expect(outcome.result.text).toBe('Results: echo: first');
    expect(outcome.retries.map((r) => r.delayMs)).toEqual([10]);
    expect(outcome.retries[0]?.error.message).toMatch(/rate limit/);
    expect(server.requests).toHaveLength(3);
    // The retried request is the same request: nothing of the failed attempt leaks into it.
    expect(server.requests[2]?.body?.messages).toEqual(server.requests[1]?.body?.messages);
  });

  it('429 with retry-after in seconds: the wait is capped by retryMaxMs', async () => {
    const outcome = await runWith([
      apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '30' }),
      toolTurn,
      finalAnswer,
    ]);
    expectCompleted(outcome);
    expect(outcome.retries.map((r) => r.delayMs)).toEqual([50]);
  });

  it('429 on every attempt: fails with rate_limit_error after the retries', async () => {
    const limited = apiError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after-ms': '1' });
    const outcome = await runWith(Array.from({ length: MAX_RETRIES + 1 }, () => limited));
    expectFailed(outcome, { kind: 'rate_limit', apiType: 'rate_limit_error', status: 429, message: /rate limit/ });
    expect(server.requests).toHaveLength(MAX_RETRIES + 1);
  });

  it('529 twice, then success: completes after two retries', async () => {
    const overloaded = apiError(529, 'overloaded_error', 'Overloaded');
    const outcome = await runWith([overloaded, overloaded, toolTurn, finalAnswer]);
    expectCompleted(outcome);
    expect(outcome.retries).toHaveLength(2);
    expect(outcome.retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(server.requests).toHaveLength(4);
  });

  it('500 once: retried, completes', async () => {
    const outcome = await runWith([toolTurn, apiError(500, 'api_error', 'Internal server error'), finalAnswer]);
    expectCompleted(outcome);
    expect(outcome.retries).toHaveLength(1);
  });

  it('500 on every attempt: fails with api_error, keeping the turns done before', async () => {
    const broken = apiError(500, 'api_error', 'Internal server error');
    const outcome = await runWith([toolTurn, ...Array.from({ length: MAX_RETRIES + 1 }, () => broken)]);
    expectFailed(outcome, { kind: 'server', apiType: 'api_error', status: 500, message: /Internal server error/ });
    expect(server.requests).toHaveLength(1 + MAX_RETRIES + 1);
    // The first turn (its reply and its tool result) is in the history and was reported as written.
    const messages = outcome.result.context.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages[2])).toContain('echo: first');
    expect(outcome.written).toEqual(messages);
  });

  it('401: fails at once with authentication_error, no retry', async () => {
    const outcome = await runWith([apiError(401, 'authentication_error', 'invalid x-api-key')]);
    expectFailed(outcome, { kind: 'authentication', apiType: 'authentication_error', status: 401, message: /invalid x-api-key/ });
    expect(outcome.retries).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('faults in the middle of a stream', () => {
  it('an error event mid-stream (overloaded_error): retried, completes', async () => {
    const outcome = await runWith([
      toolTurn,
      { fault: 'error-event-mid-stream', content: [text('Partial')], errorType: 'overloaded_error', message: 'Overloaded' },
      finalAnswer,
    ]);
    expectCompleted(outcome);
    expect(outcome.retries).toHaveLength(1);
    // The partial reply was not kept: the retry sends the same history.
    expect(server.requests[2]?.body?.messages).toEqual(server.requests[1]?.body?.messages);
  });

  it('the connection reset mid-stream after a tool_use block: the unstarted tool never runs, the retry completes', async () => {
    let runs = 0;
    const counting: Tool = { ...echoTool, run: async (input, context) => (runs++, echoTool.run(input, context)) };
    const outcome = await runWith(
      [
        { fault: 'reset-mid-stream', content: [text('Echoing.'), echoUse('toolu_lost', 'lost')], afterBlocks: 2 },
        toolTurn,
        finalAnswer,
      ],
      { tools: [counting] },
    );
    expectCompleted(outcome);
    expect(runs).toBe(1);
    expect(outcome.retries).toHaveLength(1);
    expect(JSON.stringify(outcome.result.context.messages)).not.toContain('toolu_lost');
  });

  it('the connection reset on every attempt: fails with a connection error', async () => {
    const reset: Step = { fault: 'reset-mid-stream', content: [text('Partial answer')], afterBlocks: 1, midBlock: false };
    const outcome = await runWith(Array.from({ length: MAX_RETRIES + 1 }, () => reset));
    expectFailed(outcome, { kind: 'connection', message: /\S/ });
    expect(server.requests).toHaveLength(MAX_RETRIES + 1);
  });

  it('a reset after a concurrency-safe tool already started: fails without a retry and without a dangling tool_use', async () => {
    const outcome = await runWith(
      [{ fault: 'reset-mid-stream', content: [echoUse('toolu_eager', 'eager'), text('More to say')], afterBlocks: 1, midBlock: true }],
      { tools: [eagerEchoTool] },
    );
    expect(outcome.events.some((e) => e.type === 'tool_start')).toBe(true);
    expectFailed(outcome, { kind: 'connection', message: /\S/ });
    expect(outcome.retries).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that ends cleanly before message_stop: not taken as a reply, retried, completes', async () => {
    const outcome = await runWith([
      toolTurn,
      { fault: 'end-mid-stream', content: [text('Half an answer'), echoUse('toolu_cut', 'cut')], afterBlocks: 1, midBlock: true },
      finalAnswer,
    ]);
    expectCompleted(outcome);
    expect(outcome.retries).toHaveLength(1);
    expect(outcome.retries[0]?.error.message).toMatch(/ended before message_stop/);
    expect(JSON.stringify(outcome.result.context.messages)).not.toContain('Half an answer');
  });

  it('malformed SSE: retried, completes', async () => {
    const outcome = await runWith([toolTurn, { fault: 'malformed-sse', content: [text('fine so far')] }, finalAnswer]);
    expectCompleted(outcome);
    expect(outcome.retries).toHaveLength(1);
  });

  it('malformed SSE on every attempt: fails with a connection error saying the stream broke', async () => {
    const garbled: Step = { fault: 'malformed-sse', content: [text('fine so far')] };
    const outcome = await runWith(Array.from({ length: MAX_RETRIES + 1 }, () => garbled));
    expectFailed(outcome, { kind: 'connection', message: /stream/ });
  });

  it(`a stream that stalls past the idle timeout (${IDLE_TIMEOUT_MS} ms): given up, retried, completes`, async () => {
    const started = Date.now();
    const outcome = await runWith([toolTurn, { fault: 'stall', content: [text('Thinking...')] }, finalAnswer]);
    expectCompleted(outcome);
    expect(outcome.retries).toHaveLength(1);
    expect(outcome.retries[0]?.error.message).toMatch(/sent nothing for 200 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS);
  });

  it('a stream that stalls on every attempt: fails with a timeout', async () => {
    const stall: Step = { fault: 'stall' };
    const outcome = await runWith(Array.from({ length: MAX_RETRIES + 1 }, () => stall));
    expectFailed(outcome, { kind: 'timeout', message: /sent nothing for 200 ms/ });
    expect(server.requests).toHaveLength(MAX_RETRIES + 1);
  });
});
