/**
 * A transcript of valid JSON but the wrong shape, through the CLI (issue 11, item 4): `--resume`
 * and `agentloop sessions` report the damaged line by its number and go on, instead of an
 * internal TypeError or a V8 "invalid size error" after gigabytes (index 1000000000).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliProjectPerTest } from '../support/project.js';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { runCli } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { transcripts } from '../support/sessions.js';

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

cliProjectPerTest('damaged-cli', (project) => ({ server, dir, home, env } = project));

const DAMAGE: Array<[string, (r: Record<string, unknown>) => void]> = [
  ['index 1000000000', (r) => (r.index = 1_000_000_000)],
  ['index "__proto__"', (r) => (r.index = '__proto__')],
  ['message null', (r) => (r.message = null)],
  ['content 123', (r) => ((r.message as Record<string, unknown>).content = 123)],
];

/** A one-question session whose reply record `damage` changed in the file: its name, the record's line index, the file. */
async function damagedReply(damage: (record: Record<string, unknown>) => void) {
  server.enqueue({ content: [{ type: 'text', text: 'First answer.' }], stop_reason: 'end_turn' });
  const first = await runCli(['-p', 'hello', '--output-format', 'json'], { cwd: dir, env });
  expect(first.code, first.stderr).toBe(0);
  const [[name, text]] = [...transcripts(home).entries()] as [[string, string]];
  const lines = text.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.includes('"type":"message"') && l.includes('"role":"assistant"'));
  const record = JSON.parse(lines[at] as string) as Record<string, unknown>;
  damage(record);
  lines[at] = JSON.stringify(record);
  const damaged = `${lines.join('\n')}\n`;
  writeFileSync(join(home, 'sessions', name), damaged);
  return { name, at, damaged };
}

describe('--resume of a damaged transcript', () => {
  it.each(DAMAGE)('%s in the reply: the line is reported, the rest resumes', async (_name, damage) => {
    const { name, at } = await damagedReply(damage);

    const listed = await runCli(['sessions'], { cwd: dir, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`line ${at + 1}: message record: `);

    // The answer is gone; the question is there: the model is asked again, with the new prompt.
    server.enqueue((body) => ({ content: [{ type: 'text', text: `I see ${body.messages.length} message(s).` }], stop_reason: 'end_turn' }));
    const resumed = await runCli(['--resume', name.slice(0, 8), '-p', 'again?', '--output-format', 'json'], { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`line ${at + 1}: message record: .*: skipped`));
    expect(JSON.parse(resumed.stdout)).toMatchObject({ result: 'I see 1 message(s).' });
    expect(server.violations).toEqual([]);
    for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
  });
});

describe('--continue of a transcript whose history the API would refuse (issue 24)', () => {
  const REFUSED: Array<[string, unknown, RegExp]> = [
    ['an empty reply text (as written before the stream reader refused it)', [{ type: 'text', text: '' }], /messages\[1\] \(assistant\) has an empty text block/],
    ['a reply text of white space', [{ type: 'text', text: '\n\n' }], /has a text block of white space only/],
    ['a tool_result in the reply', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }], /has a tool_result block/],
  ];
  it.each(REFUSED)('%s: reported with exit 2, nothing sent, the transcript untouched', async (_name, content, problem) => {
    const { name, damaged } = await damagedReply((record) => ((record.message as Record<string, unknown>).content = content));

    const resumed = await runCli(['--continue', '-p', 'again?', '--output-format', 'json'], { cwd: dir, env });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(new RegExp(`session ${name.slice(0, 36)} cannot be resumed: .*${problem.source}`));
    expect(server.requests).toHaveLength(1);
    expect(transcripts(home).get(name)).toBe(damaged);
  });
});
