/**
 * agentloop's compaction lines on stream-json hold Claude Code 2.1.197's shape (recorded by
 * test/history/recordClaudeCompact.ts into test/history/claudeCompact.json), and its summary request carries the
 * sections of Claude Code's compact prompt.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compactBoundaryLines, compactingLine } from '../../../src/cli/printers/compactLines.js';
import { COMPACT_PROMPT } from '../../../src/core/prompts.js';

const recorded = JSON.parse(readFileSync(new URL('../../history/claudeCompact.json', import.meta.url), 'utf8')) as {
  compactPrompt: string;
  boundary: { compact_metadata: Record<string, unknown> } & Record<string, unknown>;
  statusLines: Array<Record<string, unknown>>;
  afterBoundary: Array<Record<string, unknown>>;
};
const keys = (o: object) => Object.keys(o).sort();
const boundary = {
  trigger: 'manual' as const,
  kind: 'summary' as const,
  messagesBefore: 6,
  summarized: 5,
  kept: 1,
  clearedResults: 0,
  tokensBefore: 19059,
  tokensAfter: 587,
  summary: 's',
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'This session is being continued ...' }] }],
  durationMs: 53,
};

describe("compaction's stream-json lines, as Claude Code prints them", () => {
  it('the status lines: compacting, then back to null with compact_result', () => {
    const [compacting, done] = recorded.statusLines;
    expect(keys(compactingLine('s'))).toEqual(keys(compacting as object));
    expect(compactingLine('s')).toMatchObject({ type: 'system', subtype: 'status', status: 'compacting' });
    const [back] = compactBoundaryLines(boundary, 's');
    expect(keys(back as object)).toEqual(keys(done as object));
    expect(back).toMatchObject({ status: null, compact_result: 'success' });
  });

  it("the compact_boundary line: Claude Code's fields and compact_metadata (but the uuids of its messages, which agentloop has not)", () => {
    const [, line, summary] = compactBoundaryLines(boundary, 's') as Array<Record<string, unknown> & { compact_metadata: object }>;
    expect(keys(line as object)).toEqual(keys(recorded.boundary));
    const theirs = keys(recorded.boundary.compact_metadata).filter((k) => !k.startsWith('preserved_'));
    expect(keys(line?.compact_metadata as object)).toEqual(theirs);
    expect(line?.compact_metadata).toEqual({ trigger: 'manual', pre_tokens: 19059, post_tokens: 587, cumulative_dropped_tokens: 18472, duration_ms: 53 });
    const theirSummary = recorded.afterBoundary.find((l) => l.isSynthetic === true) as object;
    expect(keys(summary as object)).toEqual(keys(theirSummary));
  });

  it("the summary request asks for Claude Code's nine sections, text only", () => {
    const sections = [...new Set([...recorded.compactPrompt.matchAll(/^(\d)\. ([A-Z][\w ]+):/gm)].map((m) => `${m[1]}. ${m[2]}:`))];
    expect(sections).toHaveLength(9);
    for (const section of sections) expect(COMPACT_PROMPT).toContain(section);
    expect(COMPACT_PROMPT.startsWith('CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.')).toBe(true);
  });
});
