/**
 * An Agent SDK program written for Claude Code that names its file tools (issue 44), with agentloop as the engine,
 * against the local Messages API: `allowedTools` naming Read, Glob and Grep (Glob and Grep are offered then, and run
 * unasked), the `tools` option choosing the set, `permissionMode: 'acceptEdits'` with Write and Edit (the files are
 * written), and a PreToolUse hook with the matcher `Edit|Write` (the "format after edit" hook), which sees Claude Code's
 * names and inputs, and a PostToolUse hook that gets the tool's structured result.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import { lastToolResults, resultText } from '../../support/agentServer.js';
import type { MessagesServer, RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('sdkfiles', (p) => { project = p; server = p.server; }, { noViolations: true });

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const use = (id: string, name: string, input: Record<string, unknown>) => ({ content: [{ type: 'tool_use' as const, id, name, input }], stop_reason: 'tool_use' as const });

async function collect(prompt: string, extra: Options): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt, options: { pathToClaudeCodeExecutable: CLI, cwd: project.dir, env: project.env, ...extra } })) messages.push(message);
  return messages;
}

const offered = (index: number) => (server.requests[index]?.body?.tools ?? []).map((tool) => (tool as { name: string }).name);
const result = (index: number) => lastToolResults(server.requests[index]?.body as RequestBody)[0]!;
const denials = (messages: SDKMessage[]) => (messages.find((m) => m.type === 'result') as { permission_denials: unknown[] }).permission_denials;
const toolUseResults = (messages: SDKMessage[]) => messages.flatMap((m) => (m.type === 'user' && 'tool_use_result' in m ? [m.tool_use_result] : []));

describe('an Agent SDK program naming the file tools', () => {
  it("allowedTools ['Read', 'Glob', 'Grep']: Glob and Grep are offered and answer as Claude Code's", async () => {
    writeFileSync(join(project.dir, 'notes.md'), 'alpha\nbeta\n');
    server.enqueue(use('t1', 'Grep', { pattern: 'alpha' }), use('t2', 'Glob', { pattern: '*.md' }), use('t3', 'Read', { file_path: join(project.dir, 'notes.md') }), answer('Found it.'));
    const messages = await collect('find alpha', { allowedTools: ['Read', 'Glob', 'Grep'] });
    expect(offered(0)).toEqual(['bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep']);
    expect(resultText(result(1))).toBe('Found 1 file\nnotes.md');
    expect(resultText(result(2))).toBe('notes.md');
    expect(resultText(result(3))).toContain('1\talpha');
    expect(denials(messages)).toEqual([]);
    expect(toolUseResults(messages)[0]).toMatchObject({ mode: 'files_with_matches', filenames: ['notes.md'], numFiles: 1 });
  });

  it("the tools option chooses the set; a Read runs unasked, a tool left out is Claude Code's 'No such tool available'", async () => {
    writeFileSync(join(project.dir, 'notes.md'), 'alpha\n');
    server.enqueue(use('t1', 'Read', { file_path: join(project.dir, 'notes.md') }), use('t2', 'bash', { command: 'ls' }), answer('Read it.'));
    const messages = await collect('read notes', { tools: ['Read', 'Glob', 'Grep'] });
    expect(offered(0)).toEqual(['Read', 'Glob', 'Grep']);
    expect(result(1)).not.toHaveProperty('is_error');
    expect(resultText(result(1))).toContain('1\talpha');
    expect(resultText(result(2))).toBe('<tool_use_error>Error: No such tool available: bash. bash exists but is not enabled in this context. Use one of the available tools instead.</tool_use_error>');
    expect(denials(messages)).toEqual([]);
  });

  it("acceptEdits with Write and Edit, a PreToolUse hook on 'Edit|Write' and a PostToolUse hook: the files change, the hooks see Claude Code's names, inputs and results", async () => {
    const alpha = join(project.dir, 'alpha.txt');
    const hello = join(project.dir, 'hello.txt');
    writeFileSync(alpha, 'one two\n');
    server.enqueue(
      use('t1', 'Write', { file_path: hello, content: 'hello\n' }),
      use('t2', 'Read', { file_path: alpha }),
      use('t3', 'Edit', { file_path: alpha, old_string: 'two', new_string: 'three' }),
      answer('Edited.'),
    );
    const pre: string[] = [];
    const post: unknown[] = [];
    const messages = await collect('write and edit', {
      permissionMode: 'acceptEdits',
      hooks: {
        PreToolUse: [{ matcher: 'Edit|Write', hooks: [async (input) => (pre.push(`${(input as { tool_name: string }).tool_name} ${JSON.stringify((input as { tool_input: unknown }).tool_input)}`), {})] }],
        PostToolUse: [{ matcher: 'Edit', hooks: [async (input) => (post.push((input as { tool_response: unknown }).tool_response), {})] }],
      },
    });
    expect(readFileSync(hello, 'utf8')).toBe('hello\n');
    expect(readFileSync(alpha, 'utf8')).toBe('one three\n');
    expect(pre).toEqual([`Write ${JSON.stringify({ file_path: hello, content: 'hello\n' })}`, `Edit ${JSON.stringify({ file_path: alpha, old_string: 'two', new_string: 'three' })}`]);
    expect(post).toEqual([expect.objectContaining({ filePath: alpha, oldString: 'two', newString: 'three' })]);
    expect(denials(messages)).toEqual([]);
  });

  it('without acceptEdits, a Write is denied in -p, as Claude Code denies it, and listed in permission_denials', async () => {
    server.enqueue(use('t1', 'Write', { file_path: join(project.dir, 'no.txt'), content: 'x' }), answer('Could not.'));
    const messages = await collect('write', {});
    expect(result(1)).toMatchObject({ is_error: true });
    expect(denials(messages)).toEqual([expect.objectContaining({ tool_name: 'Write', tool_use_id: 't1' })]);
  });

  it("canUseTool is asked about a Write with Claude Code 2.1.197's suggestions (test/permissions/claudeSuggestions.json)", async () => {
    server.enqueue(use('t1', 'Write', { file_path: join(project.dir, 'yes.txt'), content: 'y' }), answer('Written.'));
    const asked: unknown[] = [];
    await collect('write', {
      canUseTool: async (toolName, input, { suggestions }) => {
        asked.push({ toolName, suggestions });
        return { behavior: 'allow', updatedInput: input };
      },
    });
    const recorded = JSON.parse(readFileSync(new URL('../../permissions/claudeSuggestions.json', import.meta.url), 'utf8')) as { cases: Record<string, Array<{ suggestions: unknown }>> };
    expect(asked).toEqual([{ toolName: 'Write', suggestions: recorded.cases['Write a new file']?.[0]?.suggestions }]);
    expect(readFileSync(join(project.dir, 'yes.txt'), 'utf8')).toBe('y');
  });
});
