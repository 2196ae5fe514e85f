/** Tools prepare while the first model call is under way, once a run. */
import { describe, expect, it } from 'vitest';
import type { ModelCall } from '../../src/core/model.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { runAgent } from '../../src/run/runAgent.js';
import { createBashTool } from '../../src/tools/bash/bashTool.js';
import { echoTool } from '../support/drive.js';

describe('Tool.prepare', () => {
  it('is called once, when the first response begins, before any tool runs', async () => {
    const order: string[] = [];
    const tool = { ...echoTool(), prepare: () => order.push('prepare'), run: async () => (order.push('run'), { content: 'ok', isError: false }) };
    const steps = [reply.toolUse([{ id: 'a', name: 'echo', input: {} }]), reply.toolUse([{ id: 'b', name: 'echo', input: {} }]), reply.text('done')];
    const model = scriptedModel(steps);
    const call: ModelCall = (input, signal) => {
      order.push('request');
      return model.call(input, signal);
    };
    await runAgent('go', { model: 'm', modelCall: call, tools: [tool] });
    expect(order).toEqual(['request', 'prepare', 'run', 'request', 'run', 'request']);
  });

  it("is told the run's folder and a signal aborted once the run has ended (a tool stops there what it started ahead)", async () => {
    const told: Array<{ cwd: string; signal: AbortSignal } | undefined> = [];
    let abortedDuringRun: boolean | undefined;
    const tool = {
      ...echoTool(),
      prepare: (run?: { cwd: string; signal: AbortSignal }) => void told.push(run),
      run: async () => ((abortedDuringRun = told[0]?.signal.aborted), { content: 'ok', isError: false }),
    };
    const model = scriptedModel([reply.toolUse([{ id: 'a', name: 'echo', input: {} }]), reply.text('done')]);
    await runAgent('go', { model: 'm', modelCall: model.call, tools: [tool], cwd: '/tmp' });
    expect(told).toHaveLength(1);
    expect(told[0]?.cwd).toBe('/tmp');
    expect(abortedDuringRun).toBe(false);
    expect(told[0]?.signal.aborted).toBe(true);
  });

  it('is not called when no response ever begins, and a tool that throws in it still runs', async () => {
    let prepared = 0;
    const failing: ModelCall = async () => {
      throw new Error('no network');
    };
    await runAgent('go', { model: 'm', modelCall: failing, tools: [{ ...echoTool(), prepare: () => prepared++ }], maxRetries: 0 });
    expect(prepared).toBe(0);
    const throwing = {
      ...echoTool(),
      prepare: () => {
        throw new Error('boom');
      },
    };
    const model = scriptedModel([reply.toolUse([{ id: 'a', name: 'echo', input: { text: 'x' } }]), reply.text('done')]);
    const run = await runAgent('go', { model: 'm', modelCall: model.call, tools: [throwing] });
    expect(run.context.messages[2]?.content).toMatchObject([{ tool_use_id: 'a', content: '{"text":"x"}' }]);
  });

  it('the bash tool: loads its process runner and probes bwrap there; the first command then works as any', async () => {
    const bash = createBashTool();
    expect(bash.prepare).toBeTypeOf('function');
    bash.prepare?.();
    const result = await bash.run({ command: 'echo first' }, { cwd: process.cwd(), signal: new AbortController().signal });
    // data: Claude Code's structured Bash result (the tool contract's ToolOutput.data).
    expect(result).toEqual({
      content: 'first',
      isError: false,
      data: { stdout: 'first', stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
    });
  });
});
