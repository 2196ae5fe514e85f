/**
 * stream-json writes each tool's result line as its tool ends, as Claude Code 2.1.197 does (recorded for two subagents
 * at once: test/cli/sdk/claudeCode.json, `two agents in one reply, the second ends first`): two calls at once, the one
 * that ends first has its line first; a result that comes while its reply still streams waits for the reply's
 * assistant lines; the turn's message adds only what no tool_result event wrote (a call that never ran); a refused
 * reply's started tools leave no line.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/core/events.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../../../src/core/messages.js';
import { zeroUsage } from '../../../src/core/usage.js';
import { streamJsonPrinter } from '../../../src/cli/printers/streamJson.js';

const use = (id: string): ToolUseBlock => ({ type: 'tool_use', id, name: 'Read', input: { file_path: `/w/${id}` } });
const result = (id: string, content = `read ${id}`): ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: id, content });
const done = (id: string): RunEvent => ({ type: 'tool_result', block: use(id), result: result(id) });
const reply: RunEvent = { type: 'reply', turnCount: 1, index: 1, model: 'm', stopReason: 'tool_use', usage: zeroUsage(), total: zeroUsage(), costUsd: 0, needsFollowUp: true } as RunEvent;
const request: RunEvent = { type: 'request', turnCount: 1, messageCount: 1, body: { model: 'm', max_tokens: 1, messages: [] } } as unknown as RunEvent;

function printed(events: RunEvent[]): string[] {
  const lines: string[] = [];
  const facts = { sessionId: 's', cwd: '/w', model: 'm', tools: [], mcpServers: [], permissionMode: 'default' as const, apiKeySource: 'none', version: '0' };
  const print = streamJsonPrinter(facts, (line) => lines.push(line));
  for (const event of events) print(event);
  return lines.slice(1).map((line) => {
    const l = JSON.parse(line) as { type: string; message?: { content: { type: string; tool_use_id?: string; id?: string; text?: string }[] } };
    return `${l.type}:${(l.message?.content ?? []).map((b) => b.tool_use_id ?? b.id ?? b.text).join(',')}`;
  });
}

describe('tool result lines in stream-json', () => {
  it('come as each tool ends, the one that ends first first; a result during the reply waits for its assistant lines', () => {
    const model: RunEvent = { type: 'message', index: 1, origin: 'model', message: { role: 'assistant', content: [use('t1'), use('t2'), use('t3')] } };
    const tools: RunEvent = { type: 'message', index: 2, origin: 'tools', message: { role: 'user', content: [result('t1'), result('t2'), result('t3', 'interrupted'), { type: 'text', text: 'go on' }] } };
    expect(printed([request, done('t2'), model, reply, done('t1'), tools])).toEqual([
      'assistant:t1', 'assistant:t2', 'assistant:t3',
      'user:t2', // ended while the reply streamed: after its assistant lines
      'user:t1',
      'user:t3', // never ran: only the turn's message answers it
      'user:go on',
    ]);
  });

  it("leaves out the results of a refused reply's started tools", () => {
    const refused = { type: 'reply_refused', turnCount: 1, error: { kind: 'invalid_reply', message: 'bad' }, startedToolIds: ['t1'] } as unknown as RunEvent;
    expect(printed([request, done('t1'), refused]).filter((l) => l.startsWith('user'))).toEqual([]);
  });
});
