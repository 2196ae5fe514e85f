/**
 * Records how Claude Code 2.1.197 takes an Agent SDK program's PreCompact callback answers, into ./claudePreCompact.json:
 * for each answer, the instructions its summary request carries (the text after "Additional Instructions:") and the
 * lines the program gets from `/compact` (type, subtype, and the fields compaction.process.test.ts holds agentloop to).
 * The real Agent SDK drives Claude Code's binary offline against the local Messages API. To re-record:
 *
 *   npx tsx test/cli/sdk/recordPreCompact.ts
 */
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { claudeCodeEnv, claudeCodeScratch, recordCases, type CaseRun } from '../../support/claudeCode.js';
import type { RequestBody } from '../../support/messagesServer.js';

export const FIXTURE = new URL('./claudePreCompact.json', import.meta.url);

export const ANSWERS: Record<string, { prompt: string; answer: Record<string, unknown> }> = {
  'systemMessage, with the user instructions': { prompt: '/compact keep the numbers', answer: { systemMessage: 'keep the pears' } },
  'systemMessage alone': { prompt: '/compact', answer: { systemMessage: 'keep the pears' } },
  'an empty answer': { prompt: '/compact', answer: {} },
  'hookSpecificOutput.customInstructions (not read)': { prompt: '/compact', answer: { hookSpecificOutput: { hookEventName: 'PreCompact', customInstructions: 'keep apples' } } },
  'decision block': { prompt: '/compact', answer: { decision: 'block', reason: 'not now' } },
};

const lastUserText = (body: RequestBody | undefined) => JSON.stringify(body?.messages.at(-1)?.content ?? '');

/** A line as the test compares it. */
export function shapeOf(m: SDKMessage): Record<string, unknown> {
  const line = m as Record<string, unknown> & { message?: { content?: unknown; model?: string } };
  const picked: Record<string, unknown> = { type: line.type, ...(line.subtype ? { subtype: line.subtype } : {}) };
  for (const key of ['status', 'compact_result', 'compact_error', 'result', 'is_error', 'num_turns']) if (key in line) picked[key] = line[key];
  if (line.type === 'user' || line.type === 'assistant') picked.content = line.message?.content;
  if (line.type === 'assistant') picked.model = line.message?.model;
  return picked;
}

async function recordOne(answer: { prompt: string; answer: Record<string, unknown> }, { executable, server }: CaseRun) {
  for (let i = 0; i < 20; i++) server.enqueue((body) => ({ content: [{ type: 'text', text: /summary/i.test(lastUserText(body)) ? '<summary>S</summary>' : 'ok' }], stop_reason: 'end_turn' }));
  const { cwd, home, remove } = claudeCodeScratch('cc-precompact');
  const base = { pathToClaudeCodeExecutable: executable, cwd, env: claudeCodeEnv(home, server.url), model: 'claude-sonnet-4-5-20250929' };
  try {
    let session = '';
    for (const p of ['count to three', 'and four']) {
      for await (const m of query({ prompt: p, options: { ...base, ...(session ? { resume: session } : {}) } })) if (m.type === 'result') session = m.session_id;
    }
    const before = server.requests.length;
    const lines: Record<string, unknown>[] = [];
    const hooks = { PreCompact: [{ hooks: [async () => answer.answer] }] };
    for await (const m of query({ prompt: answer.prompt, options: { ...base, resume: session, hooks } })) if (m.type !== 'system' || m.subtype !== 'init') lines.push(shapeOf(m));
    const asked = server.requests.slice(before).find((r) => /summary/i.test(lastUserText(r.body)));
    const instructions = asked ? /Additional Instructions:\\n([\s\S]*?)\\n\\nREMINDER/.exec(lastUserText(asked.body))?.[1] ?? null : null;
    return { summaryAsked: asked !== undefined, instructions: instructions === null ? null : (JSON.parse(`"${instructions}"`) as string), lines: lines.filter((l) => l.type !== 'user' || JSON.stringify(l.content).includes('local-command-stdout')) };
  } finally {
    remove();
  }
}

async function main(): Promise<void> {
  await recordCases({
    fixture: FIXTURE,
    command: 'npx tsx test/cli/sdk/recordPreCompact.ts',
    cases: Object.entries(ANSWERS).map(([name, answer]) => ({ name, ...answer })),
    record: (c, run) => recordOne(c, run),
  });
}

if (process.argv[1]?.endsWith('recordPreCompact.ts')) await main();
