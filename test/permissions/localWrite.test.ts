/** The REPL's "don't ask again" writes .claude/settings.local.json (src/settings/write.ts): kept keys, no repeats, no clobbering. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { addLocalAllowRule } from '../../src/settings/write.js';
import { scratchDir } from '../support/scratch.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = scratchDir('local-write-')));
afterEach(() => cleanup());
const file = () => join(dir, '.claude', 'settings.local.json');

it('makes the file and its folder; a second rule joins the first, the same rule is not repeated, other keys stay', () => {
  expect(addLocalAllowRule(dir, 'Bash(touch:*)')).toEqual({ path: file() });
  writeFileSync(file(), JSON.stringify({ enabledMcpjsonServers: ['x'], permissions: { allow: ['Bash(touch:*)'], deny: ['Bash(rm:*)'] } }));
  addLocalAllowRule(dir, 'Bash(mkdir:*)');
  addLocalAllowRule(dir, 'Bash(mkdir:*)');
  expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual({ enabledMcpjsonServers: ['x'], permissions: { allow: ['Bash(touch:*)', 'Bash(mkdir:*)'], deny: ['Bash(rm:*)'] } });
});

it('leaves a file that is not a JSON object as it is, and says so', () => {
  mkdirSync(join(dir, '.claude'));
  for (const text of ['{ "permissions": ', '[1, 2]']) {
    writeFileSync(file(), text);
    expect(addLocalAllowRule(dir, 'Bash(touch:*)')).toEqual({ error: expect.stringMatching(/settings\.local\.json is not (valid JSON|a JSON object): left as it is$/) });
    expect(readFileSync(file(), 'utf8')).toBe(text);
  }
});
