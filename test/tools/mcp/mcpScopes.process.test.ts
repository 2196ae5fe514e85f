/**
 * Claude Code's MCP scopes as agentloop reads them (src/tools/mcp/scopes.ts): user (`mcpServers` of ~/.claude.json),
 * project (`.mcp.json` of the folder and those above it, approved), local (`projects[<repository>]` of ~/.claude.json);
 * local over project over user; `--setting-sources`; bad files and servers left out with a line, never thrown.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectKeyOf, scopedMcpServers, type McpScopeOptions } from '../../../src/tools/mcp/scopes.js';

let root: string;
let home: string;
let repo: string;
let cwd: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentloop-scopes-')));
  home = join(root, 'home');
  repo = join(root, 'repo');
  cwd = join(repo, 'sub');
  mkdirSync(home);
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(cwd);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, json: unknown) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
};
const server = (tag: string) => ({ command: `/bin/${tag}` });
function read(options: Partial<McpScopeOptions> = {}) {
  const warned: string[] = [];
  const servers = scopedMcpServers({ cwd, env: { HOME: home }, interactive: false, warn: (line) => warned.push(line), ...options });
  const commands = Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, `${s.scope} ${s.type === 'stdio' ? s.command : s.url}`]));
  return { commands, warned };
}

describe("Claude Code's MCP scopes", () => {
  it('merges user, project and local servers, local over project over user, the nearer .mcp.json over the farther', () => {
    write(join(home, '.claude.json'), {
      mcpServers: { a: server('user-a'), b: server('user-b'), c: server('user-c') },
      projects: { [repo]: { mcpServers: { c: server('local-c'), d: server('local-d') } }, [cwd]: { mcpServers: { e: server('not-the-key') } } },
    });
    write(join(repo, '.mcp.json'), { mcpServers: { b: server('repo-b'), c: server('repo-c'), f: server('repo-f') } });
    write(join(cwd, '.mcp.json'), { mcpServers: { f: server('sub-f') } });
    const { commands, warned } = read();
    expect(commands).toEqual({
      a: 'user /bin/user-a',
      b: 'project /bin/repo-b',
      c: 'local /bin/local-c',
      d: 'local /bin/local-d',
      f: 'project /bin/sub-f',
    });
    expect(warned).toEqual([]);
  });

  it('keys the local scope by the git repository (a linked worktree by its main one), else by the folder itself', () => {
    expect(projectKeyOf(cwd)).toBe(repo);
    const plain = join(root, 'plain', 'deep');
    mkdirSync(plain, { recursive: true });
    expect(projectKeyOf(plain)).toBe(plain);
    const main = join(root, 'main');
    mkdirSync(main);
    execFileSync('git', ['init', '-q', main]);
    execFileSync('git', ['-C', main, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x']);
    execFileSync('git', ['-C', main, 'worktree', 'add', '-q', join(root, 'linked')]);
    expect(projectKeyOf(join(root, 'linked'))).toBe(main);
  });

  it('leaves out the project servers that settings disable; in an interactive session, those not approved too', () => {
    write(join(repo, '.mcp.json'), { mcpServers: { on: server('on'), off: server('off'), asked: server('asked'), legacy: server('legacy') } });
    write(join(cwd, '.claude', 'settings.local.json'), { disabledMcpjsonServers: ['off'], enabledMcpjsonServers: ['on'] });
    write(join(home, '.claude.json'), { projects: { [repo]: { disabledMcpjsonServers: ['legacy'] } } });
    // -p: every project server but the disabled ones, as Claude Code's -p.
    expect(Object.keys(read().commands).sort()).toEqual(['asked', 'on']);
    // The REPL: only the approved; one line for the one that is not.
    const asking = read({ interactive: true });
    expect(Object.keys(asking.commands)).toEqual(['on']);
    expect(asking.warned).toEqual([expect.stringMatching(/^agentloop: MCP server "asked" of \.mcp\.json is not approved, .*enabledMcpjsonServers/)]);
    write(join(home, '.claude', 'settings.json'), { enableAllProjectMcpServers: true });
    expect(Object.keys(read({ interactive: true }).commands).sort()).toEqual(['asked', 'on']);
  });

  it("takes no approval from the project's own .claude/settings.json until the project is trusted", () => {
    write(join(repo, '.mcp.json'), { mcpServers: { self: server('self') } });
    write(join(cwd, '.claude', 'settings.json'), { enableAllProjectMcpServers: true });
    expect(read({ interactive: true }).commands).toEqual({});
    write(join(home, '.claude.json'), { projects: { [repo]: { hasTrustDialogAccepted: true } } });
    expect(read({ interactive: true }).commands).toEqual({ self: 'project /bin/self' });
  });

  it('reads only the scopes --setting-sources names; CLAUDE_CONFIG_DIR moves ~/.claude.json', () => {
    write(join(home, '.claude.json'), { mcpServers: { u: server('u') }, projects: { [repo]: { mcpServers: { l: server('l') } } } });
    write(join(repo, '.mcp.json'), { mcpServers: { p: server('p') } });
    expect(Object.keys(read({ sources: [] }).commands)).toEqual([]);
    expect(Object.keys(read({ sources: ['project'] }).commands)).toEqual(['p']);
    expect(Object.keys(read({ sources: ['user', 'local'] }).commands).sort()).toEqual(['l', 'u']);
    const elsewhere = join(root, 'config');
    write(join(elsewhere, '.claude.json'), { mcpServers: { moved: server('moved') } });
    expect(Object.keys(read({ env: { HOME: home, CLAUDE_CONFIG_DIR: elsewhere } }).commands).sort()).toEqual(['moved', 'p']);
  });

  it('expands ${VAR}s; leaves out, with one line each, a file that is not JSON and a server that is not valid', () => {
    write(join(home, '.claude.json'), '{ not json');
    write(join(repo, '.mcp.json'), {
      mcpServers: { good: { command: '${BIN:-/bin}/good', env: { K: '${KEY}' } }, unset: { command: '${NOPE}' }, bad: { type: 'ws', url: 'x' } },
    });
    const { commands, warned } = read({ env: { HOME: home, KEY: 'k' } });
    expect(commands).toEqual({ good: 'project /bin/good' });
    expect(warned).toHaveLength(3);
    expect(warned[0]).toMatch(/\.claude\.json is not valid JSON .*left out/);
    expect(warned.slice(1).join('\n')).toMatch(/"unset" left out: .*missing environment variables: NOPE[\s\S]*"bad" left out: .*unknown "type"/);
  });

  it('leaves out, with one line, a .mcp.json server that says "sandbox": false; takes it from ~/.claude.json', () => {
    write(join(home, '.claude.json'), { mcpServers: { mine: { ...server('mine'), sandbox: false } } });
    write(join(repo, '.mcp.json'), { mcpServers: { theirs: { ...server('theirs'), sandbox: false }, plain: server('plain') } });
    const { commands, warned } = read();
    expect(commands).toEqual({ mine: 'user /bin/mine', plain: 'project /bin/plain' });
    expect(warned).toEqual(['agentloop: MCP server "theirs" of .mcp.json left out: "sandbox": false is taken only from --mcp-config and ~/.claude.json']);
  });
});
