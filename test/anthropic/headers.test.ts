/**
 * FetchHeaders (src/anthropic/headers.ts) against Node's own Headers (undici's), side by side: any sequence of
 * appends, sets and deletes, with names in any case and values with white space at their edges, leaves both with the
 * same entries, `get`, `has` and `getSetCookie`; what one refuses (a name that is no token, a value with CR, LF or
 * NUL), the other refuses. And the SDK's `instanceof FormData` (src/anthropic/sdkGlobals.ts) by the tag.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FetchHeaders } from '../../src/anthropic/headers.js';
import { FormData as SdkFormData } from '../../src/anthropic/sdkGlobals.js';

type Step = { op: 'append' | 'set' | 'delete'; name: string; value: string };

const NAMES = ['content-type', 'Content-Type', 'x-api-key', 'set-cookie', 'Set-Cookie', 'request-id', 'anthropic-beta', 'x bad', 'bad:', 'ünï'];
const VALUES = ['application/json', ' padded\t', 'a, b', '', 'k=v; Path=/', 'line\r\nbreak', 'nul\0', 'ok'];

const step = fc.record({
  op: fc.constantFrom<Step['op']>('append', 'set', 'delete'),
  name: fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 6 })),
  value: fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 6 })),
});

/** Runs the steps on one kind of headers: what each step threw (its error's class), then what the headers hold. */
function play(make: () => Headers | FetchHeaders, steps: Step[]) {
  const headers = make();
  const thrown = steps.map(({ op, name, value }) => {
    try {
      if (op === 'delete') headers.delete(name);
      else headers[op](name, value);
      return null;
    } catch (error) {
      return (error as Error).constructor.name;
    }
  });
  const names = [...new Set([...NAMES, ...steps.map((s) => s.name)])];
  const lookups = names.map((name) => {
    try {
      return [headers.get(name), headers.has(name)];
    } catch (error) {
      return (error as Error).constructor.name;
    }
  });
  return { thrown, entries: [...headers], lookups, cookies: headers.getSetCookie() };
}

describe('FetchHeaders is what Node’s Headers is', () => {
  it('after any appends, sets and deletes: the same entries, lookups, set-cookies and refusals', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        expect(play(() => new FetchHeaders(), steps)).toEqual(play(() => new Headers(), steps));
      }),
      { numRuns: 400 },
    );
  });

  it('built from a record, from pairs, and from another Headers; forEach walks its entries', () => {
    const record = { 'X-B': '2', 'x-a': ' 1 ' };
    const pairs: [string, string][] = [['set-cookie', 'a=1'], ['Set-Cookie', 'b=2'], ['x-a', '1']];
    for (const init of [record, pairs, new Headers(pairs), new FetchHeaders(pairs)]) {
      const mine = new FetchHeaders(init as ConstructorParameters<typeof FetchHeaders>[0]);
      expect([...mine]).toEqual([...new Headers(init as HeadersInit)]);
      const walked: string[][] = [];
      mine.forEach((value, name) => walked.push([name, value]));
      expect(walked).toEqual([...mine]);
    }
    expect(() => new FetchHeaders([['only-a-name']] as unknown as [string, string][])).toThrow(TypeError);
    expect(Object.prototype.toString.call(new FetchHeaders())).toBe('[object Headers]');
  });
});

describe("the SDK's `instanceof FormData`", () => {
  it('is true of a FormData and of nothing else', () => {
    expect(new globalThis.FormData() instanceof SdkFormData).toBe(true);
    for (const other of [{}, 'text', null, undefined, new URLSearchParams('a=1'), new FetchHeaders(), { append() {} }]) {
      expect(other instanceof SdkFormData).toBe(false);
    }
  });
});
