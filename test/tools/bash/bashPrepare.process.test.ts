/**
 * The bash tool's warm-ups (`prepare`: a `true` run through the runner, the parser's load) give way to a command on its
 * way to the runner: in a fresh process they would otherwise sit on the path of the first command. prepare() loads the
 * parser only while the model thinks (no command called yet, the process waiting), and parses nothing: a first parse
 * compiles its WebAssembly, CPU that a run of plain-words commands never needs.
 */
import { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';

type Spawn = (this: ChildProcess, options: { file: string; args: string[] }) => unknown;
const proto = ChildProcess.prototype as unknown as { spawn: Spawn };
const original = proto.spawn;
/**
 * What this process spawned, as `file arg…` (argv[0] left out), without what goes before the program: the lifeline's
 * watcher (lifeline.ts), and as root the plain way's `setpriv … --` (plain.ts).
 */
let spawned: string[] = [];
proto.spawn = function (options) {
  let argv = [options.file, ...options.args.slice(1)];
  if (options.file === '/bin/sh' && argv[1] === '-c' && argv[3] === 'sh') argv = argv.slice(4);
  if (argv[0]?.endsWith('/setpriv')) argv = argv.slice(argv.indexOf('--') + 1);
  spawned.push(argv.join(' '));
  return original.call(this, options);
};
/** The fresh modules' parser load: a test ends once it is done, so that no two loads of web-tree-sitter overlap. */
let parserLoad: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await parserLoad?.().catch(() => undefined);
  spawned = [];
});

const context = { cwd: process.cwd(), signal: new AbortController().signal };

/** The bash tool with fresh module state: no runner loaded, no warm-up run yet, no parser. */
async function freshTool() {
  vi.resetModules();
  const { createBashTool } = await import('../../../src/tools/bash/bashTool.js');
  const { loadShellParser } = await import('../../../src/tools/bash/judge/shell/load.js');
  parserLoad = loadShellParser;
  return createBashTool({ contain: false });
}

describe('bash tool: prepare', () => {
  it('runs `true` through the runner once when no command is on its way', async () => {
    const tool = await freshTool();
    tool.prepare?.();
    await vi.waitFor(() => expect(spawned).toContain('true'), { timeout: 10_000 });
    tool.prepare?.();
    expect(await tool.run({ command: 'echo later' }, context)).toMatchObject({ content: 'later', isError: false });
    expect(spawned.filter((s) => s === 'true')).toHaveLength(1);
  });

  it('runs no warm-up while a command waits for its check (here for the parser), and the command runs', async () => {
    const tool = await freshTool();
    // Not plain words: its check waits for the parser to load, longer than the runner takes.
    const first = tool.run({ command: 'echo "first"' }, context);
    tool.prepare?.();
    expect(await first).toMatchObject({ content: 'first', isError: false });
    expect(spawned).toContain('bash -c echo "first"');
    expect(spawned).not.toContain('true');
  });

  it('loads the parser while the model thinks: no command called, the event loop idle', async () => {
    const tool = await freshTool();
    const load = await import('../../../src/tools/bash/judge/shell/load.js');
    tool.prepare?.();
    expect(load.loadedShellParser()).toBeNull();
    await vi.waitFor(() => expect(load.loadedShellParser()).not.toBeNull(), { timeout: 10_000 });
  });

  it('loads no parser ahead once a command of plain words came (a reply that came at once)', async () => {
    const tool = await freshTool();
    const load = await import('../../../src/tools/bash/judge/shell/load.js');
    tool.prepare?.();
    expect(await tool.run({ command: 'echo plain' }, context)).toMatchObject({ content: 'plain', isError: false });
    // Longer than prepare's look (50 ms) and its warm-up run (100 ms): neither loads the parser now.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(load.loadedShellParser()).toBeNull();
  });

  it('loads the parser but parses nothing', async () => {
    const tool = await freshTool();
    const { Parser } = await import('web-tree-sitter');
    const parse = vi.spyOn(Parser.prototype, 'parse');
    try {
      tool.prepare?.();
      await vi.waitFor(() => expect(spawned).toContain('true'), { timeout: 10_000 });
      await parserLoad?.();
      // prepare's last steps run a turn of the event loop after the runner's warm-up.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(parse).not.toHaveBeenCalled();
      // A command that needs the parser still gets it (its check parses).
      expect(await tool.run({ command: 'echo "quoted"' }, context)).toMatchObject({ content: 'quoted', isError: false });
      expect(parse).toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });
});
