/**
 * The Agent SDK's in-process MCP servers (`createSdkMcpServer`) with agentloop as the engine: a call's result becomes
 * the tool_result as an MCP server's does for `--mcp-config` (tools/mcp/tools.ts outputOf): an image goes to the model
 * as an image block, what the API cannot take (audio, an image whose data is not its type) is named with its type and
 * size, never its base64 poured into the model's context as text.
 */
import { createSdkMcpServer, query, tool, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import { answerFromResults, lastToolResults } from '../../support/agentServer.js';
import type { RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';

let project: CliProject;
cliProjectPerTest('sdk-mcp', (p) => (project = p), { noViolations: true });

/** One user message, then the stream stays open until the result (in-process servers need streaming input). */
async function* prompt(text: string, done: Promise<void>): AsyncIterable<SDKUserMessage> {
  yield { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' };
  await done;
}

describe("the Agent SDK's in-process MCP servers", () => {
  it('give an image to the model as an image block; audio and a broken image as their type and size, not their base64', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const data = Buffer.alloc(3000, 7).toString('base64');
    const media = createSdkMcpServer({
      name: 'media',
      version: '1.0.0',
      tools: [
        tool('picture', 'Draws a picture.', {}, async () => ({
          content: [
            { type: 'text', text: 'drawn' },
            { type: 'image', data: png, mimeType: 'image/png' },
            { type: 'image', data, mimeType: 'image/png' },
            { type: 'audio', data, mimeType: 'audio/wav' },
          ],
        })),
      ],
    });
    project.server.enqueue({ content: [{ type: 'tool_use', id: 'p1', name: 'mcp__media__picture', input: {} }], stop_reason: 'tool_use' }, answerFromResults);
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const messages: SDKMessage[] = [];
    const q = query({ prompt: prompt('draw', done), options: { pathToClaudeCodeExecutable: CLI, cwd: project.dir, env: project.env, mcpServers: { media }, allowedTools: ['mcp__media'] } });
    for await (const message of q) {
      messages.push(message);
      if (message.type === 'result') break;
    }
    finish();
    const [result] = lastToolResults(project.server.requests[1]?.body as RequestBody);
    expect(result?.is_error).toBeFalsy();
    expect(result?.content).toEqual([
      { type: 'text', text: 'drawn' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'text', text: '[image image/png, 3000 bytes, not shown: its data is not image/png]' },
      { type: 'text', text: '[audio audio/wav, 3000 bytes, not shown]' },
    ]);
    expect(JSON.stringify(project.server.requests[1]?.body)).not.toContain(data.slice(0, 100));
    expect(messages.at(-1)).toMatchObject({ type: 'result', is_error: false });
  }, 120_000);

  it('bound each call by MCP_TOOL_TIMEOUT, as a --mcp-config server is: a call that never ends is an is_error result and the run goes on', async () => {
    let release = () => {};
    const never = new Promise<void>((resolve) => (release = resolve));
    const slow = createSdkMcpServer({
      name: 'slow',
      version: '1.0.0',
      tools: [
        tool('hang', 'Never answers.', {}, async () => {
          await never;
          return { content: [{ type: 'text', text: 'late' }] };
        }),
        tool('quick', 'Answers at once.', {}, async () => ({ content: [{ type: 'text', text: 'quick answer' }] })),
      ],
    });
    project.server.enqueue(
      { content: [{ type: 'tool_use', id: 'h1', name: 'mcp__slow__hang', input: {} }], stop_reason: 'tool_use' },
      { content: [{ type: 'tool_use', id: 'q1', name: 'mcp__slow__quick', input: {} }], stop_reason: 'tool_use' },
      answerFromResults,
    );
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const messages: SDKMessage[] = [];
    const env = { ...project.env, MCP_TOOL_TIMEOUT: '1500' };
    const q = query({ prompt: prompt('wait', done), options: { pathToClaudeCodeExecutable: CLI, cwd: project.dir, env, mcpServers: { slow }, allowedTools: ['mcp__slow'] } });
    try {
      for await (const message of q) {
        messages.push(message);
        if (message.type === 'result') break;
      }
    } finally {
      finish();
      release();
    }
    const [late] = lastToolResults(project.server.requests[1]?.body as RequestBody);
    expect(late).toMatchObject({ tool_use_id: 'h1', is_error: true });
    expect(JSON.stringify(late?.content)).toMatch(/MCP server slow: tool hang failed: .*timed out/i);
    const [quick] = lastToolResults(project.server.requests[2]?.body as RequestBody);
    expect(quick).toMatchObject({ tool_use_id: 'q1', content: 'quick answer' });
    expect(messages.at(-1)).toMatchObject({ type: 'result', is_error: false });
  }, 120_000);
});
