/**
 * Claude Code's own `--resume` on a session agentloop wrote (its mirror in Claude Code's place and shape,
 * src/transcript/claudeMirror.ts): Claude Code 2.1.197's binary, run offline against the local Messages API with the
 * same CLAUDE_CONFIG_DIR and working directory, `claude --resume ID -p next`, sends the whole earlier conversation
 * (the prompt, the tool call, its result, the answer, and what agentloop's own `--resume` added), then the new
 * prompt. The session's model must be one Claude Code knows: one it does not (agentloop's tests' `claude-test`) it
 * does not restore, and its line saying so goes into its request as a `system` message, which the API refuses. Skipped when the binary is absent
 * (installed by `npm ci --prefix bench/peers`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_EXE } from '../../bench/peersSides.js';
import { startCli } from '../support/cli.js';
import { mirrorPath } from '../../src/transcript/claudeMirror.js';
import { isSummaryBody } from '../support/compaction.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('claude-resume', (p) => (project = p));

/** Runs Claude Code's binary with `args` in the project, in a session of its own (it signals its process group as it ends). */
async function claude(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(CLAUDE_EXE, args, {
    cwd: project.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ANTHROPIC_API_KEY: 'sk-ant-test-resume', ANTHROPIC_BASE_URL: project.server.url, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

/** A request's messages as role and blocks, each block reduced to what the conversation says (no cache marks, no ids of Claude Code's own). */
function conversation(body: RequestBody): unknown[] {
  return body.messages.map((m) => ({
    role: m.role,
    content: (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content)
      .filter((b) => !(b.type === 'text' && b.text.startsWith('<system-reminder>')))
      .map((b) => {
        if (b.type === 'text') return { type: 'text', text: b.text };
        if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
        if (b.type === 'tool_result') return { type: 'tool_result', tool_use_id: b.tool_use_id, content: typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => (c.type === 'text' ? c.text : c.type)).join('') };
        return { type: b.type };
      }),
  }));
}

/** A session of agentloop's with a tool call ('first'), its mirror in a config folder of its own; a model Claude Code knows. */
async function firstSession(): Promise<{ id: string; configDir: string; env: NodeJS.ProcessEnv }> {
  const configDir = join(project.dir, '.claude-config');
  mkdirSync(configDir);
  // A model Claude Code knows: one it does not is "not restored", and the line saying so goes in its request as a system message.
  const env = { ...project.env, CLAUDE_CONFIG_DIR: configDir, MODEL_ID: 'claude-sonnet-4-5-20250929' };
  project.server.enqueue(
    { content: [{ type: 'text', text: 'I will look.' }, { type: 'tool_use', id: 'toolu_01echo', name: 'bash', input: { command: 'echo hi' } }], stop_reason: 'tool_use' },
    { content: [{ type: 'text', text: 'It said hi.' }], stop_reason: 'end_turn' },
  );
  const first = await startCli(['-p', 'first', '--allowedTools', 'Bash', '--output-format', 'json'], { cwd: project.dir, env }).done;
  expect(first.code, first.stderr).toBe(0);
  return { id: (JSON.parse(first.stdout) as { session_id: string }).session_id, configDir, env };
}

/** Claude Code's own `--resume ID -p next` on the mirror: its run, and the request that carries the conversation. */
async function claudeNext(id: string, configDir: string): Promise<{ run: Awaited<ReturnType<typeof claude>>; main: RequestBody }> {
  const asked = project.server.requests.length;
  for (let i = 0; i < 4; i++) project.server.enqueue({ content: [{ type: 'text', text: 'next done' }], stop_reason: 'end_turn' });
  const run = await claude(['--resume', id, '-p', 'next', '--output-format', 'json'], { HOME: join(project.dir, '.claude-home'), CLAUDE_CONFIG_DIR: configDir });
  expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
  const bodies = project.server.requests.slice(asked).flatMap((r) => ((r.body as RequestBody | undefined)?.messages ? [r.body as RequestBody] : []));
  const main = bodies.find((b) => JSON.stringify(b.messages.at(-1)).includes('next'));
  expect(main, JSON.stringify(bodies.map((b) => b.messages.length))).toBeDefined();
  return { run, main: main as RequestBody };
}

describe.skipIf(!existsSync(CLAUDE_EXE))("Claude Code's --resume on agentloop's session", () => {
  it('sends the whole earlier conversation (two agentloop runs: a tool call, a resume), then the new prompt', async () => {
    const { id, configDir, env } = await firstSession();
    // agentloop's own resume goes on in the same mirror, after its last line.
    project.server.enqueue({ content: [{ type: 'text', text: 'Second done.' }], stop_reason: 'end_turn' });
    const second = await startCli(['-p', 'second', '--resume', id], { cwd: project.dir, env }).done;
    expect(second.code, second.stderr).toBe(0);
    const { run, main } = await claudeNext(id, configDir);
    expect(conversation(main)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'I will look.' }, { type: 'tool_use', id: 'toolu_01echo', name: 'bash', input: { command: 'echo hi' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01echo', content: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'It said hi.' }] },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Second done.' }] },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ]);
    expect(JSON.parse(run.stdout)).toMatchObject({ session_id: id, result: 'next done' });
  }, 120_000);

  it('after agentloop compacts, it reads from the boundary: the summary, then what came after it, then the new prompt', async () => {
    const { id, configDir, env } = await firstSession();
    project.server.enqueue({ content: [{ type: 'text', text: '<analysis>a</analysis>\n<summary>The user ran echo hi; it said hi.</summary>' }], stop_reason: 'end_turn' });
    const input = `${JSON.stringify({ type: 'user', message: { role: 'user', content: '/compact keep the output' } })}\n`;
    const compact = await startCli(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--resume', id], { cwd: project.dir, env, input }).done;
    expect(compact.code, compact.stderr).toBe(0);
    expect(isSummaryBody(project.server.requests.at(-1)?.body)).toBe(true);
    project.server.enqueue({ content: [{ type: 'text', text: 'After done.' }], stop_reason: 'end_turn' });
    const after = await startCli(['-p', 'after', '--resume', id], { cwd: project.dir, env }).done;
    expect(after.code, after.stderr).toBe(0);
    // The mirror: Claude Code's boundary line (no parent, tied back by logicalParentUuid), then the summary line.
    const lines = readFileSync(mirrorPath(configDir, realpathSync(project.dir), id), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const at = lines.findIndex((l) => l.subtype === 'compact_boundary');
    expect(lines[at]).toMatchObject({ type: 'system', parentUuid: null, logicalParentUuid: expect.any(String), content: 'Conversation compacted', compactMetadata: { trigger: 'manual', preTokens: expect.any(Number), postTokens: expect.any(Number) } });
    expect(lines[at + 1]).toMatchObject({ type: 'user', parentUuid: lines[at]?.uuid, isCompactSummary: true, isVisibleInTranscriptOnly: true });
    const { main } = await claudeNext(id, configDir);
    const sent = conversation(main) as Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
    // The summary first; the prompt it replaced is not sent again (the exchange after it is: agentloop kept it whole).
    expect(sent[0]?.content.map((b) => b.text ?? '').join('')).toContain('The user ran echo hi; it said hi.');
    expect(sent).not.toContainEqual({ role: 'user', content: [{ type: 'text', text: 'first' }] });
    expect(sent.slice(-3)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'after' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'After done.' }] },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ]);
  }, 120_000);
});

