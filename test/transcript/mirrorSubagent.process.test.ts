/**
 * The Claude Code mirror (src/transcript/claudeMirror.ts) of a session whose subagent a kill -9 cut and whose resume
 * took it up (src/run/childResume.ts): read as Claude Code's `--resume` reads it (the chain of `parentUuid` from the
 * last line back to its root), its conversation is valid and the Agent call's result is the child's answer, not the
 * "interrupted" answer the resume first gave it.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import { mirrorPath } from '../../src/transcript/claudeMirror.js';
import { RUN_EVERYTHING, runCli, startCli } from '../support/cli.js';
import type { MessagesServer, Step } from '../support/messagesServer.js';
import type { CliProject } from '../support/project.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';

let project: CliProject;
let server: MessagesServer;
let marker: string;
markedCliProjectPerTest('mirrorsub', (p, m) => {
  ({ server } = p);
  project = p;
  marker = m;
});

const AGENTS = JSON.stringify({ worker: { description: 'Works', prompt: 'You work.', tools: ['Bash'] } });
const text = (words: string): Step => ({ content: [{ type: 'text', text: words }], stop_reason: 'end_turn' });
const bash = (id: string, command: string): Step => ({ content: [{ type: 'tool_use', id, name: 'bash', input: { command } }], stop_reason: 'tool_use' });
const agentCall: Step = { content: [{ type: 'tool_use', id: 'toolu_A1', name: 'Agent', input: { description: 'Work', prompt: 'Do the work', subagent_type: 'worker' } }], stop_reason: 'tool_use' };

type Line = { type: string; uuid?: string; parentUuid?: string | null; leafUuid?: string; message?: MessageParam; isSidechain?: boolean };

/** The conversation Claude Code's --resume reads from a mirror: from the last line's leaf back to the root, as messages (consecutive lines of one role merged). */
function resumedConversation(lines: Line[]): MessageParam[] {
  const byUuid = new Map(lines.filter((l) => l.uuid).map((l) => [l.uuid as string, l]));
  const leaf = [...lines].reverse().find((l) => l.type === 'last-prompt')?.leafUuid ?? [...lines].reverse().find((l) => l.uuid)?.uuid;
  const chain: Line[] = [];
  for (let at = leaf ? byUuid.get(leaf) : undefined; at; at = at.parentUuid ? byUuid.get(at.parentUuid) : undefined) chain.unshift(at);
  const messages: MessageParam[] = [];
  for (const line of chain) {
    if (!line.message || (line.type !== 'user' && line.type !== 'assistant')) continue;
    const blocks = typeof line.message.content === 'string' ? [{ type: 'text' as const, text: line.message.content }] : line.message.content;
    const last = messages.at(-1);
    if (last && last.role === line.message.role) (last.content as unknown[]).push(...blocks);
    else messages.push({ role: line.message.role, content: [...blocks] } as MessageParam);
  }
  return messages;
}

describe("the mirror of a session whose subagent was cut and taken up", () => {
  it("reads, as Claude Code's --resume reads it, as a valid conversation whose Agent result is the child's answer", async () => {
    const configDir = join(project.dir, '.claude-config');
    mkdirSync(configDir);
    const env = { ...project.env, CLAUDE_CONFIG_DIR: configDir };
    server.enqueue(agentCall, bash('toolu_C1', 'echo ran >> once.log'), bash('toolu_C2', `echo cut >> cut.log; sleep 30 # ${marker}`));
    const run = startCli(['-p', 'work', RUN_EVERYTHING, '--agents', AGENTS], { cwd: project.dir, env });
    await waitFor('the child\'s second command', () => existsSync(join(project.dir, 'cut.log')), 30_000);
    run.child.kill('SIGKILL');
    await run.done;
    const id = ([...transcripts(project.home).keys()][0] as string).replace(/\.jsonl$/, '');
    server.enqueue(text('Child done.'), text('Parent done.'));
    const again = await runCli(['--resume', id, '-p', RUN_EVERYTHING, '--agents', AGENTS, 'and then?'], { cwd: project.dir, env });
    expect(again.code, again.stderr).toBe(0);
    const lines = readFileSync(mirrorPath(configDir, realpathSync(project.dir), id), 'utf8').split('\n').filter((l) => l.trim().startsWith('{')).map((l) => JSON.parse(l) as Line);
    const conversation = resumedConversation(lines.filter((l) => !l.isSidechain));
    expect(historyProblems(conversation), JSON.stringify(conversation, null, 1)).toEqual([]);
    const results = conversation.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_A1');
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0])).toContain('Child done.');
    expect(JSON.stringify(conversation.at(-1))).toContain('Parent done.');
  });
});
