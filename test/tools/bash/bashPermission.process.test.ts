import { beforeAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/tools/bash/bashTool.js';
import { bashPermission as permission } from '../../../src/tools/bash/permission.js';
import { loadShellParser } from '../../../src/tools/bash/judge/shell/load.js';
import { publicToolName, toolCallLine } from '../../../src/core/tool.js';

beforeAll(async () => void (await loadShellParser()));

// The rows of the rules (allow, deny, command) are judged through the gate with this matcher: test/permissions/gateRules.test.ts.

describe("the bash tool's permission", () => {
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
