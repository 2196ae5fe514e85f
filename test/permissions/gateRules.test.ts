/**
 * Claude Code's permission rules as the gate applies them (permissions/gate.ts, decide.ts, ruleText.ts) with each
 * tool's own matcher: the bash tool's (`Bash(git log:*)`: tools/bash/permission.ts), and none for a tool that has no
 * `permission` (an MCP or defineTool tool: matched by its name only). These rows judged the old bash-only rules
 * (src/permissions/rules.ts, removed); each keeps its meaning:
 * - "the rules alone": a gate with no allow rule is one in bypassPermissions (deny rules alone decide); with allow
 *   rules, mode default with nobody to ask, and the bash tool without its read-only check (a read-only command runs
 *   unasked whatever the rules say: the modes' table below has the real tool);
 * - the modes: the real bash tool, nothing asked (as `-p`).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tool } from '../../src/core/tool.js';
import { createPermissionGate, type GateDecision } from '../../src/permissions/gate.js';
import type { PermissionMode } from '../../src/permissions/modes.js';
import { parseRule } from '../../src/permissions/ruleText.js';
import { createBashTool } from '../../src/tools/bash/bashTool.js';
import { createFileTools } from '../../src/tools/fileAccess/fileTools.js';
import { commandPattern } from '../../src/tools/bash/judge/rules.js';
import { loadShellParser } from '../../src/tools/bash/judge/shell/load.js';

beforeAll(async () => void (await loadShellParser()));

const CWD = '/work/project';
const bashTool = createBashTool({ contain: false });
/** The bash tool without its read-only check: what its rules alone decide. */
const { isReadOnly: _readOnly, ...rulesOnlyBash } = bashTool;

/** A tool with no matcher of its own (an MCP server's, a defineTool one): rules name it, none reads its input. */
const plainTool = (name: string): Tool => ({ name, description: name, inputSchema: { type: 'object' }, run: async () => ({ content: 'ok', isError: false }) });

/** The gate's decision on one call of `tool`, nobody asked. */
async function decide(tool: Tool, input: unknown, allow: string[], deny: string[], mode?: PermissionMode): Promise<GateDecision> {
  const gate = createPermissionGate({
    cwd: CWD,
    mode: mode ?? (allow.length === 0 ? 'bypassPermissions' : 'default'),
    allow,
    deny,
    tools: [tool],
    env: { IS_SANDBOX: '1' },
  });
  return gate.decide({ block: { type: 'tool_use', id: 't1', name: tool.name, input }, tool, signal: new AbortController().signal });
}

const byRules = (command: string, allow: string[], deny: string[] = []) => decide(rulesOnlyBash, { command }, allow, deny);

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

describe("the gate's rules on the bash tool", () => {
  it.each(TABLE)('allow %j deny %j: %j → %s', async (allow, deny, command, allowed, rule) => {
    const decision = await byRules(command, allow, deny);
    expect(decision.behavior).toBe(allowed ? 'allow' : 'deny');
    if (decision.behavior === 'deny') {
      expect(decision.rule).toBe(rule ?? null);
      expect(decision.message).toMatch(rule === undefined ? /^not allowed: no allow rule matches / : `denied by rule ${rule}`);
    }
  });

  it('sees a command after a long pipeline and a newline, which tree-sitter-bash reads as arguments', async () => {
    const allow = ['Bash(ls:*)', 'Bash(cat:*)', 'Bash(wc:*)'];
    expect(await byRules('ls | cat | wc\nrm -rf x && ls', allow, ['Bash(rm:*)'])).toMatchObject({ behavior: 'deny', rule: 'Bash(rm:*)' });
    expect(await byRules('ls | cat | wc -l\nls && cat x', allow, ['Bash(rm:*)'])).toMatchObject({ behavior: 'deny', rule: null }); // misread: no pattern allows it
    expect(await byRules('ls | cat | wc -l\nls', allow, ['Bash(rm:*)'])).toMatchObject({ behavior: 'allow', decidedBy: 'rule' });
  });

  it('names the command no allow rule covers (the whole line: the contract says whether a call is covered, not which part)', async () => {
    expect(await byRules('git log && rm x', ['Bash(git log:*)'])).toMatchObject({ behavior: 'deny', rule: null, message: 'not allowed: no allow rule matches "git log && rm x" (permission mode default)' });
  });

  it('a bash call without a string command is allowed only by the whole tool, and denied by any deny rule', async () => {
    expect((await decide(rulesOnlyBash, { command: 42 }, ['Bash(ls:*)'], [])).behavior).toBe('deny');
    expect((await decide(rulesOnlyBash, null, ['Bash'], [])).behavior).toBe('allow');
    // The old rules let it run (a deny pattern was only matched against a command); the gate cannot judge it: denied.
    expect(await decide(rulesOnlyBash, null, [], ['Bash(rm:*)'])).toMatchObject({ behavior: 'deny', rule: 'Bash(rm:*)' });
  });
});

describe('the gate: a tool with no matcher of its own is matched by name', () => {
  it.each([
    [['Notes'], [], 'Notes', true],
    [['notes'], [], 'Notes', true],
    [['Notes(*)'], [], 'Notes', true],
    [['Notes(./src/**)'], [], 'Notes', false],
    [['Bash'], [], 'Notes', false],
    [[], ['Notes'], 'Notes', false],
    [[], ['Notes(./.env)'], 'Notes', false],
    [[], ['Bash'], 'Notes', true],
    [['Notes'], ['Notes'], 'Notes', false],
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
  ] as [string[], string[], string, boolean][])('allow %j deny %j: %s → %s', async (allow, deny, tool, allowed) => {
    expect((await decide(plainTool(tool), { path: 'x' }, allow, deny)).behavior).toBe(allowed ? 'allow' : 'deny');
  });
});

describe("a rule's text (ruleText.ts) and the bash tool's specifier", () => {
  it('reads the tool and the pattern', () => {
    const [all, exact, prefix, star] = ['Bash', 'Bash(npm test)', ' Bash(git log:*) ', 'Bash(npm run *)'].map((text) => parseRule(text, 'allow', 'cliArg'));
    expect(all).toMatchObject({ text: 'Bash', tool: 'Bash', specifier: null });
    expect(exact).toMatchObject({ tool: 'Bash', specifier: 'npm test' });
    expect(commandPattern(exact?.specifier ?? '')).toEqual({ kind: 'exact', command: 'npm test' });
    expect(prefix).toMatchObject({ text: 'Bash(git log:*)', specifier: 'git log:*' });
    expect(commandPattern(prefix?.specifier ?? '')).toEqual({ kind: 'prefix', prefix: 'git log' });
    expect(commandPattern(star?.specifier ?? '').kind).toBe('wildcard');
  });

  it.each([
    ['', /expected a tool name/],
    ['Bash(git log', /missing "\)"/],
    ['Bash()', /empty parentheses/],
    ['Bash(git:* log)', /":\*" must end the rule/],
    ['Bash(:*)', /nothing before/],
    ['Ba sh', /expected a tool name/],
    ['(ls)', /expected a tool name/],
  ])('a gate refuses %j with one line', (text, message) => {
    const gate = (allow: string[]) => createPermissionGate({ cwd: CWD, allow, tools: [bashTool] });
    expect(() => gate(['Bash', text])).toThrow(message);
    expect(() => gate([text])).toThrow(expect.objectContaining({ message: expect.not.stringContaining('\n') }));
    expect(() => gate([text])).toThrow(JSON.stringify(text));
  });
});

describe('the gate before the parser has loaded (what the CLI asks before each tool call)', () => {
  it('judges a command of plain words and another tool at once, by the same rules; waits for the parser for any other', async () => {
    vi.resetModules();
    const load = await import('../../src/tools/bash/judge/shell/load.js');
    const fresh = await import('../../src/permissions/gate.js');
    const bash = (await import('../../src/tools/bash/bashTool.js')).createBashTool({ contain: false });
    const notes = plainTool('Notes');
    const gate = fresh.createPermissionGate({ cwd: CWD, allow: ['Bash(git log:*)', 'Notes'], deny: ['Bash(rm:*)'], tools: [bash] });
    const signal = new AbortController().signal;
    const soon = (command: string) => gate.decide({ block: { type: 'tool_use', id: 't', name: bash.name, input: { command } }, tool: bash, signal });
    const decisions = [soon('git log'), soon('git log && rm -rf x'), soon('touch x'), gate.decide({ block: { type: 'tool_use', id: 'n', name: 'Notes', input: { path: 'x' } }, tool: notes, signal })];
    expect(load.loadedShellParser()).toBeNull();
    const quoted = soon('git log "x"');
    expect(await Promise.all(decisions)).toEqual([
      { behavior: 'allow', decidedBy: 'mode' },
      { behavior: 'deny', decidedBy: 'rule', rule: 'Bash(rm:*)', message: 'denied by rule Bash(rm:*)' },
      { behavior: 'deny', decidedBy: 'mode', rule: null, message: 'not allowed: no allow rule matches "touch x" (permission mode default)', suggestion: 'Bash(touch x *)' },
      { behavior: 'allow', decidedBy: 'rule' },
    ]);
    expect(await quoted).toMatchObject({ behavior: 'allow' });
    expect(load.loadedShellParser()).not.toBeNull();
  });
});

describe("the gate in Claude Code's permission modes, nothing asked", () => {
  const inMode = (mode: PermissionMode, command: string, allow: string[] = [], deny: string[] = []) => decide(bashTool, { command }, allow, deny, mode);
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

  it.each(MODES)('%s, allow %j, deny %j: %s → %s', async (mode, allow, deny, command, runs) => {
    expect((await inMode(mode, command, allow, deny)).behavior).toBe(runs ? 'allow' : 'deny');
  });

  it('says why, naming the mode or the rule', async () => {
    expect(await inMode('plan', 'touch a')).toMatchObject({
      behavior: 'deny',
      rule: null,
      message: 'not allowed in plan mode: only read-only commands run, and "touch a" is not one',
    });
    expect(await inMode('default', 'npm test')).toMatchObject({ message: 'not allowed in permission mode default: without an allow rule only read-only commands run, and "npm test" is not one' });
    expect(await inMode('default', 'npm test', ['Bash(git log:*)'])).toMatchObject({ message: 'not allowed: no allow rule matches "npm test" (permission mode default)' });
    expect(await inMode('bypassPermissions', 'rm x', [], ['Bash(rm:*)'])).toMatchObject({ behavior: 'deny', rule: 'Bash(rm:*)', message: 'denied by rule Bash(rm:*)' });
    expect(await decide(plainTool('other'), {}, [], [], 'default')).toMatchObject({ behavior: 'deny', message: expect.stringContaining('the tool other') });
  });

  it('names a call of any tool as the tool shows it: a file tool by its path, a tool with a display by its line', async () => {
    const write = createFileTools({ cwd: CWD }).Write;
    const shown: Tool = { ...plainTool('deploy'), display: { call: (input) => `deploy to ${(input as { env: string }).env}` } };
    expect(await decide(write, { file_path: `${CWD}/a.md`, content: 'x' }, [], [], 'default')).toMatchObject({
      behavior: 'deny',
      message: `not allowed in permission mode default: without an allow rule only read-only commands run, and "Write ${CWD}/a.md" is not one`,
    });
    expect(await decide(write, { file_path: `${CWD}/a.md`, content: 'x' }, ['Edit(*.txt)'], [], 'default')).toMatchObject({ message: `not allowed: no allow rule matches "Write ${CWD}/a.md" (permission mode default)` });
    expect(await decide(shown, { env: 'prod' }, [], [], 'plan')).toMatchObject({ message: 'not allowed in plan mode: only read-only commands run, and "deploy to prod" is not one' });
  });
});
