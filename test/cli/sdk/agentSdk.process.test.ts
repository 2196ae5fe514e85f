/**
 * The real Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`, pinned in devDependencies without its native Claude
 * Code) drives the built CLI as its engine (`pathToClaudeCodeExecutable`), against the local Messages API server: the
 * control protocol (initialize with a system prompt, hooks, in-process MCP servers; interrupt, set_permission_mode,
 * set_model, set_max_thinking_tokens, mcp_status, an error answer to what is not supported; can_use_tool, hook_callback, mcp_message) and the
 * messages each program receives.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createSdkMcpServer, query, tool, type Options, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLI } from '../../support/cli.js';
import { bashUse, lastToolResults, resultText } from '../../support/agentServer.js';
import type { MessagesServer, RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { promptStream } from './scenarios.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('agentsdk', (p) => { project = p; server = p.server; }, { noViolations: true });

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const callTool = (...blocks: { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }[]) => ({ content: blocks, stop_reason: 'tool_use' as const });

/** The SDK's options for a program run in the project, with agentloop as the engine. */
function options(extra: Options = {}): Options {
  return { pathToClaudeCodeExecutable: CLI, cwd: project.dir, env: project.env, ...extra };
}

async function collect(prompt: string | AsyncIterable<SDKUserMessage>, extra: Options = {}): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt, options: options(extra) })) messages.push(message);
  return messages;
}

const kinds = (messages: SDKMessage[]) => messages.map((m) => ('subtype' in m ? `${m.type}/${String(m.subtype)}` : m.type));
const resultOf = (messages: SDKMessage[]) => messages.find((m) => m.type === 'result') as Extract<SDKMessage, { type: 'result' }>;
const systemText = (body: RequestBody | undefined) => (Array.isArray(body?.system) ? body.system.map((b) => b.text).join('') : (body?.system ?? ''));
const toolText = (index: number) => resultText(lastToolResults(server.requests[index]?.body as RequestBody)[0]!);

describe('the Claude Agent SDK with agentloop as its engine', () => {
  it('runs query() with default options: Claude Code default model, the SDK empty system prompt, init/assistant/result only', async () => {
    delete project.env.MODEL_ID;
    server.enqueue(answer('Hello.'));
    const messages = await collect('hi');
    expect(kinds(messages)).toEqual(['system/init', 'assistant', 'result/success']);
    expect(resultOf(messages)).toMatchObject({ is_error: false, result: 'Hello.', num_turns: 1 });
    expect(server.requests[0]?.body?.model).toBe('claude-opus-4-8');
    expect(systemText(server.requests[0]?.body)).toBe('');
  });

  it('applies systemPrompt, and the claude_code preset with append', async () => {
    server.enqueue(answer('One.'), answer('Two.'));
    await collect('hi', { systemPrompt: 'You answer in one word.' });
    expect(systemText(server.requests[0]?.body)).toBe('You answer in one word.');
    await collect('hi', { systemPrompt: { type: 'preset', preset: 'claude_code', append: 'Always sign as Loop.' } });
    const system = systemText(server.requests[1]?.body);
    expect(system.endsWith('\n\nAlways sign as Loop.')).toBe(true);
    expect(system.length).toBeGreaterThan('Always sign as Loop.'.length + 100); // agentloop's own prompt before it
  });

  it('settles initializationResult() and supportedCommands() with Claude Code shapes', async () => {
    server.enqueue(answer('Hi.'));
    const stream = promptStream();
    const q = query({ prompt: stream, options: options() });
    const init = await q.initializationResult();
    expect(init).toMatchObject({ commands: [], agents: [], output_style: 'default', available_output_styles: ['default'] });
    expect(init.models.map((m) => m.value)).toEqual(['default', 'sonnet', 'opus', 'haiku']);
    expect(await q.supportedCommands()).toEqual([]);
    stream.push('hi');
    for await (const message of q) if (message.type === 'result') break;
    stream.end();
  });

  it('calls PreToolUse (deny, change the input), PostToolUse (context), UserPromptSubmit (context) and Stop (go on) hooks', async () => {
    server.enqueue(
      callTool(bashUse('t1', 'rm -rf notes'), bashUse('t2', 'echo original')),
      answer('Done?'),
      answer('Now done.'),
    );
    const seen: string[] = [];
    const messages = await collect('clean up', {
      hooks: {
        UserPromptSubmit: [{ hooks: [async (input) => (seen.push(`prompt:${'prompt' in input ? input.prompt : ''}`), { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'The user is in a hurry.' } })] }],
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              async (input) => {
                const command = String((input as { tool_input: { command: string } }).tool_input.command);
                seen.push(`pre:${(input as { tool_name: string }).tool_name}:${command}`);
                if (command.startsWith('rm')) return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no deleting here' } };
                return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'echo changed' } } };
              },
            ],
          },
        ],
        PostToolUse: [{ hooks: [async () => ({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'Checked by the host.' } })] }],
        Stop: [{ hooks: [async (input) => (seen.push(`stop:${String((input as { stop_hook_active: boolean }).stop_hook_active)}`), (input as { stop_hook_active: boolean }).stop_hook_active ? {} : { decision: 'block', reason: 'Say it is done.' })] }],
      },
    });
    expect(seen).toEqual(['prompt:clean up', 'pre:Bash:rm -rf notes', 'pre:Bash:echo original', 'stop:false', 'stop:true']);
    // The prompt the model got carries the added context; the denied call's reason and the changed input's output.
    expect(JSON.stringify(server.requests[0]?.body?.messages[0])).toContain('The user is in a hurry.');
    const results = lastToolResults(server.requests[1]?.body as RequestBody);
    expect(results[0]).toMatchObject({ is_error: true });
    expect(resultText(results[0]!)).toContain('no deleting here');
    expect(resultText(results[1]!)).toContain('changed');
    expect(resultText(results[1]!)).toContain('Checked by the host.');
    expect(resultText(results[0]!)).not.toContain('Checked by the host.'); // no PostToolUse for a call that never ran
    // The Stop hook's reason went to the model as the next user message of the same turn.
    expect(JSON.stringify(server.requests[2]?.body?.messages.at(-1))).toContain('Say it is done.');
    expect(resultOf(messages)).toMatchObject({ is_error: false, result: 'Now done.' });
  });

  it('asks canUseTool (--permission-prompt-tool stdio) about a writing command, not a read-only one; allow runs it, deny does not', async () => {
    server.enqueue(
      callTool(bashUse('t1', 'ls'), bashUse('t2', 'touch allowed.txt'), bashUse('t3', 'touch denied.txt')),
      answer('Done.'),
    );
    const asked: string[] = [];
    const messages = await collect('make files', {
      canUseTool: async (name, input) => {
        const command = String(input.command);
        asked.push(`${name}:${command}`);
        return command.includes('denied') ? { behavior: 'deny', message: 'not that one' } : { behavior: 'allow', updatedInput: input };
      },
    });
    expect(asked).toEqual(['Bash:touch allowed.txt', 'Bash:touch denied.txt']);
    expect(existsSync(join(project.dir, 'allowed.txt'))).toBe(true);
    expect(existsSync(join(project.dir, 'denied.txt'))).toBe(false);
    const results = lastToolResults(server.requests[1]?.body as RequestBody);
    expect(results.map((r) => r.is_error === true)).toEqual([false, false, true]);
    expect(resultText(results[2]!)).toContain('not that one');
    expect(resultOf(messages).permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 't3', tool_input: { command: 'touch denied.txt' } }]);
  });

  it("without a permission option denies what Claude Code's -p would ask about (a writing command, an MCP tool), as Claude Code 2.1.197 does; a read-only command runs", async () => {
    const calc = createSdkMcpServer({ name: 'calc', version: '1.0.0', tools: [tool('add', 'Adds', { a: z.number() }, async () => ({ content: [{ type: 'text', text: 'ran' }] }))] });
    server.enqueue(callTool(bashUse('t1', 'ls'), bashUse('t2', 'touch made.txt'), { type: 'tool_use', id: 'm1', name: 'mcp__calc__add', input: { a: 1 } }), answer('Done.'));
    const messages = await collect('go', { mcpServers: { calc } });
    expect(messages[0]).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'default' });
    expect(existsSync(join(project.dir, 'made.txt'))).toBe(false);
    const results = lastToolResults(server.requests[1]?.body as RequestBody);
    expect(results.map((r) => r.is_error === true)).toEqual([false, true, true]);
    expect(results.slice(1).map((r) => resultText(r))).toEqual([expect.stringMatching(/^Not run: not allowed in permission mode default/), expect.stringMatching(/^Not run: /)]);
    expect(resultOf(messages).permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 't2', tool_input: { command: 'touch made.txt' } },
      { tool_name: 'mcp__calc__add', tool_use_id: 'm1', tool_input: { a: 1 } },
    ]);
  });

  it('offers the tools of an in-process MCP server and calls them through mcp_message', async () => {
    const calc = createSdkMcpServer({
      name: 'calc',
      version: '1.0.0',
      tools: [tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))],
    });
    server.enqueue(callTool({ type: 'tool_use', id: 'm1', name: 'mcp__calc__add', input: { a: 2, b: 3 } }), answer('It is 5.'));
    const stream = promptStream();
    // Claude Code asks before an MCP tool runs (denied without a rule or canUseTool, as the next test shows).
    const q = query({ prompt: stream, options: options({ mcpServers: { calc }, allowedTools: ['mcp__calc__add'] }) });
    expect(await q.mcpServerStatus()).toMatchObject([{ name: 'calc', status: 'connected', tools: [{ name: 'add' }] }]);
    stream.push('what is 2 + 3?');
    const messages: SDKMessage[] = [];
    for await (const message of q) {
      messages.push(message);
      if (message.type === 'result') break;
    }
    stream.end();
    expect(server.requests[0]?.body?.tools?.map((t) => ('name' in t ? t.name : t.type))).toContain('mcp__calc__add');
    expect(toolText(1)).toBe('5');
    expect(messages.find((m) => m.type === 'system')).toMatchObject({ tools: expect.arrayContaining(['mcp__calc__add']) });
    expect(resultOf(messages)).toMatchObject({ result: 'It is 5.' });
  });

  it('interrupt() stops a running turn at once: the result says so and the next turn goes on with a valid history', async () => {
    server.enqueue(callTool(bashUse('t1', 'sleep 30')), answer('Next.'));
    const stream = promptStream();
    const q = query({ prompt: stream, options: options({ allowedTools: ['Bash(sleep:*)'] }) });
    stream.push('wait a long time');
    const started = Date.now();
    const messages: SDKMessage[] = [];
    for await (const message of q) {
      messages.push(message);
      if (message.type === 'assistant') await q.interrupt(); // the reply holds the sleep: stop it
      if (message.type === 'result' && messages.filter((m) => m.type === 'result').length === 1) stream.push('go on');
      if (message.type === 'result' && messages.filter((m) => m.type === 'result').length === 2) break;
    }
    stream.end();
    expect(Date.now() - started).toBeLessThan(20_000);
    const [first, second] = messages.filter((m) => m.type === 'result');
    expect(first).toMatchObject({ is_error: true, subtype: 'error_during_execution', errors: ['Interrupted.'] });
    expect(second).toMatchObject({ is_error: false, result: 'Next.' });
  });

  it('setMaxThinkingTokens() changes the next turns: a budget, 0 (off), null (back to the flags); a display; what the API would refuse is refused', async () => {
    server.enqueue(answer('One.'), answer('Two.'), answer('Three.'), answer('Four.'));
    const stream = promptStream();
    const q = query({ prompt: stream, options: options({ model: 'claude-sonnet-4-5', maxThinkingTokens: 3000 }) });
    const changes = [
      () => q.setMaxThinkingTokens(2048, 'omitted'),
      () => q.setMaxThinkingTokens(0),
      () => q.setMaxThinkingTokens(null, null),
    ];
    stream.push('one');
    let results = 0;
    for await (const message of q) {
      if (message.type !== 'result') continue;
      results += 1;
      if (results === 4) break;
      if (results === 1) await expect(q.setMaxThinkingTokens(500)).rejects.toThrow(/max_thinking_tokens 500 is below 1024/);
      if (results === 1) await expect(q.setMaxThinkingTokens(2048, 'highlights')).rejects.toThrow(/highlights/);
      await changes[results - 1]!();
      stream.push(`turn ${results + 1}`);
    }
    stream.end();
    expect(server.requests.map((r) => [r.body?.thinking, r.body?.max_tokens])).toEqual([
      [{ type: 'enabled', budget_tokens: 3000 }, 11000],
      [{ type: 'enabled', budget_tokens: 2048, display: 'omitted' }, 10048],
      [undefined, 8000],
      [{ type: 'enabled', budget_tokens: 3000 }, 11000],
    ]);
  });

  it('setModel() and setPermissionMode() change the next turn; a request agentloop cannot honour is refused with an error', async () => {
    server.enqueue(answer('First.'), callTool(bashUse('t1', 'touch planned.txt')), answer('Not allowed.'));
    const stream = promptStream();
    const q = query({ prompt: stream, options: options() });
    stream.push('one');
    let results = 0;
    for await (const message of q) {
      if (message.type !== 'result') continue;
      results += 1;
      if (results === 1) {
        await q.setModel('opus');
        await q.setPermissionMode('plan');
        await expect(q.setMaxThinkingTokens(1000)).rejects.toThrow(/max_thinking_tokens 1000 is below 1024/);
        stream.push('two');
      } else break;
    }
    stream.end();
    expect(server.requests.map((r) => r.body?.model)).toEqual(['claude-test', 'claude-opus-5-5', 'claude-opus-5-5']);
    expect(existsSync(join(project.dir, 'planned.txt'))).toBe(false);
    expect(toolText(2)).toContain('plan mode');
  });
});
