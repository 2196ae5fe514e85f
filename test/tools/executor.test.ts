import { describe, expect, it } from 'vitest';
import type { ToolResultBlockParam, ToolUseBlock } from '../../src/core/messages.js';
import { ToolExecutor } from '../../src/tools/executor.js';
import type { Tool } from '../../src/core/tool.js';

interface Trace {
  log: string[];
  done: Promise<ToolResultBlockParam[]>;
  executor: ToolExecutor;
}

/** Tools whose runs the test resolves by hand, so ordering is checked without timing. */
function controlledTools() {
  const pending = new Map<string, () => void>();
  const tool = (name: string, safe: boolean): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    isConcurrencySafe: () => safe,
    run: (input) =>
      new Promise((resolve) => {
        const id = (input as { id: string }).id;
        pending.set(id, () => resolve({ content: `${name}:${id}`, isError: false }));
      }),
  });
  // A tool is called a microtask after its start (write-ahead, see executor.ts): wait for that first.
  const finish = async (id: string) => {
    await Promise.resolve();
    const resolve = pending.get(id);
    if (!resolve) throw new Error(`${id} was never called`);
    resolve();
  };
  return { tools: [tool('read', true), tool('write', false)], finish };
}

function start(tools: Tool[], maxConcurrency?: number): Trace {
  const log: string[] = [];
  let resolveDone: (r: ToolResultBlockParam[]) => void = () => {};
  const done = new Promise<ToolResultBlockParam[]>((r) => (resolveDone = r));
  const executor = new ToolExecutor(new Map(tools.map((t) => [t.name, t])), { cwd: '.', ...(maxConcurrency ? { maxConcurrency } : {}) }, {
    onStart: (b) => log.push(`start ${b.id}`),
    onResult: (r, _b, completesAll) => log.push(`result ${r.tool_use_id}${completesAll ? ' (last)' : ''}`),
    onAllDone: (results) => resolveDone(results),
  });
  return { log, done, executor };
}

/** A concurrency-safe tool named `read` that runs `run`. */
const readTool = (run: Tool['run'], isConcurrencySafe: Tool['isConcurrencySafe'] = () => true): Tool => ({
  name: 'read',
  description: '',
  inputSchema: { type: 'object' },
  isConcurrencySafe,
  run,
});

const block = (id: string, name: 'read' | 'write'): ToolUseBlock => ({ type: 'tool_use', id, name, input: { id } });
const tick = () => new Promise((r) => setImmediate(r));

describe('ToolExecutor', () => {
  it('starts safe tools while the stream goes on, holds unsafe ones until it ends', async () => {
    const { tools, finish } = controlledTools();
    const t = start(tools);
    t.executor.submit(block('r1', 'read'));
    t.executor.submit(block('w1', 'write'));
    t.executor.submit(block('r2', 'read'));
    expect(t.log).toEqual(['start r1']);
    t.executor.finish([block('r1', 'read'), block('w1', 'write'), block('r2', 'read')]);
    expect(t.log).toEqual(['start r1']); // w1 waits for r1
    await finish('r1');
    await tick();
    expect(t.log).toEqual(['start r1', 'result r1', 'start w1']); // r2 waits: w1 runs alone
    await finish('w1');
    await tick();
    expect(t.log.slice(3)).toEqual(['result w1', 'start r2']);
    await finish('r2');
    const results = await t.done;
    expect(results.map((r) => r.tool_use_id)).toEqual(['r1', 'w1', 'r2']);
    // Only the result that completes the set says so (it then travels with TOOLS_DONE).
    expect(t.log.at(-1)).toBe('result r2 (last)');
  });

  it('runs safe tools in parallel up to the bound and reports results in the order they ended, as Claude Code does', async () => {
    const { tools, finish } = controlledTools();
    const t = start(tools, 2);
    const blocks = ['a', 'b', 'c'].map((id) => block(id, 'read'));
    t.executor.finish(blocks);
    expect(t.log).toEqual(['start a', 'start b']);
    await finish('b');
    await tick();
    expect(t.log).toEqual(['start a', 'start b', 'result b', 'start c']);
    await finish('c');
    await finish('a');
    // Claude Code 2.1.197's next request too (test/cli/printers/claudeConcurrentTools.json).
    expect((await t.done).map((r) => r.content)).toEqual(['read:b', 'read:c', 'read:a']);
  });

  it('aborts running tools on cancel and reports nothing after it', async () => {
    let aborted = false;
    const slow = readTool(
      (_input, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ content: 'stopped', isError: true });
          });
        }),
    );
    const t = start([slow]);
    t.executor.finish([block('a', 'read')]);
    await tick();
    t.executor.cancel();
    await tick();
    expect(aborted).toBe(true);
    expect(t.log).toEqual(['start a']);
  });

  it('never calls a tool whose turn is cancelled between its start and its call', async () => {
    let called = false;
    const tool = readTool(async () => {
      called = true;
      return { content: 'ran', isError: false };
    });
    const t = start([tool]);
    t.executor.finish([block('a', 'read')]);
    t.executor.cancel();
    await tick();
    expect(called).toBe(false);
    expect(t.log).toEqual(['start a']);
  });

  it('treats a tool whose safety check throws as unsafe', async () => {
    const odd = readTool(
      async () => ({ content: 'ran', isError: false }),
      () => {
        throw new Error('bad input');
      },
    );
    const t = start([odd]);
    t.executor.submit(block('a', 'read'));
    expect(t.log).toEqual([]);
    t.executor.finish([block('a', 'read')]);
    expect((await t.done)[0]?.content).toBe('ran');
  });
});
