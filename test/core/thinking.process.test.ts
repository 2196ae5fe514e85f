/**
 * Extended thinking's rules (src/core/thinking.ts): which models take a budget (Claude Code 2.1.197's list), the
 * request's `thinking` for each, and what the API would refuse, checked before sending: the library's runAgent with
 * a budget that max_tokens has no room for fails with that one line, and no request reaches the server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { takesThinkingBudget, thinkingParam, thinkingProblem } from '../../src/core/thinking.js';
import { runAgent } from '../../src/run/runAgent.js';
import { startCheckedServer } from '../support/agentServer.js';
import type { MessagesServer } from '../support/messagesServer.js';

describe('the request\'s thinking, by model', () => {
  it.each([
    ['claude-sonnet-4-5', true], ['claude-sonnet-4-5-20250929', true], ['claude-sonnet-4-20250514', true], ['claude-sonnet-4-0', true],
    ['claude-opus-4-1-20250805', true], ['claude-opus-4-20250514', true], ['claude-opus-4-5', true], ['claude-haiku-4-5', true],
    ['claude-3-7-sonnet-latest', true], ['CLAUDE-SONNET-4-5', true],
    ['claude-opus-4-6', false], ['claude-opus-4-8', false], ['claude-sonnet-4-6', false], ['claude-sonnet-5-5', false], ['claude-opus-5-5', false], ['claude-test', false],
  ])('%s takes a budget: %s', (model, budget) => {
    expect(takesThinkingBudget(model)).toBe(budget);
    const param = thinkingParam({ budgetTokens: 2048, display: 'omitted' }, model, 10_000);
    expect(param).toEqual(budget ? { type: 'enabled', budget_tokens: 2048, display: 'omitted' } : { type: 'adaptive', display: 'omitted' });
  });

  it('no budget given: max_tokens - 1 on a model that takes one, as Claude Code', () => {
    expect(thinkingParam({}, 'claude-sonnet-4-5', 8000)).toEqual({ type: 'enabled', budget_tokens: 7999 });
  });

  it.each([
    [{ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1023 } }, "thinking.budget_tokens 1023 is below 1024, the API's least"],
    [{ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 4000 } }, 'thinking.budget_tokens 4000 must be less than max_tokens 4000: thinking counts within max_tokens'],
    [{ max_tokens: 4000, thinking: { type: 'adaptive' }, temperature: 0.2 }, 'temperature 0.2 cannot be sent with thinking (the API takes only 1)'],
    [{ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 3999 }, temperature: 1 }, undefined],
    [{ max_tokens: 4000, thinking: { type: 'adaptive' } }, undefined],
    [{ max_tokens: 10, temperature: 0 }, undefined],
  ] as const)('%j: %s', (body, problem) => {
    expect(thinkingProblem(body)).toBe(problem);
  });
});

describe('runAgent with thinking', () => {
  let server: MessagesServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('a budget max_tokens has no room for: the run fails with the reason, nothing is sent', async () => {
    server = await startCheckedServer();
    const run = await runAgent('hi', {
      model: 'claude-sonnet-4-5', maxTokens: 2000, thinking: { budgetTokens: 4000 }, maxRetries: 0,
      client: { apiKey: 'sk-test', baseURL: server.url }, tools: [],
    });
    expect(run.state).toBe('failed');
    expect(run.context.error?.message).toBe('agentloop refused to send the request: thinking.budget_tokens 4000 must be less than max_tokens 2000: thinking counts within max_tokens');
    expect(server.requests).toEqual([]);
  });
});
