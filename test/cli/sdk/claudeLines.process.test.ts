/**
 * What an Agent SDK program reads in the messages agentloop sends, value by value, as Claude Code 2.1.197 sends them
 * (its lines for the same programs were read from the recording run of test/cli/sdk/record.ts): an API error reported in
 * the result (`is_error`, `API Error: STATUS MESSAGE`, `api_error_status`) after a synthetic assistant message, a retry's
 * `system/api_retry`, the tool named `Bash` wherever the program sees it, a tool result's `tool_use_result` and
 * `timestamp`, the result's `terminal_reason`, and each assistant message's `request_id` (the API's `request-id` header). The real SDK drives the built CLI against the local Messages API.
 */
import type { Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { bashUse } from '../../support/agentServer.js';
import type { MessagesServer } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { collectSdk } from '../../support/sdkCollect.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('claudelines', (p) => { project = p; server = p.server; }, { noViolations: true });

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });

const collect = (prompt: string, extra: Options = {}) => collectSdk(project, prompt, extra);

const find = <T extends SDKMessage['type']>(messages: SDKMessage[], type: T, subtype?: string) =>
  messages.filter((m) => m.type === type && (subtype === undefined || (m as { subtype?: string }).subtype === subtype)) as Extract<SDKMessage, { type: T }>[];

describe("Claude Code's values in the messages an Agent SDK program receives from agentloop", () => {
  it('an API error: a synthetic assistant message with its text, then a result with is_error, the text and the status', async () => {
    server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'messages: the prompt is not acceptable' }, headers: { 'request-id': 'req_refused' } });
    const { messages } = await collect('hi');
    const [assistant] = find(messages, 'assistant');
    expect((assistant as { request_id?: string }).request_id).toBe('req_refused'); // the failed answer's
    expect(assistant?.message.content).toEqual([{ type: 'text', text: 'API Error: 400 messages: the prompt is not acceptable' }]);
    expect(assistant?.message.model).toBe('<synthetic>');
    expect(assistant?.error).toBe('unknown');
    const [result] = find(messages, 'result');
    expect(result).toMatchObject({ subtype: 'success', is_error: true, api_error_status: 400, result: 'API Error: 400 messages: the prompt is not acceptable', terminal_reason: 'completed' });
  });

  it('a 529: a system/api_retry message with the attempt, the budget, the delay and the status, then the answer', async () => {
    server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, answer('After a retry.'));
    const { messages } = await collect('hi', { model: 'claude-test' });
    const [retry] = find(messages, 'system', 'api_retry') as unknown as Record<string, unknown>[];
    expect(retry).toMatchObject({ attempt: 1, max_retries: 10, error_status: 529, error: 'overloaded' });
    expect(retry?.retry_delay_ms).toBeGreaterThan(0);
    const [result] = find(messages, 'result');
    expect(result).toMatchObject({ subtype: 'success', is_error: false, api_error_status: null, result: 'After a retry.', terminal_reason: 'completed' });
    expect(result && 'time_to_request_ms' in result && typeof result.ttft_ms).toBe('number');
  });

  it("retries a failed call 10 times, as Claude Code 2.1.197 does (its api_retry lines say max_retries 10), then reports the error", async () => {
    const overloaded = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '1' } };
    server.enqueue(...Array.from({ length: 11 }, () => overloaded), answer('never'));
    const { messages } = await collect('hi', { model: 'claude-test' });
    const retries = find(messages, 'system', 'api_retry') as unknown as { attempt: number; max_retries: number }[];
    expect(retries.map((r) => [r.attempt, r.max_retries])).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, 10]));
    expect(server.requests.filter((r) => r.path.startsWith('/v1/messages'))).toHaveLength(11);
    expect(find(messages, 'result')[0]).toMatchObject({ is_error: true, api_error_status: 529 });
  });

  it('fallbackModel: after 3 overloaded answers in a row a system/model_fallback message, and the fallback is asked at once, its retries counted afresh', async () => {
    const overloaded = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '1' } };
    server.enqueue(overloaded, overloaded, overloaded, overloaded, answer('From the fallback.'));
    const { messages } = await collect('hi', { model: 'claude-test', fallbackModel: 'claude-small' });
    expect(server.requests.map((r) => r.body?.model)).toEqual(['claude-test', 'claude-test', 'claude-test', 'claude-small', 'claude-small']);
    const system = messages.filter((m) => m.type === 'system' && m.subtype !== 'init') as unknown as Record<string, unknown>[];
    expect(system.map((m) => [m.subtype, m.attempt ?? m.fallback_model])).toEqual([
      ['api_retry', 1],
      ['api_retry', 2],
      ['model_fallback', 'claude-small'],
      ['api_retry', 1],
    ]);
    expect(system[2]).toMatchObject({ trigger: 'overloaded', original_model: 'claude-test', content: 'Switched to claude-small due to high demand for claude-test' });
    expect(find(messages, 'result')[0]).toMatchObject({ is_error: false, result: 'From the fallback.' });
  });

  it('names the shell tool Bash in the init tools, the tool_use blocks, partial messages and permission_denials; a result has tool_use_result', async () => {
    server.enqueue({ content: [bashUse('t1', 'echo hi'), bashUse('t2', 'touch denied.txt')], stop_reason: 'tool_use' }, answer('Done.'));
    const { messages } = await collect('go', { disallowedTools: ['Bash(touch:*)'], includePartialMessages: true });
    expect(find(messages, 'system', 'init')[0]).toMatchObject({ tools: ['Bash', 'Read', 'Write', 'Edit'] });
    const uses = find(messages, 'assistant').flatMap((m) => m.message.content).filter((b) => b.type === 'tool_use');
    expect(uses.map((b) => (b as { name: string }).name)).toEqual(['Bash', 'Bash']);
    const starts = find(messages, 'stream_event').map((m) => m.event).filter((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use');
    expect(starts.map((e) => (e as { content_block: { name: string } }).content_block.name)).toEqual(['Bash', 'Bash']);
    expect(find(messages, 'result')[0]?.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 't2', tool_input: { command: 'touch denied.txt' } }]);
    // One user line per tool result, as Claude Code writes them, each with its own tool_use_result.
    const users = find(messages, 'user') as unknown as { message: { content: { is_error: boolean }[] }; tool_use_result: unknown; timestamp: string }[];
    expect(users.map((u) => u.message.content.map((b) => b.is_error))).toEqual([[false], [true]]);
    expect(users[1]?.tool_use_result).toMatch(/^Error: /); // the denied one's
    expect(Date.parse(users[0]?.timestamp ?? '')).not.toBeNaN();
  });

  it.each([
    ['whole replies', false],
    ['partial messages', true],
  ])("request_id on each assistant message (%s): the request-id header of the API's answer the block came in", async (_name, partial) => {
    server.enqueue(
      { content: [{ type: 'text', text: 'Let me look.' }, bashUse('t1', 'echo hi')], stop_reason: 'tool_use', requestId: 'req_first_answer' },
      { ...answer('Done.'), requestId: 'req_second_answer' },
    );
    const { messages } = await collect('go', { model: 'claude-test', allowedTools: ['Bash'], includePartialMessages: partial });
    const lines = find(messages, 'assistant').map((m) => [m.message.content[0]?.type, (m as { request_id?: string }).request_id]);
    expect(lines).toEqual([
      ['text', 'req_first_answer'],
      ['tool_use', 'req_first_answer'],
      ['text', 'req_second_answer'],
    ]);
  });

  it('terminal_reason max_turns for a run stopped by maxTurns', async () => {
    server.enqueue({ content: [bashUse('t1', 'echo one')], stop_reason: 'tool_use' }, answer('Never asked.'));
    const { messages } = await collect('go', { maxTurns: 1, allowedTools: ['Bash'] });
    expect(find(messages, 'result')[0]).toMatchObject({ subtype: 'error_max_turns', is_error: true, terminal_reason: 'max_turns', api_error_status: null });
  });
});
