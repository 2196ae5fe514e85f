/**
 * The prompt is durable the moment a run starts (issue 11, item 1): the CLI as a real process
 * against the local Messages API server, its transcript cut right after the prompt (by kill -9
 * at that write, or by cutting the file), then `--continue`d.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliProjectPerTest } from '../support/project.js';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { transcripts, waitFor } from '../support/sessions.js';

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

cliProjectPerTest('prompt', (project) => ({ server, dir, home, env } = project));

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const onlyTranscript = () => {
  const all = [...transcripts(home).entries()];
  expect(all).toHaveLength(1);
  return { path: join(home, 'sessions', all[0]?.[0] as string), text: all[0]?.[1] as string };
};
const userTexts = (i: number) =>
  (server.requests[i]?.body?.messages ?? []).map((m) => (typeof m.content === 'string' ? [m.content] : m.content.map((b) => (b.type === 'text' ? b.text : b.type))));

/** Runs `-p "important task"` and leaves the transcript as a kill right after the prompt would. */
async function cutAfterPrompt(how: 'kill' | 'file'): Promise<string> {
  if (how === 'kill') {
    // Records 1 and 2 (header and prompt) are one write: the CLI stops dead right after it.
    const run = startCli(['-p', 'important task'], { cwd: dir, env: { ...env, AGENTLOOP_TEST_PAUSE_AT_RECORD: '2' } });
    await waitFor('the pause at record 2', () => run.output().stderr.includes('paused at record 2'));
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
  } else {
    server.enqueue(answer('Done.'));
    expect((await runCli(['-p', 'important task'], { cwd: dir, env })).code).toBe(0);
    const { path, text } = onlyTranscript();
    writeFileSync(path, `${text.split('\n').slice(0, 2).join('\n')}\n`);
  }
  const { text } = onlyTranscript();
  expect(text.trimEnd().split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['session', 'prompt']);
  return text;
}

describe('a run cut right after its prompt was saved', () => {
  for (const how of ['kill', 'file'] as const) {
    it(`(${how === 'kill' ? 'kill -9 at that write' : 'the file cut there'}) --continue asks the model the same prompt`, async () => {
      await cutAfterPrompt(how);
      const before = server.requests.length;
      server.enqueue(answer('Did the important task.'));
      const resumed = await runCli(['--continue', '--output-format', 'json'], { cwd: dir, env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain('the prompt "important task" had not reached the history: added');
      expect(JSON.parse(resumed.stdout)).toMatchObject({ result: 'Did the important task.', num_turns: 1 });
      expect(userTexts(before)).toEqual([['important task']]);
      expect(server.violations).toEqual([]);
      // The transcript now holds the prompt as a message, so a later cut cannot lose it either.
      const records = onlyTranscript().text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records.filter((r) => r.type === 'prompt')).toHaveLength(1);
      expect(records.find((r) => r.type === 'message')).toMatchObject({ index: 0, synthetic: true });
      expect(records.at(-1)).toMatchObject({ type: 'result', exitReason: 'completed' });
    });
  }

  it('--continue -p retry sends the unanswered prompt and the new one, in one user message', async () => {
    await cutAfterPrompt('kill');
    server.enqueue(answer('Both done.'));
    const resumed = await runCli(['--continue', '-p', 'retry', '--output-format', 'json'], { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(userTexts(0)).toEqual([['important task', 'retry']]);
    expect(server.violations).toEqual([]);
    // Without a new prompt now: the conversation is complete, nothing is sent.
    const again = await runCli(['--continue', '--output-format', 'json'], { cwd: dir, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/ended with the model's answer/);
    expect(server.requests).toHaveLength(1);
  });

  it('a transcript with its header only: --continue says there is no question yet; with -p it starts', async () => {
    server.enqueue(answer('Hi.'));
    expect((await runCli(['-p', 'hi'], { cwd: dir, env })).code).toBe(0);
    const { path, text } = onlyTranscript();
    writeFileSync(path, `${text.split('\n')[0]}\n`);
    const bare = await runCli(['--continue', '--output-format', 'json'], { cwd: dir, env });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/has no question yet: ask the next question with -p/);
    server.enqueue(answer('Started.'));
    const started = await runCli(['--continue', '-p', 'retry', '--output-format', 'json'], { cwd: dir, env });
    expect(started.code, started.stderr).toBe(0);
    expect(userTexts(1)).toEqual([['retry']]);
    expect(readFileSync(path, 'utf8')).toContain('"exitReason":"completed"');
  });
});
