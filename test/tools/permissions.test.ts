import { beforeAll, describe, expect, it, vi } from 'vitest';
import { decideInMode, decidePermission as decide, parseRules, type PermissionRules } from '../../src/permissions/rules.js';
import type { PermissionMode } from '../../src/permissions/modes.js';
import { loadShellParser } from '../../src/tools/bash/judge/shell/load.js';
import { parserReader, type ReadScript } from '../../src/tools/bash/judge/shell/reader.js';

let read: ReadScript;
beforeAll(async () => {
  read = parserReader(await loadShellParser());
});

const rules = (allow: string[], deny: string[] = []): PermissionRules => ({ allow: parseRules(allow), deny: parseRules(deny) });
const decidePermission = (tool: string, input: unknown, r: PermissionRules) => decide(tool, input, r, read);
const bash = (command: string, r: PermissionRules) => decidePermission('bash', { command }, r);

// [allow rules, deny rules, command, allowed?, the deny rule that decided (when denied by one)]
const TABLE: [allow: string[], deny: string[], command: string, allowed: boolean, rule?: string][] = [
  // no rules at all: everything runs
  [[], [], 'rm -rf build', true],
  // the tool's name: every command
  [['Bash'], [], 'rm -rf build && make', true],
  [['Bash(*)'], [], 'anything | goes', true],
  [['bash'], [], 'ls', true],
  // exact command
  [['Bash(npm test)'], [], 'npm test', true],
  [['Bash(npm test)'], [], '  npm   test ', true],
  [['Bash(npm test)'], [], 'npm test -- --watch', false],
  [['Bash(npm test)'], [], 'npm testx', false],
  [['Bash(npm test)'], [], 'npm install', false],
  [['Bash(git commit -m "fix")'], [], 'git commit -m "fix"', true],
  // prefix with a word boundary
  [['Bash(git log:*)'], [], 'git log', true],
  [['Bash(git log:*)'], [], 'git log --oneline -n 5', true],
  [['Bash(git log:*)'], [], 'git logx', false],
  [['Bash(git log:*)'], [], 'git status', false],
  [['Bash(git log:*)'], [], 'git log && rm x', false],
  [['Bash(git log:*)'], [], 'git log; rm x', false],
  [['Bash(git log:*)'], [], 'git log | sh', false],
  [['Bash(git log:*)'], [], 'git log $(rm x)', false],
  [['Bash(git log:*)'], [], 'git log `rm x`', false],
  [['Bash(git log:*)'], [], 'git log\nrm x', false],
  [['Bash(git log:*)'], [], 'git log & rm x', false],
  [['Bash(git log:*)', 'Bash(rm:*)'], [], 'git log && rm x', true],
  [['Bash(git log:*)', 'Bash(wc:*)'], [], 'git log --oneline | wc -l', true],
  [['Bash(git log:*)'], [], 'timeout 5 git log', true],
  [['Bash(git log:*)'], [], 'nohup git log', true],
  [['Bash(git log:*)'], [], 'env git log', false],
  [['Bash(git log:*)'], [], 'PAGER=evil git log', false],
  [['Bash(git log:*)'], [], 'x=log; git $x -1', true],
  [['Bash(npm run test:*)'], [], 'npm run test', true],
  [['Bash(npm run test:*)'], [], 'npm run test:unit', false],
  // wildcards
  [['Bash(npm run *)'], [], 'npm run build', true],
  [['Bash(npm run *)'], [], 'npm run', true],
  [['Bash(npm run *)'], [], 'npm runx', false],
  [['Bash(npm run *)'], [], 'npm install', false],
  [['Bash(ls *)'], [], 'ls -la', true],
  [['Bash(ls *)'], [], 'lsof', false],
  [['Bash(ls*)'], [], 'lsof', true],
  [['Bash(ls*)'], [], 'ls', true],
  [['Bash(git * main)'], [], 'git checkout main', true],
  [['Bash(git * main)'], [], 'git merge origin main', true],
  [['Bash(git * main)'], [], 'git checkout dev', false],
  [['Bash(* install)'], [], 'npm install', true],
  [['Bash(* install)'], [], 'npm install && rm -rf x', false],
  // unparseable: never allowed by a pattern
  [['Bash(echo:*)'], [], 'echo "unterminated', false],
  [['Bash'], [], 'echo "unterminated', true],
  // deny rules
  [[], ['Bash(rm:*)'], 'rm -rf build', false, 'Bash(rm:*)'],
  [[], ['Bash(rm:*)'], 'ls && rm x', false, 'Bash(rm:*)'],
  [[], ['Bash(rm:*)'], 'echo $(rm x)', false, 'Bash(rm:*)'],
  [[], ['Bash(rm:*)'], 'x=rm; $x file', false, 'Bash(rm:*)'],
  [[], ['Bash(rm:*)'], 'env rm x', false, 'Bash(rm:*)'],
  [[], ['Bash(rm:*)'], 'find . | xargs rm', false, 'Bash(rm:*)'],
  [[], ['Bash(rm:*)'], 'sudo -n true; busybox rm x', false, 'Bash(rm:*)'],
  [[], ['Bash(rm:*)'], 'echo "rm -rf /"', true],
  [[], ['Bash(rm:*)'], 'grep -r "rm" .', true],
  [[], ['Bash(rm:*)'], 'rmdir x', true],
  [[], ['Bash(rm:*)'], 'rm', false, 'Bash(rm:*)'],
  [[], ['Bash(git push)'], 'git push', false, 'Bash(git push)'],
  [[], ['Bash(git push)'], 'git push --force', true],
  [[], ['Bash(git push:*)'], 'git push --force', false, 'Bash(git push:*)'],
  [[], ['Bash(curl *)'], 'curl -s x | sh', false, 'Bash(curl *)'],
  [[], ['Bash'], 'ls', false, 'Bash'],
  [[], ['Bash(*)'], 'ls', false, 'Bash(*)'],
  // deny beats allow
  [['Bash'], ['Bash(rm:*)'], 'rm x', false, 'Bash(rm:*)'],
  [['Bash(git:*)'], ['Bash(git push:*)'], 'git push origin main', false, 'Bash(git push:*)'],
  [['Bash(git:*)'], ['Bash(git push:*)'], 'git pull', true],
  [['Bash(rm:*)'], ['Bash(rm -rf /)'], 'rm -rf /', false, 'Bash(rm -rf /)'],
  // rules for other tools do not allow bash
  [['Read'], [], 'ls', false],
  [['Read'], ['Edit'], 'ls', false],
];

describe('decidePermission: the bash tool', () => {
  it.each(TABLE)('allow %j deny %j: %j → %s', (allow, deny, command, allowed, rule) => {
    const decision = bash(command, rules(allow, deny));
    expect(decision.allowed).toBe(allowed);
    if (!decision.allowed) {
      expect(decision.rule).toBe(rule ?? null);
      expect(decision.message).toMatch(rule === undefined ? /^not allowed: no allow rule matches / : `denied by rule ${rule}`);
    }
  });

  it('sees a command after a long pipeline and a newline, which tree-sitter-bash reads as arguments', () => {
    const r = rules(['Bash(ls:*)', 'Bash(cat:*)', 'Bash(wc:*)'], ['Bash(rm:*)']);
    expect(bash('ls | cat | wc\nrm -rf x && ls', r)).toMatchObject({ allowed: false, rule: 'Bash(rm:*)' });
    expect(bash('ls | cat | wc -l\nls && cat x', r)).toMatchObject({ allowed: false, rule: null }); // misread: no pattern allows it
    expect(bash('ls | cat | wc -l\nls', r)).toEqual({ allowed: true });
  });

  it('names the simple command no allow rule covers', () => {
    const decision = bash('git log && rm x', rules(['Bash(git log:*)']));
    expect(decision).toEqual({ allowed: false, rule: null, message: 'not allowed: no allow rule matches "rm x"' });
  });

  it('a bash call without a string command is allowed only by the whole tool', () => {
    expect(decidePermission('bash', { command: 42 }, rules(['Bash(ls:*)'])).allowed).toBe(false);
    expect(decidePermission('bash', null, rules(['Bash'])).allowed).toBe(true);
    expect(decidePermission('bash', null, rules([], ['Bash(rm:*)'])).allowed).toBe(true);
  });
});

describe('decidePermission: other tools match by name', () => {
  it.each([
    [['Read'], [], 'Read', true],
    [['read'], [], 'Read', true],
    [['Read(*)'], [], 'Read', true],
    [['Read(./src/**)'], [], 'Read', false],
    [['Bash'], [], 'Read', false],
    [[], ['Read'], 'Read', false],
    [[], ['Read(./.env)'], 'Read', false],
    [[], ['Bash'], 'Read', true],
    [['Read'], ['Read'], 'Read', false],
    [['mcp__github__create_issue'], [], 'mcp__github__create_issue', true],
    [['mcp__github'], [], 'mcp__github__create_issue', true],
    [['mcp__github__*'], [], 'mcp__github__create_issue', true],
    [['mcp__git'], [], 'mcp__github__create_issue', false],
    [['mcp__github__create'], [], 'mcp__github__create_issue', false],
    [['mcp__github'], [], 'mcp__gitlab__create_issue', false],
    [['mcp__github'], ['mcp__github__delete_repo'], 'mcp__github__create_issue', true],
    [['mcp__github'], ['mcp__github__delete_repo'], 'mcp__github__delete_repo', false],
    [['mcp__github__create_issue'], ['mcp__github'], 'mcp__github__create_issue', false],
    [[], ['mcp__github__*'], 'mcp__github__create_issue', false],
  ] as [string[], string[], string, boolean][])('allow %j deny %j: %s → %s', (allow, deny, tool, allowed) => {
    expect(decidePermission(tool, { path: 'x' }, rules(allow, deny)).allowed).toBe(allowed);
  });
});

describe('parseRules', () => {
  it('reads the tool and the pattern', () => {
    const [all, exact, prefix, star] = parseRules(['Bash', 'Bash(npm test)', ' Bash(git log:*) ', 'Bash(npm run *)']);
    expect(all).toMatchObject({ text: 'Bash', tool: 'bash', pattern: null });
    expect(exact).toMatchObject({ tool: 'bash', pattern: { kind: 'exact', command: 'npm test' } });
    expect(prefix).toMatchObject({ text: 'Bash(git log:*)', pattern: { kind: 'prefix', prefix: 'git log' } });
    expect(star?.pattern?.kind).toBe('wildcard');
  });

  it.each([
    ['', /expected a tool name/],
    ['Bash(git log', /missing "\)"/],
    ['Bash()', /empty parentheses/],
    ['Bash(git:* log)', /":\*" must end the rule/],
    ['Bash(:*)', /nothing before/],
    ['Ba sh', /expected a tool name/],
    ['(ls)', /expected a tool name/],
  ])('rejects %j with one line', (text, message) => {
    expect(() => parseRules(['Bash', text])).toThrow(message);
    try {
      parseRules([text]);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
      expect((error as Error).message).toContain(JSON.stringify(text));
    }
  });
});

describe('decideInModeSoon before the parser has loaded (what the CLI asks before each tool call)', () => {
  it('judges a command of plain words and another tool at once, by the same rules; waits for the parser for any other', async () => {
    vi.resetModules();
    const load = await import('../../src/tools/bash/judge/shell/load.js');
    const fresh = await import('../../src/permissions/rules.js');
    const r = { allow: fresh.parseRules(['Bash(git log:*)', 'Read']), deny: fresh.parseRules(['Bash(rm:*)']) };
    const soon = (command: string) => fresh.decideInModeSoon('bash', { command }, r, 'default', '/work/project');
    const decisions = [soon('git log'), soon('git log && rm -rf x'), soon('touch x'), fresh.decideInModeSoon('Read', { path: 'x' }, r, 'default', '/work/project')];
    expect(load.loadedShellParser()).toBeNull();
    const quoted = soon('git log "x"');
    expect(await Promise.all(decisions)).toEqual([
      { allowed: true },
      { allowed: false, rule: 'Bash(rm:*)', message: 'denied by rule Bash(rm:*)' },
      { allowed: false, rule: null, message: 'not allowed: no allow rule matches "touch x" (permission mode default)' },
      { allowed: true },
    ]);
    expect(await quoted).toEqual({ allowed: true });
    expect(load.loadedShellParser()).not.toBeNull();
  });
});

describe('decideInMode: Claude Code\'s permission modes, nothing asked', () => {
  const cwd = '/work/project';
  const inMode = (mode: PermissionMode, command: string, r: PermissionRules = rules([])) => decideInMode('bash', { command }, r, mode, read, cwd);
  // [mode, allow rules, deny rules, command, runs?]
  const MODES: [PermissionMode, string[], string[], string, boolean][] = [
    // bypassPermissions: everything but what a deny rule matches; allow rules change nothing
    ['bypassPermissions', [], [], 'rm -rf build && make', true],
    ['bypassPermissions', ['Bash(git log:*)'], [], 'npm install', true],
    ['bypassPermissions', [], ['Bash(rm:*)'], 'ls && rm x', false],
    // default (and dontAsk): read-only commands, or what the allow rules allow
    ['default', [], [], 'ls -la src && git status', true],
    ['default', [], [], 'grep -rn TODO src | head -20', true],
    ['default', [], [], 'touch made.txt', false],
    ['default', [], [], 'ls > listing.txt', false],
    ['default', ['Bash(touch:*)'], [], 'touch made.txt', true],
    ['default', ['Bash(echo:*)'], [], 'echo ok && touch made.txt', false],
    ['default', [], ['Bash(cat:*)'], 'cat notes.txt', false],
    ['dontAsk', [], [], 'cat README.md', true],
    ['dontAsk', [], [], 'npm test', false],
    // plan: read-only commands only, whatever the allow rules say
    ['plan', [], [], 'git log --oneline -n 5', true],
    ['plan', ['Bash'], [], 'touch made.txt', false],
    ['plan', [], [], 'find . -name "*.ts" -delete', false],
    // acceptEdits: also mkdir, touch, mv, cp, with paths inside the working directory
    ['acceptEdits', [], [], 'mkdir -p build/out && touch build/out/a.txt && ls build', true],
    ['acceptEdits', [], [], 'cp src/a.ts src/b.ts && mv src/b.ts /work/project/lib/b.ts', true],
    ['acceptEdits', [], [], 'cp src/a.ts /etc/a.ts', false],
    ['acceptEdits', [], [], 'mv ../other/x.txt x.txt', false],
    ['acceptEdits', [], [], 'cp --target-directory=/tmp a.txt', false],
    ['acceptEdits', [], [], 'touch "$HOME/x"', false],
    ['acceptEdits', [], [], 'touch a.txt > /dev/sda', false],
    ['acceptEdits', [], [], 'rm a.txt', false],
    ['acceptEdits', [], [], 'cd /tmp && touch x', false],
  ];

  it.each(MODES)('%s, allow %j, deny %j: %s → %s', (mode, allow, deny, command, runs) => {
    expect(inMode(mode, command, rules(allow, deny)).allowed).toBe(runs);
  });

  it('says why, naming the mode or the rule', () => {
    expect(inMode('plan', 'touch a')).toEqual({
      allowed: false,
      rule: null,
      message: 'not allowed in plan mode: only read-only commands run, and "touch a" is not one',
    });
    expect(inMode('default', 'npm test')).toMatchObject({ message: 'not allowed in permission mode default: without an allow rule only read-only commands run, and "npm test" is not one' });
    expect(inMode('default', 'npm test', rules(['Bash(git log:*)']))).toMatchObject({ message: 'not allowed: no allow rule matches "npm test" (permission mode default)' });
    expect(inMode('bypassPermissions', 'rm x', rules([], ['Bash(rm:*)']))).toEqual({ allowed: false, rule: 'Bash(rm:*)', message: 'denied by rule Bash(rm:*)' });
    expect(decideInMode('other', {}, rules([]), 'default', read, cwd)).toMatchObject({ allowed: false, message: expect.stringContaining('the tool other') });
  });
});
