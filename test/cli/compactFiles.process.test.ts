/**
 * `/compact` on stream-json attaches the files the session read, read again, as Claude Code 2.1.197 does
 * (test/history/claudeCompactFiles.json): the CLI as a process, as root and as nobody, against the checked local
 * Messages API server. A session reads notes.txt, secret/key.txt and b.txt; notes.txt changes on disk; the session is
 * resumed with `--disallowedTools "Read(secret/**)"`, compacted with `/compact`, and asked once more: that request
 * carries b.txt and the changed notes.txt after the summary, and never the secret.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAttachment } from '../../src/history/compactFiles.js';
import { cliEnv, startCli } from '../support/cli.js';
import type { ReplyStep } from '../support/messagesServer.js';
import { cliProjectFor } from '../support/project.js';
import { testUsers } from '../support/users.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const read = (id: string, path: string): ReplyStep => ({ content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: path } }], stop_reason: 'tool_use' });
const text = (t: string): ReplyStep => ({ content: [{ type: 'text', text: t }], stop_reason: 'end_turn' });
const userLine = (content: string) => JSON.stringify({ type: 'user', message: { role: 'user', content } });

describe.each(testUsers())('files read, attached after /compact, the CLI as $name', (user) => {
  const project = cliProjectFor('cli-compact-files', user);

  it.skipIf(user.skip !== undefined)('the next request carries them, the changed one as it is now, never a denied one', async () => {
    const base = project.next();
    const cwd = join(base, 'work');
    mkdirSync(join(cwd, 'secret'), { recursive: true });
    mkdirSync(join(base, 'home'));
    writeFileSync(join(cwd, 'notes.txt'), 'AAA\n');
    writeFileSync(join(cwd, 'b.txt'), 'BBB\n');
    writeFileSync(join(cwd, 'secret', 'key.txt'), 'KEY=1\n');
    project.own(base);
    const env = cliEnv({ HOME: join(base, 'home'), ANTHROPIC_API_KEY: 'sk-ant-test-compact-files', ANTHROPIC_BASE_URL: project.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(base, 'agentloop') });
    const { server } = project;
    // A long last answer: the kept exchanges (a tenth of the window) cannot hold it, so every read is summarized.
    server.enqueue(read('toolu_1', join(cwd, 'notes.txt')), read('toolu_2', join(cwd, 'secret', 'key.txt')), read('toolu_3', join(cwd, 'b.txt')), text(`read: ${'y'.repeat(8000)}`));
    const first = await startCli(['-p', 'read the files', ...STREAM], { cwd, env, prefix: user.prefix }).done;
    expect(first.code, first.stderr).toBe(0);
    const sessionId = (JSON.parse(first.stdout.split('\n')[0] as string) as { session_id: string }).session_id;
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('KEY=1');

    writeFileSync(join(cwd, 'notes.txt'), 'CHANGED\n');
    server.enqueue(text('<analysis>a</analysis><summary>Three files were read.</summary>'), text('ok'));
    const before = server.requests.length;
    const flags = ['--resume', sessionId, '-p', '--input-format', 'stream-json', ...STREAM, '--context-window', '12000', '--disallowedTools', 'Read(secret/**)'];
    const second = await startCli(flags, { cwd, env, input: `${userLine('/compact')}\n${userLine('next question')}\n`, prefix: user.prefix }).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('"compact_boundary"');
    const next = server.requests.slice(before).find((r) => JSON.stringify(r.body?.messages).includes('next question'));
    const first0 = next?.body?.messages[0];
    const blocks = Array.isArray(first0?.content) ? first0.content.map((b) => (b.type === 'text' ? b.text : '')) : [];
    expect(blocks[0]).toContain('Three files were read.');
    // The latest read first, each a text block of the summary's message (the question joins that user turn).
    expect(blocks.slice(1)).toEqual([readAttachment(join(cwd, 'b.txt'), '1\tBBB\n2\t'), readAttachment(join(cwd, 'notes.txt'), '1\tCHANGED\n2\t'), 'next question']);
    expect(JSON.stringify(next?.body)).not.toContain('KEY=1');
    expect(server.violations).toEqual([]);
  }, 120_000);
});
