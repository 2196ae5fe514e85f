/**
 * A CLI run (`-p --output-format stream-json --verbose`) whose MCP server is killed while a call of it runs, whatever
 * the transport, and the checks every such run must pass: the CLI ends 0 and all three histories are valid (the
 * requests the Messages API server saw: `noViolations` of the project; the transcript, restored as `--resume` would;
 * the conversation the stream-json lines tell, the prompt first), each holding the killed call's tool_result bound to
 * its tool_use. Used by the stdio, http and sse tests (test/cli/mcp{Stdio,Http,Sse}.test.ts).
 */
import { expect } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { startCli, type CliRun } from './cli.js';
import type { CliProject } from './project.js';

/** The server under the call: resolves once it has taken a call; kills it. */
export interface KilledServer {
  called(): Promise<void>;
  kill(): Promise<void>;
}

type Line = Record<string, unknown> & { type?: string; message?: { id?: string; role: 'user' | 'assistant'; content: unknown[] } };

export const jsonLines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Line);

/**
 * Runs the CLI with `args` (the prompt `prompt` last, stream-json added), kills `server` once it has taken a call,
 * and checks the run: exit 0, the three histories valid, `killedId`'s tool_result in each with `is_error`.
 */
export async function runKilledMidCall(
  project: CliProject,
  args: string[],
  prompt: string,
  server: KilledServer,
  options: { killedId: string; env?: Record<string, string> },
): Promise<CliRun> {
  const all = ['-p', ...args, '--output-format', 'stream-json', '--verbose', prompt];
  const cli = startCli(all, { cwd: project.dir, env: { ...project.env, ...options.env } });
  const first = await Promise.race([server.called().then(() => 'called'), cli.done.then((r) => `the CLI ended: ${r.stderr}`)]);
  expect(first).toBe('called');
  await server.kill();
  const run = await cli.done;
  expect(run.code, run.stderr).toBe(0);
  for (const [which, messages] of Object.entries(histories(project, run.stdout, prompt))) {
    expect(historyProblems(messages), which).toEqual([]);
    const killed = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b.type === 'tool_result' && b.tool_use_id === options.killedId);
    expect(killed, which).toMatchObject({ is_error: true });
  }
  return run;
}

/** The run's conversation as its transcript restores it and as its stream-json lines tell it. */
function histories(project: CliProject, stdout: string, prompt: string): Record<string, MessageParam[]> {
  const lines = jsonLines(stdout);
  const sessionId = String(lines[0]?.session_id);
  const transcript = readTranscript(findSession(project.home, sessionId));
  expect(transcript.problems).toEqual([]);
  const restored = restoreConversation(transcript.records);
  expect(restored.problems).toEqual([]);
  return { transcript: restored.messages, 'stream-json': streamJsonHistory(lines, prompt) };
}

/** The prompt, then each `user` line's message and each reply (its `assistant` lines, one per block, joined by message id). */
export function streamJsonHistory(lines: readonly Line[], prompt: string): MessageParam[] {
  const messages: { role: 'user' | 'assistant'; content: unknown[]; id?: string }[] = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
  for (const { type, message } of lines) {
    if ((type !== 'user' && type !== 'assistant') || !message) continue;
    const last = messages.at(-1)!;
    const { content } = message;
    if (type === 'assistant' && last.role === 'assistant' && last.id === message.id) last.content.push(...content);
    else messages.push({ role: message.role, content: [...content], ...(message.id ? { id: message.id } : {}) });
  }
  return messages.map(({ role, content }) => ({ role, content }) as MessageParam);
}
