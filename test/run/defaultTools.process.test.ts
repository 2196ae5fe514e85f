/**
 * runAgent knows no tool (issue 30): the tools a run has are the ones it is given. agentloop's own (the bash tool, as
 * the CLI and the durable worker set it up) come from `defaultTools` (src/run/defaultTools.ts), which keeps a long
 * output in the session's folder of the store when it is told the session.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResultBlockParam } from '../../src/core/messages.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent, type RunAgentOptions } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-default-tools-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('runAgent knows no tool', () => {
  it('a run given no tools (a JavaScript caller may leave them out) offers none and runs none', async () => {
    const cwd = tempDir();
    const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'bash', input: { command: 'touch made-by-bash' } }]), reply.text('done')]);
    const options = { model: 'scripted', modelCall: model.call, cwd } as Omit<RunAgentOptions, 'tools'> as RunAgentOptions;
    const run = await runAgent('make a file', options);
    expect(model.requests[0]?.tools ?? []).toEqual([]);
    expect(existsSync(join(cwd, 'made-by-bash'))).toBe(false);
    const [result] = run.context.messages[2]?.content as ToolResultBlockParam[];
    expect(result).toMatchObject({ tool_use_id: 'toolu_1', is_error: true });
  });

  it("defaultTools gives Claude Code's default set (the bash tool, Read, Write, Edit); told the session, bash keeps a long output in the session's folder", async () => {
    const cwd = tempDir();
    const home = tempDir();
    const id = '6f1c2b1e-0000-4000-8000-000000000001';
    const tools = defaultTools({ cwd, session: { home, id } });
    expect(tools.map((tool) => tool.name)).toEqual(['bash', 'Read', 'Write', 'Edit']);
    const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'bash', input: { command: 'seq 1 30000' } }]), reply.text('done')]);
    const run = await runAgent('count', { model: 'scripted', modelCall: model.call, cwd, tools, sessionId: id });
    const [result] = run.context.messages[2]?.content as ToolResultBlockParam[];
    const path = /the full output is in ([^\]\s]+)/.exec(String(result?.content))?.[1];
    expect(path?.startsWith(`${join(home, 'sessions', id)}/`), path).toBe(true);
    expect(existsSync(path as string)).toBe(true);
  });
});
