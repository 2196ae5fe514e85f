import { beforeAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/tools/bash/bashTool.js';
import { bashPermission as permission } from '../../../src/tools/bash/permission.js';
import { loadShellParser } from '../../../src/tools/bash/judge/shell/load.js';
import { publicToolName, toolCallLine } from '../../../src/core/tool.js';

beforeAll(async () => void (await loadShellParser()));

/** A rule `Bash` or `Bash(spec)`: its specifier (null: every call). */
const specifierOf = (rule: string) => /^Bash(?:\((.*)\))?$/s.exec(rule)?.[1] ?? null;

/** How a gate applies the bash tool's permission: deny rules broadly, allow rules together; deny beats allow. */
async function allowed(allow: string[], deny: string[], command: string): Promise<boolean> {
  const input = { command };
  for (const rule of deny) {
    const spec = specifierOf(rule);
    if (spec === null || (await permission.matches(spec, input, 'deny', ['/w']))) return false;
  }
  if (allow.length === 0 || allow.some((rule) => specifierOf(rule) === null)) return true;
  const specs = allow.map(specifierOf) as string[];
  return (await permission.allowedBy?.(specs, input, ['/w'])) === true;
}

// [allow rules, deny rules, command, allowed?]: the bash rows of src/permissions' rules, now the bash tool's own.
const TABLE: [string[], string[], string, boolean][] = [
  [['Bash(npm test)'], [], '  npm   test ', true],
  [['Bash(npm test)'], [], 'npm test -- --watch', false],
  [['Bash(git commit -m "fix")'], [], 'git commit -m "fix"', true],
  [['Bash(git log:*)'], [], 'git log --oneline -n 5', true],
  [['Bash(git log:*)'], [], 'git logx', false],
  [['Bash(git log:*)'], [], 'git log && rm x', false],
  [['Bash(git log:*)'], [], 'git log $(rm x)', false],
  [['Bash(git log:*)'], [], 'git log\nrm x', false],
  [['Bash(git log:*)', 'Bash(rm:*)'], [], 'git log && rm x', true],
  [['Bash(git log:*)', 'Bash(wc:*)'], [], 'git log --oneline | wc -l', true],
  [['Bash(git log:*)'], [], 'timeout 5 git log', true],
  [['Bash(git log:*)'], [], 'env git log', false],
  [['Bash(git log:*)'], [], 'PAGER=evil git log', false],
  [['Bash(git log:*)'], [], 'x=log; git $x -1', true],
  [['Bash(npm run *)'], [], 'npm run', true],
  [['Bash(npm run *)'], [], 'npm runx', false],
  [['Bash(ls *)'], [], 'lsof', false],
  [['Bash(ls*)'], [], 'lsof', true],
  [['Bash(git * main)'], [], 'git merge origin main', true],
  [['Bash(* install)'], [], 'npm install && rm -rf x', false],
  [['Bash(*)'], [], 'anything | goes', true],
  [['Bash(echo:*)'], [], 'echo "unterminated', false],
  [[], ['Bash(rm:*)'], 'ls && rm x', false],
  [[], ['Bash(rm:*)'], 'echo $(rm x)', false],
  [[], ['Bash(rm:*)'], 'x=rm; $x file', false],
  [[], ['Bash(rm:*)'], 'find . | xargs rm', false],
  [[], ['Bash(rm:*)'], 'sudo -n true; busybox rm x', false],
  [[], ['Bash(rm:*)'], 'echo "rm -rf /"', true],
  [[], ['Bash(rm:*)'], 'rmdir x', true],
  [[], ['Bash(git push)'], 'git push --force', true],
  [[], ['Bash(curl *)'], 'curl -s x | sh', false],
  [[], ['Bash(*)'], 'ls', false],
  [['Bash(git:*)'], ['Bash(git push:*)'], 'git push origin main', false],
  [['Bash(rm:*)'], ['Bash(rm -rf /)'], 'rm -rf /', false],
];

describe("the bash tool's permission", () => {
  it.each(TABLE)('allow %j deny %j: %j → %s', async (allow, deny, command, expected) => {
    expect(await allowed(allow, deny, command)).toBe(expected);
  });

  it('matches one specifier alone strictly for allow, broadly for deny', async () => {
    expect(await permission.matches('git log:*', { command: 'git log && rm x' }, 'allow', ['/w'])).toBe(false);
    expect(await permission.matches('rm:*', { command: 'git log && rm x' }, 'deny', ['/w'])).toBe(true);
    // A call without a command: a deny rule denies it, an allow rule does not allow it.
    expect(await permission.matches('rm:*', { command: 42 }, 'deny', ['/w'])).toBe(true);
    expect(await permission.matches('ls:*', null, 'allow', ['/w'])).toBe(false);
  });

  it.each([
    ['', /empty parentheses/],
    ['git:* log', /":\*" must end the rule/],
    [':*', /nothing before/],
  ])('refuses the specifier %j with one line', (spec, message) => {
    expect(() => permission.checkSpecifier?.(spec)).toThrow(message);
  });

  it.each([
    ['mkdir -p build/out && touch build/out/a.txt && ls build', true],
    ['cp src/a.ts /extra/b.ts', true],
    ['cp src/a.ts /etc/a.ts', false],
    ['cp --target-directory=/tmp a.txt', false],
    ['touch a.txt > /dev/sda', false],
    ['rm a.txt', false],
  ])('acceptEdits: %j edits only inside the working directories: %s', async (command, within) => {
    expect(await permission.isEditWithin?.({ command }, ['/work/project', '/extra'])).toBe(within);
  });

  it.each([
    // As Claude Code 2.1.197 suggests (test/permissions/claudeSuggestions.json; suggestions.test.ts runs the whole question).
    ['touch a.txt', 'Bash(touch a.txt)'],
    ['git commit -m x', 'Bash(git commit *)'],
    ['echo hi > a.txt', 'Bash(echo hi *)'],
    ['npm test', 'Bash(npm test *)'],
    ['ls && rm x', 'Bash(ls && rm x)'],
  ])('suggests for %j the rule %s', (command, rule) => {
    expect(permission.suggestRule?.({ command })).toBe(rule);
  });
});

describe('the bash tool describes itself', () => {
  const tool = createBashTool({ contain: false });

  it("is Claude Code's Bash to hooks, rules and outputs, and shows a call as `$ command`", () => {
    expect([tool.name, publicToolName(tool)]).toEqual(['bash', 'Bash']);
    expect(toolCallLine(tool, 'bash', { command: 'ls -A' })).toBe('$ ls -A');
  });

  it.each([
    ['ls -la src && git status', true],
    ['grep -rn TODO src | head -20', true],
    ['touch made.txt', false],
    ['ls > listing.txt', false],
    ['find . -name "*.ts" -delete', false],
  ])('%j is read-only: %s', async (command, readOnly) => {
    expect(await tool.isReadOnly?.({ command })).toBe(readOnly);
  });

  it("gives Claude Code's structured result of a command that succeeded, none of one that failed", async () => {
    const context = { cwd: process.cwd(), signal: new AbortController().signal };
    const said = await tool.run({ command: 'echo hi; echo err >&2' }, context);
    expect(said.data).toEqual({ stdout: 'hi\nerr', stderr: '', interrupted: false, isImage: false, noOutputExpected: false });
    expect((await tool.run({ command: 'true' }, context)).data).toMatchObject({ stdout: '' });
    expect((await tool.run({ command: 'exit 3' }, context)).data).toBeUndefined();
  });
});
