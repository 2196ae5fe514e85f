/**
 * `npm run bench -- --only=NAME --update` (bench/merge.ts): the rows and the parts of sections the benchmarks of the run
 * write replace theirs; everything else of BENCHMARKS.md stays. Section 4 is written by two benchmarks (parallel: its
 * table and the streaming diagnosis; startup: the first tools of a fresh process): --only=startup replaced it whole and
 * dropped the parallel one's tables.
 */
import { describe, expect, it } from 'vitest';
import { mergeReport, mergeSection, partMark } from '../../bench/merge.js';

const existing = `# agentloop benchmarks

## Machine

| Date | 2026-12-01 |

## Summary

| # | Figure | Measured | Target | Result |
|---|---|---|---|---|
| 4 | Parallel tools | 0.26 | ≤ 0.5 | **pass** |
| 4s | First tool | 15.2 ms | ≤ 20 ms | **pass** |
| 5 | Start-up | 1.10 | ≤ 1.1 | **pass** |

## 4. Parallel and streaming tools

${partMark('parallel')}

Through \`runAgent\`: four bash tool_use blocks.

| | four at once | one after another | ratio |
|---|---|---|---|
| whole run, ms | 545 | 2075 | **0.26** |

**Streaming, in a warm process (diagnosis).** Times from the block's end:

| Step | ms |
|---|---|
| RunEvent \`tool_start\` | 0.36 |

${partMark('startup')}

**In a fresh CLI process**, 11 fresh processes:

| | ms |
|---|---|
| **first tool of the process** | **15.2** |

## 5. Start-up: a \`-p\` run, fresh process

| agentloop ÷ plain | **1.10** |

<!-- peers:begin (npm run bench:peers) -->
## Peers

kept as it is
`;

/** What render() gives for --only=startup: its rows, section 4 with its part alone, section 5. */
const startupOnly = `# agentloop benchmarks

## Machine

| Date | 2026-12-06 |

## Summary

| # | Figure | Measured | Target | Result |
|---|---|---|---|---|
| 4s | First tool | 7.0 ms | ≤ 20 ms | **pass** |
| 5 | Start-up | 0.84 | ≤ 1.1 | **pass** |

## 4. Parallel and streaming tools

${partMark('startup')}

**In a fresh CLI process**, 11 fresh processes:

| | ms |
|---|---|
| **first tool of the process** | **7.0** |

## 5. Start-up: a \`-p\` run, fresh process

| agentloop ÷ plain | **0.84** |
`;

const NOTE = 'Re-measured alone since: startup on 2026-12-06 (load 4.4).';

describe('--update of one benchmark', () => {
  const merged = mergeReport(existing, startupOnly, NOTE);

  it("keeps the parts of a shared section another benchmark wrote (section 4's parallel table and streaming diagnosis)", () => {
    expect(merged).toContain('| whole run, ms | 545 | 2075 | **0.26** |');
    expect(merged).toContain('**Streaming, in a warm process (diagnosis).**');
    expect(merged).toContain('| RunEvent `tool_start` | 0.36 |');
  });

  it('replaces its own part, rows and sections, once each, in their places', () => {
    expect(merged).toContain('| **first tool of the process** | **7.0** |');
    expect(merged).not.toContain('**15.2**');
    expect(merged.split('**In a fresh CLI process**')).toHaveLength(2);
    expect(merged).toContain('| 4s | First tool | 7.0 ms |');
    expect(merged).toContain('| 4 | Parallel tools | 0.26 |');
    expect(merged).toContain('| agentloop ÷ plain | **0.84** |');
    // Section 4 in its order: the parallel part, then the start-up one, then section 5 and what follows, unchanged.
    const order = ['## 4.', partMark('parallel'), '**Streaming', partMark('startup'), '**7.0**', '## 5.', '<!-- peers:begin', 'kept as it is'];
    const at = order.map((text) => merged.indexOf(text));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(merged).toContain(NOTE);
  });

  it('the whole report of every benchmark replaces the sections whole, as before', () => {
    const both = startupOnly.replace(`${partMark('startup')}`, `${partMark('parallel')}\n\nnew parallel table\n\n${partMark('startup')}`);
    const again = mergeReport(existing, both, NOTE);
    expect(again).toContain('new parallel table');
    expect(again).not.toContain('| whole run, ms | 545');
  });
});

describe('mergeSection', () => {
  it('takes the fresh section whole when either side has no parts', () => {
    expect(mergeSection('## 4. X\n\nold\n', '## 4. X\n\nnew\n')).toBe('## 4. X\n\nnew\n');
    expect(mergeSection('## 4. X\n\nold\n', `## 4. X\n\n${partMark('a')}\n\nnew\n`)).toBe(`## 4. X\n\n${partMark('a')}\n\nnew\n`);
  });

  it('puts a part the file did not have after the others', () => {
    const merged = mergeSection(`## 4. X\n\n${partMark('a')}\n\nA\n`, `## 4. X\n\n${partMark('b')}\n\nB\n`);
    expect(merged).toBe(`## 4. X\n\n${partMark('a')}\n\nA\n\n${partMark('b')}\n\nB\n\n`);
  });
});
