/**
 * Subagents from every place Claude Code takes them, with the built CLI against the local Messages API: the Agent
 * SDK's `agents` (its initialize request: `initializationResult()` lists them, the model's Agent call runs one),
 * `--agents JSON` on the command line, `.claude/agents/*.md` of the project where `--setting-sources` reads it; a bad
 * definition is one line naming what is wrong, before anything runs. (The message sequence beside Claude Code's is
 * test/cli/sdk/sequences.process.test.ts, scenario `agents`.)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../../support/cli.js';
import type { MessagesServer, RequestBody, Step } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('agents', (p) => { project = p; server = p.server; }, { noViolations: true });

const text = (words: string): Step => ({ content: [{ type: 'text', text: words }], stop_reason: 'end_turn' });
const agentCall = (type: string): Step => ({ content: [{ type: 'tool_use', id: 'toolu_A1', name: 'Agent', input: { description: 'Review', prompt: 'Review it', subagent_type: type } }], stop_reason: 'tool_use' });
const toolNames = (body: RequestBody | undefined) => (body?.tools ?? []).map((t) => ('name' in t ? t.name : ''));
const lines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('subagents from the Agent SDK, --agents and .claude/agents', () => {
  it("the SDK's agents: initializationResult lists them; the Agent call runs the agent with its own request", async () => {
    server.enqueue(agentCall('reviewer'), text('Looks good.'), text('The reviewer agrees.'));
    let end: () => void = () => {};
    async function* prompts(): AsyncIterable<SDKUserMessage> {
      yield { type: 'user', message: { role: 'user', content: 'review' }, parent_tool_use_id: null, session_id: '' };
      await new Promise<void>((resolve) => (end = resolve));
    }
    const q = query({ prompt: prompts(), options: { pathToClaudeCodeExecutable: CLI, cwd: project.dir, env: project.env, agents: { reviewer: { description: 'Reviews a file', prompt: 'You review.', tools: ['Read'], model: 'haiku' } } } });
    const init = await q.initializationResult();
    expect(init.agents).toEqual([{ name: 'reviewer', description: 'Reviews a file', model: 'haiku' }]);
    const kinds: string[] = [];
    for await (const message of q) {
      kinds.push(message.type === 'system' ? `system/${message.subtype}` : message.type);
      if (message.type === 'system' && message.subtype === 'init') expect(message.agents).toEqual(['reviewer']);
      if (message.type === 'result') break;
    }
    end();
    expect(kinds).toContain('system/task_started');
    const [parent, child, after] = server.requests.map((r) => r.body);
    expect(toolNames(parent)).toContain('Agent');
    expect(toolNames(child)).toEqual(['Read']);
    expect(child?.model).toBe('claude-haiku-5-5');
    expect(JSON.stringify(after?.messages.at(-1))).toContain('Looks good.');
  });

  it('--agents JSON: the stream-json lines name the Agent call as the parent of the child lines', async () => {
    server.enqueue(agentCall('helper'), text('Done inside.'), text('Done.'));
    const agents = JSON.stringify({ helper: { description: 'Helps', prompt: 'You help.', tools: [] } });
    const run = await runCli(['-p', '--output-format', 'stream-json', '--verbose', '--agents', agents, 'go'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    const out = lines(run.stdout);
    expect(out[0]).toMatchObject({ type: 'system', subtype: 'init', agents: ['helper'] });
    expect(out.map((l) => `${String(l.type)}${l.subtype ? `/${String(l.subtype)}` : ''}`)).toEqual(['system/init', 'assistant', 'system/task_started', 'user', 'system/task_updated', 'system/task_notification', 'user', 'assistant', 'result/success']);
    expect(out[3]).toMatchObject({ parent_tool_use_id: 'toolu_A1', subagent_type: 'helper', message: { content: [{ type: 'text', text: 'Review it' }] } });
    expect(out[6]).toMatchObject({ parent_tool_use_id: null, tool_use_result: { status: 'completed', agentType: 'helper', content: [{ type: 'text', text: 'Done inside.' }] } });
    expect(toolNames(server.requests[1]?.body)).toEqual([]);
  });

  it(".claude/agents/*.md of the project (front matter, the body the prompt); --setting-sources user leaves them out", async () => {
    mkdirSync(join(project.dir, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(project.dir, '.claude', 'agents', 'tester.md'), '---\nname: tester\ndescription: "Runs the tests"\ntools: Bash, Read\nmodel: inherit\n---\nYou run the tests.\n');
    writeFileSync(join(project.dir, '.claude', 'agents', 'broken.md'), 'no front matter here\n');
    server.enqueue(agentCall('tester'), text('All pass.'), text('Fine.'));
    const run = await runCli(['-p', '--model', 'claude-test', 'go'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('broken.md: no front matter');
    const [parent, child] = server.requests.map((r) => r.body);
    expect(JSON.stringify(parent?.tools?.find((t) => 'name' in t && t.name === 'Agent'))).toContain('- tester: Runs the tests (Tools: Bash, Read)');
    expect(JSON.stringify(child?.system)).toContain('You run the tests.');
    expect(toolNames(child)).toEqual(['bash', 'Read']);
    expect(child?.model).toBe('claude-test');
    server.enqueue(text('No agents.'));
    const userOnly = await runCli(['-p', '--setting-sources', 'user', 'go'], { cwd: project.dir, env: project.env });
    expect(toolNames(server.requests.at(-1)?.body)).not.toContain('Agent');
    expect(userOnly.code).toBe(0);
  });

  it('a bad definition is a usage error naming what is wrong, and nothing runs', async () => {
    const bad = await runCli(['-p', '--agents', '{"r":{"description":"d"}}', 'go'], { cwd: project.dir, env: project.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('agentloop: --agents.r.prompt must be a non-empty string');
    const unknown = await runCli(['-p', '--agents', '{"r":{"description":"d","prompt":"p","skills":["x"]}}', 'go'], { cwd: project.dir, env: project.env });
    expect(unknown.stderr).toContain('agentloop does not support --agents.r.skills');
    expect(server.requests).toHaveLength(0);
  });
});
