/**
 * A `-p` run starts the bash tool's contained shell ahead, once its session's tools are set up (cli/commands/run.ts
 * `startAhead`, tools/bash/run/spare.ts), and stops it at the run's end: the run's first command runs in it as it would
 * have run, and when the CLI has exited no process of that chain is left (its working directory is the run's own
 * folder), whether the shell served a command or was never used. The CLI as a process against the local Messages API.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cliEnv, runCli, RUN_EVERYTHING } from '../support/cli.js';
import type { Step } from '../support/messagesServer.js';
import { cliProjectFor } from '../support/project.js';

const project = cliProjectFor('start-ahead');

/** The processes whose working directory is `dir`, as `pid`s. */
function processesIn(dir: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readlinkSync(`/proc/${pid}/cwd`) === dir;
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

const answer: Step = { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };

async function run(folder: string, steps: Step[]) {
  const { server } = project;
  server.enqueue(...steps);
  const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-ahead', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(project.dir, '.home') });
  return runCli(['-p', 'look', '--output-format', 'json', RUN_EVERYTHING], { cwd: folder, env });
}

describe('-p: the contained shell started ahead', () => {
  it('runs the first command, and nothing of it is left once the CLI exited', async () => {
    const folder = project.next();
    const call: Step = { content: [{ type: 'tool_use', id: 'toolu_ahead', name: 'bash', input: { command: 'echo ahead-$((6*7))' } }], stop_reason: 'tool_use' };
    const result = await run(folder, [call, answer]);
    expect(result.code).toBe(0);
    const second = project.server.requests.at(-1)?.body?.messages.at(-1);
    expect(JSON.stringify(second)).toContain('ahead-42');
    await vi.waitFor(() => expect(processesIn(folder)).toEqual([]), { timeout: 5_000 });
  });

  it('is killed unused when the reply calls no tool', async () => {
    const folder = project.next();
    const result = await run(folder, [answer]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ result: 'done' });
    await vi.waitFor(() => expect(processesIn(folder)).toEqual([]), { timeout: 5_000 });
  });
});
