import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import { runAgent, type RunAgentOptions } from '../../src/run/runAgent.js';
import { type RunEvent } from '../../src/core/events.js';
import { createBashTool } from '../../src/tools/bash/bashTool.js';
import { answerFromResults, bashUse, lastToolResults } from '../support/agentServer.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { cliProjectPerTest } from '../support/project.js';

let server: MessagesServer;
let dir: string;

cliProjectPerTest('it', (project) => ({ server, dir } = project));

function options(extra: Partial<RunAgentOptions> = {}): RunAgentOptions {
  return {
    model: 'claude-test',
    modelCall: createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, idleTimeoutMs: 5000 }),
    tools: [createBashTool({ cwd: dir })],
    cwd: dir,
    retryBaseMs: 1,
    ...extra,
  };
}

describe('the loop with the real SDK against a local Messages API server', () => {
  it('plays the two-turn example: the model asks for ls, the real output goes back, the answer names the files', async () => {
    writeFileSync(join(dir, 'alpha.txt'), 'a');
    writeFileSync(join(dir, 'beta.md'), 'b');
    server.enqueue(
      { content: [{ type: 'text', text: 'Listing.' }, bashUse('toolu_1', 'ls')], stop_reason: 'tool_use' },
      answerFromResults,
    );
    const events: RunEvent[] = [];
    const run = await runAgent('list the files', options({ onEvent: (e) => events.push(e) }));

    expect(run.context.exitReason).toBe('completed');
    expect(run.context.turnCount).toBe(2);
    expect(run.text).toBe('Results: alpha.txt\nbeta.md');
    expect(server.violations).toEqual([]);
    expect(server.requests.map((r) => r.streamed)).toEqual([true, true]);
    const second = server.requests[1]?.body;
    // The request carries a prompt-caching breakpoint on its last block (the conversation so far).
    expect(lastToolResults(second!)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'alpha.txt\nbeta.md', cache_control: { type: 'ephemeral' } },
    ]);
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toContain('Listing.');
    expect(run.context.usage.input_tokens).toBeGreaterThan(0);
    expect(run.context.turnUsage).toHaveLength(2);
  });

  it('sends the request body the state derives, with auth, and no loop fields', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' });
    await runAgent('hello', options({ system: 'sys', maxTokens: 321 }));
    const request = server.requests[0]!;
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(Object.keys(request.body ?? {}).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream', 'system', 'tools']);
    expect(JSON.stringify(request.body)).not.toMatch(/turnCount|transitionReason/);
  });

  it('runs two tool_use blocks of one reply and answers both in one user message, in order', async () => {
    server.enqueue(
      { content: [bashUse('a', 'echo one'), bashUse('b', 'echo two >&2')], stop_reason: 'tool_use' },
      answerFromResults,
    );
    const run = await runAgent('two things', options());
    const results = lastToolResults(server.requests[1]!.body!);
    expect(results.map((r) => [r.tool_use_id, r.content])).toEqual([
      ['a', 'one'],
      ['b', 'two'],
    ]);
    expect(run.context.exitReason).toBe('completed');
    expect(server.violations).toEqual([]);
  });

  it('returns a failing command as an is_error result stating the exit status, and goes on', async () => {
    server.enqueue({ content: [bashUse('f', 'ls /does-not-exist')], stop_reason: 'tool_use' }, answerFromResults);
    const run = await runAgent('fail', options());
    const [result] = lastToolResults(server.requests[1]!.body!);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toMatch(/No such file/);
    expect(result?.content).toMatch(/exit code 2/);
    expect(run.context.exitReason).toBe('completed');
  });

  it('answers an unknown tool and a bad input with is_error results', async () => {
    server.enqueue(
      {
        content: [
          { type: 'tool_use', id: 'u', name: 'python', input: { code: '1' } },
          { type: 'tool_use', id: 'v', name: 'bash', input: { cmd: 'ls' } },
        ],
        stop_reason: 'tool_use',
      },
      answerFromResults,
    );
    const run = await runAgent('odd tools', options());
    const results = lastToolResults(server.requests[1]!.body!);
    expect(results[0]).toMatchObject({ tool_use_id: 'u', is_error: true, content: '<tool_use_error>Error: No such tool available: python</tool_use_error>' });
    expect(results[1]).toMatchObject({ tool_use_id: 'v', is_error: true, content: expect.stringMatching(/command/) });
    expect(run.context.exitReason).toBe('completed');
  });

  it('starts a safe tool before the stream ends, and never runs a tool_use cut by max_tokens', async () => {
    server.enqueue(
      {
        content: [
          bashUse('safe', 'pwd'),
          { type: 'text', text: 'more text that keeps streaming for a while' },
          bashUse('cut', 'touch should-not-exist'),
        ],
        stop_reason: 'max_tokens',
        cutInsideLastBlock: true,
        delayMs: 15,
      },
      answerFromResults,
    );
    const order: string[] = [];
    const run = await runAgent('go', options({
      onEvent: (e) => {
        if (e.type === 'tool_start') order.push(`start ${e.block.id}`);
        if (e.type === 'transition' && e.state === 'executingTools') order.push('stream ended');
      },
    }));
    expect(order).toEqual(['start safe', 'stream ended']);
    expect(existsSync(join(dir, 'should-not-exist'))).toBe(false);
    const second = server.requests[1]!.body!;
    expect(JSON.stringify(second.messages)).not.toContain('"cut"');
    expect(lastToolResults(second).map((r) => r.tool_use_id)).toEqual(['safe']);
    expect(run.context.exitReason).toBe('completed');
    expect(server.violations).toEqual([]);
  });

  it('retries a 529 and an error event mid-stream, then fails a 401 at once with the API’s type', async () => {
    server.enqueue(
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
      { fault: 'error-event-mid-stream', content: [{ type: 'text', text: 'par' }] },
      { content: [{ type: 'text', text: 'finally' }], stop_reason: 'end_turn' },
    );
    const ok = await runAgent('retry me', options());
    expect(ok.text).toBe('finally');
    expect(server.requests).toHaveLength(3);

    server.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const failed = await runAgent('no key', options());
    expect(failed.state).toBe('failed');
    expect(failed.context.error).toMatchObject({ apiType: 'authentication_error', message: 'invalid x-api-key', status: 401 });
    expect(server.requests).toHaveLength(4);
  });

  it('ends with prompt_too_long on the API’s 400 "prompt is too long"', async () => {
    server.enqueue({
      error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    const run = await runAgent('huge', options());
    expect(run.context.exitReason).toBe('prompt_too_long');
    expect(server.requests).toHaveLength(1);
  });
});
