/**
 * The flags the Claude Agent SDK passes for its options, with the real SDK driving the built CLI against the local
 * Messages API: what agentloop honours (settingSources, additionalDirectories with acceptEdits, persistSession: false,
 * thinking and maxThinkingTokens, allowDangerouslySkipPermissions, tools; includeHookEvents in
 * test/cli/sdk/sequences.process.test.ts) and what it refuses with one line naming the option (effort): the program's error says
 * it, nothing is silently ignored.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { bashUse } from '../../support/agentServer.js';
import type { MessagesServer, ScriptedBlock } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { collectSdk } from '../../support/sdkCollect.js';
import { testUsers } from '../../support/users.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('sdkflags', (p) => { project = p; server = p.server; }, { noViolations: true });

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });

const collect = (prompt: string, extra: Options = {}) => collectSdk(project, prompt, extra);

const resultOf = (messages: SDKMessage[]) => messages.find((m) => m.type === 'result') as Extract<SDKMessage, { type: 'result' }> | undefined;

/** Every file name under `dir`, at any depth. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('the Agent SDK options agentloop honours', () => {
  it.each(testUsers())('additionalDirectories (--add-dir), as $name: acceptEdits runs file commands inside an added directory, not outside the listed ones', async (user) => {
    if (user.skip) return void console.log(`skipped as ${user.name}: ${user.skip}`);
    const added = join(project.dir, '..', `${project.dir.split('/').pop()}-added`);
    const other = join(project.dir, '..', `${project.dir.split('/').pop()}-other`);
    mkdirSync(added);
    mkdirSync(other);
    // As nobody, every folder is nobody's: what keeps not.txt from being made is agentloop's decision, not the system's.
    if (user.owner) execFileSync('chown', ['-R', user.owner, project.dir, added, other]);
    const [program, ...prefix] = user.prefix;
    const spawnAs: Options['spawnClaudeCodeProcess'] = program
      ? ({ command, args, cwd, env, signal }) => spawn(program, [...prefix, command, ...args], { cwd, env, signal, stdio: ['pipe', 'pipe', 'inherit'] })
      : undefined;
    try {
      server.enqueue({ content: [bashUse('t1', `touch ${added}/made.txt`), bashUse('t2', `touch ${other}/not.txt`)], stop_reason: 'tool_use' }, answer('Done.'));
      const { messages, thrown } = await collect('make files', {
        model: 'claude-test', permissionMode: 'acceptEdits', additionalDirectories: [added], settingSources: ['project'], ...(spawnAs ? { spawnClaudeCodeProcess: spawnAs } : {}),
      });
      expect(thrown).toBeUndefined();
      expect(existsSync(join(added, 'made.txt'))).toBe(true);
      expect(statSync(join(added, 'made.txt')).uid).toBe(user.owner ? 65534 : process.getuid?.());
      expect(existsSync(join(other, 'not.txt'))).toBe(false);
      expect(resultOf(messages)?.permission_denials.map((d) => d.tool_use_id)).toEqual(['t2']);
    } finally {
      for (const dir of [added, other]) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('persistSession: false (--no-session-persistence) saves no transcript; without it the session is saved', async () => {
    server.enqueue(answer('Unsaved.'), answer('Saved.'));
    const unsaved = resultOf((await collect('hi', { model: 'claude-test', persistSession: false, thinking: { type: 'disabled' }, allowDangerouslySkipPermissions: true })).messages);
    expect(unsaved).toMatchObject({ is_error: false, result: 'Unsaved.' });
    expect(filesUnder(project.home).filter((f) => f.includes(unsaved!.session_id))).toEqual([]);
    const saved = resultOf((await collect('hi', { model: 'claude-test' })).messages);
    expect(filesUnder(project.home).filter((f) => f.includes(saved!.session_id)).length).toBeGreaterThan(0);
  });
});

describe('extended thinking: maxThinkingTokens and thinking (the server holds each request to the API\'s thinking rules)', () => {
  const thought: ScriptedBlock = { type: 'thinking', thinking: 'ls will do.', signature: 'EqQBCkYIBxgCKkD+sdk/1==' };
  const redacted: ScriptedBlock = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/sdk' };
  const thought2: ScriptedBlock = { type: 'thinking', thinking: 'One file.', signature: 'EqQBCkYIBxgCKkD+sdk/2==' };
  const toolTurn = { content: [thought, redacted, bashUse('t1', 'ls')], stop_reason: 'tool_use' as const };
  const answerTurn = { content: [thought2, { type: 'text' as const, text: 'There is one file.' }], stop_reason: 'end_turn' as const };
  const contents = (messages: SDKMessage[]) => messages.flatMap((m) => (m.type === 'assistant' ? [m.message.content] : []));

  it('maxThinkingTokens: a thinking + tool_use turn, the blocks carried back unchanged; the program gets each block', async () => {
    server.enqueue(toolTurn, answerTurn);
    const { messages, thrown } = await collect('list the files', { model: 'claude-sonnet-4-5', maxThinkingTokens: 2048 });
    expect(thrown).toBeUndefined();
    expect(server.requests.map((r) => [r.body?.thinking, r.body?.max_tokens])).toEqual([[{ type: 'enabled', budget_tokens: 2048 }, 10048], [{ type: 'enabled', budget_tokens: 2048 }, 10048]]);
    expect(server.requests[1]?.body?.messages[1]).toEqual({ role: 'assistant', content: [thought, redacted, bashUse('t1', 'ls')] });
    expect(contents(messages)).toEqual([[thought], [redacted], [{ ...bashUse('t1', 'ls'), name: 'Bash' }], [thought2], [{ type: 'text', text: 'There is one file.' }]]);
    expect(resultOf(messages)).toMatchObject({ is_error: false, result: 'There is one file.' });
  });

  it('thinking: adaptive, and enabled with a budget on a model that thinks adaptively, ask for {type: adaptive}; display is passed on', async () => {
    server.enqueue(answerTurn, answerTurn);
    expect((await collect('hi', { model: 'claude-opus-4-8', thinking: { type: 'adaptive', display: 'summarized' } })).thrown).toBeUndefined();
    expect((await collect('hi', { model: 'claude-opus-4-8', thinking: { type: 'enabled', budgetTokens: 2048 } })).thrown).toBeUndefined();
    expect(server.requests.map((r) => r.body?.thinking)).toEqual([{ type: 'adaptive', display: 'summarized' }, { type: 'adaptive' }]);
  });

  it('maxThinkingTokens below the API\'s least is refused with one line, before any request', async () => {
    const { messages, thrown } = await collect('hi', { model: 'claude-sonnet-4-5', maxThinkingTokens: 1000 });
    expect(messages).toEqual([]);
    expect(thrown).toContain('agentloop: --max-thinking-tokens 1000 is below 1024');
    expect(server.requests).toEqual([]);
  });
});

describe('the Agent SDK option tools (--tools)', () => {
  const offered = () => project.server.requests.map((r) => (r.body?.tools ?? []).map((tool) => (tool as { name: string }).name));
  const initTools = (messages: SDKMessage[]) => messages.find((m) => m.type === 'system' && m.subtype === 'init')?.tools;

  it.each([
    ['[] offers no built-in tool', [], [], []],
    ["['Bash'] offers Bash", ['Bash'], ['bash'], ['Bash']],
    ["the claude_code preset offers every built-in tool", { type: 'preset', preset: 'claude_code' }, ['bash', 'Read', 'Write', 'Edit'], ['Bash', 'Read', 'Write', 'Edit']],
  ] as [string, Options['tools'], string[], string[]][])('%s', async (_name, tools, request, init) => {
    server.enqueue(answer('Fine.'));
    const { messages, thrown } = await collect('hi', { model: 'claude-test', tools });
    expect(thrown).toBeUndefined();
    expect(resultOf(messages)).toMatchObject({ is_error: false, result: 'Fine.' });
    expect(offered()).toEqual([request]);
    expect(initTools(messages)).toEqual(init);
  });
});

describe('the Agent SDK options agentloop has no feature behind: taken, the run goes on, one line on stderr says so', () => {
  it.each([
    ['effort', { effort: 'high' }, '--effort: agentloop sends no effort setting'],
    ['betas', { betas: ['context-1m-2025-08-07'] }, '--betas: agentloop sends no beta headers'],
  ] as [string, Options, string][])('%s', async (_name, extra, line) => {
    server.enqueue(answer('Fine.'));
    let stderr = '';
    const { messages, thrown } = await collect('hi', { model: 'claude-test', ...extra, stderr: (data: string) => void (stderr += data) });
    expect(thrown).toBeUndefined();
    expect(resultOf(messages)).toMatchObject({ is_error: false, result: 'Fine.' });
    expect(stderr).toContain(`agentloop: ${line}`);
  });
});
