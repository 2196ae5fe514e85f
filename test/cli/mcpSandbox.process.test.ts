/**
 * `--sandbox` and agentloop's per-server opt-out, the CLI as root and as nobody: a stdio server whose config says
 * `"sandbox": false` starts outside the sandbox (it writes a folder the sandbox hides: /tmp outside the working
 * directory), while the same server without it, in the same run, cannot.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, lastToolResults } from '../support/agentServer.js';
import { cliEnv } from '../support/cli.js';
import { probe } from '../support/mcp.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectFor } from '../support/project.js';
import { runCliAs, testUsers } from '../support/users.js';

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });

describe.each(testUsers())('--sandbox and "sandbox": false, the CLI as $name', (user) => {
  const project = cliProjectFor('cli-mcp-sandbox', user);

  it.skipIf(user.skip !== undefined)('starts a server whose config says "sandbox": false outside the sandbox, the others in it', async () => {
    const base = project.next();
    const cwd = join(base, 'work');
    const outside = join(base, 'outside');
    for (const folder of [cwd, outside]) mkdirSync(folder);
    project.own(base);
    const marker = `mcp-sandbox-${process.pid}-${project.runs}`;
    const json = JSON.stringify({ mcpServers: { boxed: probe(marker), free: { ...probe(marker), sandbox: false } } });
    const { server } = project;
    const before = server.requests.length;
    server.enqueue(
      {
        content: [
          use('toolu_1', 'mcp__boxed__write_file', { path: join(outside, 'boxed.txt'), text: 'x' }),
          use('toolu_2', 'mcp__free__write_file', { path: join(outside, 'free.txt'), text: 'x' }),
        ],
        stop_reason: 'tool_use',
      },
      answerFromResults,
    );
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-mcp-sandbox', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(cwd, '.home') });
    const run = await runCliAs(user, ['-p', '--sandbox', '--mcp-config', json, '--allowedTools', 'mcp__boxed', 'mcp__free', 'write'], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    const [boxed, free] = lastToolResults(server.requests[before + 1]?.body as RequestBody);
    expect([boxed?.tool_use_id, boxed?.is_error]).toEqual(['toolu_1', true]);
    expect([free?.tool_use_id, free?.is_error ?? false]).toEqual(['toolu_2', false]);
    expect(existsSync(join(outside, 'boxed.txt'))).toBe(false);
    // Written by the server outside the sandbox, as the user the CLI ran as.
    expect(statSync(join(outside, 'free.txt')).uid).toBe(user.owner === undefined ? process.getuid?.() : 65534);
  }, 120_000);
});
