/**
 * A version of an AppendLog or AppendSet never changes, whatever is done later to it or to any other version of the
 * same history: a property test against plain arrays and sets copied at every step (the obviously right, slow way).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppendLog, AppendSet } from '../../src/core/appendLog.js';

type LogOp = { kind: 'append'; from: number; items: number[] } | { kind: 'withLast'; from: number; item: number };

const logOps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('append' as const), from: fc.nat(), items: fc.array(fc.integer(), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant('withLast' as const), from: fc.nat(), item: fc.integer() }),
  ),
  { maxLength: 60 },
);

describe('AppendLog', () => {
  it('never changes a version, whichever versions are appended to or have their last item replaced later', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 5 }), logOps, fc.array(fc.nat(), { maxLength: 20 }), (start, ops: LogOp[], reads) => {
        const versions = [AppendLog.of(start)];
        const expected = [[...start]];
        for (const op of ops) {
          const i = op.from % versions.length;
          const version = versions[i] as AppendLog<number>;
          const before = expected[i] as number[];
          if (op.kind === 'append') {
            versions.push(version.append(...op.items));
            expected.push([...before, ...op.items]);
          } else {
            versions.push(version.withLast(op.item));
            expected.push(before.length === 0 ? [op.item] : [...before.slice(0, -1), op.item]);
          }
          // A reader of the newest version's shared array sees its items as its first `length` entries.
          const newest = versions.at(-1) as AppendLog<number>;
          expect(newest.shared().slice(0, newest.length)).toEqual(expected.at(-1));
        }
        versions.forEach((version, i) => {
          const items = expected[i] as number[];
          expect(version.toArray()).toEqual(items);
          expect(JSON.parse(JSON.stringify(version))).toEqual(items);
          expect([...version]).toEqual(items);
          expect(version.length).toBe(items.length);
          for (const r of reads) expect(version.at(r % (items.length + 2)) ?? null).toEqual(items[r % (items.length + 2)] ?? null);
          expect(version.at(-1)).toBe(items.at(-1));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('appends to the newest version without copying: the shared array is the same one, grown', () => {
    const a = AppendLog.of([1]);
    const b = a.append(2);
    const store = b.shared();
    const c = b.append(3);
    expect(c.shared()).toBe(store);
    expect(store.slice(0, b.length)).toEqual([1, 2]);
    expect(b.shared()).not.toBe(store); // no longer the newest: a copy
    expect(b.shared()).toEqual([1, 2]);
  });
});

describe('AppendSet', () => {
  it('never changes a version, whichever versions are added to later', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ from: fc.nat(), item: fc.integer({ min: 0, max: 30 }) }), { maxLength: 60 }), (ops) => {
        const versions = [AppendSet.of<number>()];
        const expected = [new Set<number>()];
        for (const { from, item } of ops) {
          const i = from % versions.length;
          versions.push((versions[i] as AppendSet<number>).add(item));
          expected.push(new Set([...(expected[i] as Set<number>), item]));
        }
        versions.forEach((version, i) => {
          const items = expected[i] as Set<number>;
          expect([...version]).toEqual([...items]);
          expect(version.size).toBe(items.size);
          for (let n = 0; n <= 30; n++) expect(version.has(n)).toBe(items.has(n));
        });
      }),
      { numRuns: 300 },
    );
  });
});
