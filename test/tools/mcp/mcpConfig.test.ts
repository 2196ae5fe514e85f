/** `--mcp-config`'s format (Claude Code's): shapes, `${VAR}` / `${VAR:-default}` expansion, merging, one-line errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandVariables, loadMcpConfigs, McpConfigError, parseMcpConfig } from '../../../src/tools/mcp/config.js';

describe('MCP config', () => {
  it('reads stdio and http servers, stdio when only a command is given', () => {
    const text = JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'pkg'] },
        web: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { A: 'b' } },
        old: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
      },
    });
    expect(parseMcpConfig(text, {})).toEqual({
      files: { type: 'stdio', command: 'npx', args: ['-y', 'pkg'], env: {} },
      web: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { A: 'b' } },
      old: { type: 'sse', url: 'http://127.0.0.1:1/sse', headers: {} },
    });
  });

  it('expands ${VAR} and ${VAR:-default} in command, args, env, url and headers, as Claude Code does', () => {
    const env = { BIN: '/opt/bin', TOKEN: 't0k', EMPTY: '' };
    const text = JSON.stringify({
      mcpServers: {
        s: { command: '${BIN}/server', args: ['--dir=${DIR:-/data}', '${EMPTY:-x}'], env: { KEY: '${TOKEN}' } },
        h: { type: 'http', url: 'http://${HOST:-127.0.0.1}:8/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      },
    });
    expect(parseMcpConfig(text, env)).toEqual({
      s: { type: 'stdio', command: '/opt/bin/server', args: ['--dir=/data', ''], env: { KEY: 't0k' } },
      h: { type: 'http', url: 'http://127.0.0.1:8/mcp', headers: { Authorization: 'Bearer t0k' } },
    });
  });

  it('refuses a server whose variables are unset and have no default, naming them', () => {
    const text = JSON.stringify({ mcpServers: { s: { command: 'x', env: { A: '${NOPE_A}', B: '${NOPE_B}${NOPE_A}' } } } });
    expect(() => parseMcpConfig(text, {})).toThrow(new McpConfigError('MCP config: server s: missing environment variables: NOPE_A, NOPE_B'));
  });

  it('leaves a text without ${...} as it is, and expands a set variable to its value whatever it holds', () => {
    fc.assert(
      fc.property(fc.string().filter((s) => !s.includes('${')), fc.string(), (text, value) => {
        const missing = new Set<string>();
        expect(expandVariables(text, {}, missing)).toBe(text);
        expect(expandVariables(`<${'${V}'}>`, { V: value }, missing)).toBe(`<${value}>`);
        expect(missing.size).toBe(0);
      }),
    );
  });

  it('gives one line for each kind of bad config', () => {
    const bad = (value: unknown) => () => parseMcpConfig(typeof value === 'string' ? value : JSON.stringify(value), {});
    expect(bad('{nope')).toThrow(/^MCP config is not valid JSON: /);
    expect(bad({ servers: {} })).toThrow('MCP config: expected {"mcpServers": {"NAME": {...}}}');
    expect(bad({ mcpServers: { a: { type: 'ws', url: 'x' } } })).toThrow('MCP config: server a: unknown "type" "ws" (stdio, http or sse)');
    expect(bad({ mcpServers: { a: { type: 'stdio' } } })).toThrow('MCP config: server a: "command" must be a non-empty string');
    expect(bad({ mcpServers: { a: { command: 'x', args: 'y' } } })).toThrow('MCP config: server a: "args" must be an array of strings');
    expect(bad({ mcpServers: { a: { command: 'x', env: { A: 1 } } } })).toThrow('MCP config: server a: "env" must be an object of strings');
    expect(bad({ mcpServers: { a: { command: 'x', sandbox: 'no' } } })).toThrow('MCP config: server a: "sandbox" must be true or false');
    for (const thrower of [bad('{nope'), bad({ mcpServers: 1 })]) expect(thrower).toThrow(McpConfigError);
  });

  it('keeps agentloop\'s "sandbox": false on a stdio server, and nothing for true (the default)', () => {
    const servers = parseMcpConfig(JSON.stringify({ mcpServers: { out: { command: 'a', sandbox: false }, in: { command: 'b', sandbox: true } } }), {});
    expect(servers).toEqual({ out: { type: 'stdio', command: 'a', args: [], env: {}, sandbox: false }, in: { type: 'stdio', command: 'b', args: [], env: {} } });
  });

  it('merges files and JSON texts in order, a later server replacing one of the same name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-config-'));
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ mcpServers: { one: { command: 'a' }, two: { command: 'a' } } }));
    const servers = loadMcpConfigs(['a.json', JSON.stringify({ mcpServers: { two: { command: 'b' } } })], {}, dir);
    expect(servers).toEqual({ one: { type: 'stdio', command: 'a', args: [], env: {} }, two: { type: 'stdio', command: 'b', args: [], env: {} } });
    expect(() => loadMcpConfigs(['missing.json'], {}, dir)).toThrow('cannot read MCP config missing.json: ENOENT');
    expect(() => loadMcpConfigs([JSON.stringify({ mcpServers: { x: 1 } })], {}, dir)).toThrow('MCP config (JSON): server x: expected an object');
  });
});
