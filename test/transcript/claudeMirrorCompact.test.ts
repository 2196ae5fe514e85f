/**
 * A compaction in the Claude Code mirror (src/transcript/claudeMirror.ts), held to what Claude Code 2.1.197 writes in
 * its own session file when it compacts (./claudeMirrorCompact.json, recorded by ./recordClaudeMirrorCompact.ts): the
 * history before it written to its end, then a `system/compact_boundary` line with no parent, then the summary as an
 * `isCompactSummary` user line, then what the run goes on with, chained from it. Claude Code's `--resume` reading it
 * is in ./claudeResume.process.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompactBoundary, RunEvent } from '../../src/core/events.js';
import type { MessageParam } from '../../src/core/messages.js';
import { ClaudeMirror, mirrorPath } from '../../src/transcript/claudeMirror.js';

const recorded = JSON.parse(readFileSync(new URL('./claudeMirrorCompact.json', import.meta.url), 'utf8')) as { compactLines: Array<Record<string, unknown>> };
const claudeBoundary = recorded.compactLines.find((l) => l.subtype === 'compact_boundary') as Record<string, unknown>;
const claudeSummary = recorded.compactLines.find((l) => l.isCompactSummary === true) as Record<string, unknown>;
/** Keys of Claude Code's lines that agentloop has nothing for: its git branch, its session's slug, the prompt's id. */
const CLAUDE_ONLY = ['gitBranch', 'slug', 'promptId'];

const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
const reply = (index: number): RunEvent => ({ type: 'reply', turnCount: 1, index, model: 'claude-x', stopReason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } } as unknown as RunEvent);

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function mirrorLines(events: RunEvent[]): Array<Record<string, unknown>> {
  dir = mkdtempSync(join(tmpdir(), 'mirror-compact-'));
  const mirror = new ClaudeMirror('/work/p', { configDir: dir, version: '0.1.0' });
  for (const event of events) mirror.onEvent(event);
  mirror.write('s1');
  mirror.finish();
  mirror.write('s1');
  mirror.close();
  return readFileSync(mirrorPath(dir, '/work/p', 's1'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('a compaction in the mirror, as Claude Code writes its own', () => {
  const summary = user('This session is being continued from a previous conversation. Summary: we counted.');
  const boundary: CompactBoundary = { trigger: 'manual', kind: 'summary', messagesBefore: 2, summarized: 2, kept: 0, clearedResults: 0, tokensBefore: 900, tokensAfter: 90, summary: 'we counted', messages: [summary], durationMs: 12 };
  const lines = () =>
    mirrorLines([
      { type: 'message', index: 0, message: user('count'), origin: 'prompt' },
      { type: 'message', index: 1, message: assistant('1 2 3'), origin: 'reply' },
      reply(1),
      { type: 'compact_boundary', turnCount: 1, boundary },
      { type: 'message', index: 1, message: user('and on'), origin: 'prompt' },
      { type: 'message', index: 2, message: assistant('4'), origin: 'reply' },
      reply(2),
    ] as RunEvent[]);

  it('writes the history before, the boundary (no parent), the summary, then what came after, each chained to the one before', () => {
    const got = lines();
    expect(got.map((l) => l.subtype ?? (l.isCompactSummary ? 'summary' : l.type))).toEqual(['user', 'assistant', 'compact_boundary', 'summary', 'user', 'assistant', 'last-prompt']);
    expect(got[2]).toMatchObject({ parentUuid: null, logicalParentUuid: got[1]?.uuid, content: 'Conversation compacted', level: 'info', compactMetadata: { trigger: 'manual', preTokens: 900, postTokens: 90, durationMs: 12 } });
    for (let i = 3; i < 6; i++) expect(got[i]?.parentUuid).toBe(got[i - 1]?.uuid);
    expect(got[3]?.message).toEqual(summary);
    expect(got[6]).toMatchObject({ type: 'last-prompt', lastPrompt: 'and on', leafUuid: got[5]?.uuid });
  });

  it("has the keys of Claude Code's boundary and summary lines (but its own git branch, slug and prompt id)", () => {
    const got = lines();
    const keys = (line: Record<string, unknown> | undefined) => Object.keys(line ?? {}).filter((k) => !CLAUDE_ONLY.includes(k)).sort();
    expect(keys(got[2])).toEqual(keys(claudeBoundary));
    expect(keys(got[3])).toEqual(keys(claudeSummary));
    const metadata = (line: Record<string, unknown> | undefined) => Object.keys((line?.compactMetadata ?? {}) as object).sort();
    // Claude Code also names the messages it kept by uuid (preservedSegment, preservedMessages) and the tokens dropped in all.
    expect(metadata(claudeBoundary)).toEqual(expect.arrayContaining(metadata(got[2])));
  });

  it('a compaction that only cleared old results writes its history whole after the boundary, with no summary line', () => {
    const cleared: CompactBoundary = { ...boundary, kind: 'cleared', summary: undefined, messages: [user('count'), assistant('1 2 3')] } as CompactBoundary;
    const got = mirrorLines([
      { type: 'message', index: 0, message: user('count'), origin: 'prompt' },
      { type: 'message', index: 1, message: assistant('1 2 3'), origin: 'reply' },
      reply(1),
      { type: 'compact_boundary', turnCount: 1, boundary: cleared },
    ] as RunEvent[]);
    expect(got.map((l) => l.subtype ?? l.type)).toEqual(['user', 'assistant', 'compact_boundary', 'user', 'assistant', 'last-prompt']);
    expect(got.some((l) => l.isCompactSummary)).toBe(false);
  });
});
