/**
 * XState copies the context with `Object.assign({}, context, update)` at every `assign`. V8 keeps an
 * object built that way with more than about 19 properties in dictionary mode: with the 22 fields the
 * context had, every copy took ~8 µs and every read of a field was a hash lookup, half of the
 * machine's own time per turn (BENCHMARKS.md, section 1). The context is grouped so that this cannot
 * happen; this test asks V8 about every context of a run (machine/context.ts says why it is grouped).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const driver = fileURLToPath(new URL('../support/fastContext.ts', import.meta.url));

describe("the machine's context", () => {
  it('stays in V8 fast mode through tool turns, continuations, a pause and a retry', () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', driver], { encoding: 'utf8' });
    const { checked, slow, wideIsFast } = JSON.parse(out) as { checked: number; slow: string[]; wideIsFast: boolean };
    // The probe works on this V8: a 22-field object copied the same way is reported slow.
    expect(wideIsFast).toBe(false);
    expect(checked).toBeGreaterThan(10);
    expect(slow).toEqual([]);
  });
});
