/** The simulator's script link (src/view/sim/scriptLink.ts): any script, typed or JSON, comes back from its fragment. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scriptFragment, scriptFromFragment } from '../../../src/view/sim/scriptLink.js';

describe('the simulator script in the address', () => {
  it('a JSON script comes back pretty-printed, whatever it holds (any Unicode, quotes, slashes)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const fragment = scriptFragment(JSON.stringify(value));
        expect(fragment).toMatch(/^#script=[A-Za-z0-9_-]*$/);
        expect(scriptFromFragment(fragment)).toBe(JSON.stringify(JSON.parse(JSON.stringify(value)), null, 2));
      }),
    );
  });

  it('text that is not JSON comes back as typed (the page then says what is wrong with it)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        fc.pre(!(() => { try { JSON.parse(text); return true; } catch { return false; } })());
        expect(scriptFromFragment(scriptFragment(text))).toBe(text);
      }),
    );
  });

  it('no fragment or a damaged one gives null, never a throw', () => {
    expect(scriptFromFragment('')).toBeNull();
    expect(scriptFromFragment('#other=1')).toBeNull();
    expect(scriptFromFragment('#script=%%%')).toBeNull();
    expect(scriptFromFragment(`#script=${btoa('\xff\xfe')}`)).toBeNull(); // not UTF-8
  });
});
