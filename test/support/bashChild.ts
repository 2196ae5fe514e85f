/**
 * Run by test/support/bashAs.ts as `node --import tsx bashChild.ts` (as nobody through setpriv): one bash tool of
 * this process, made from the options of the first line of stdin (JSON), then one command per further line
 * (`{ command, timeout?, cwd }`), each answered with its ToolOutput as one line of JSON on stdout, in order. The tool
 * lives until stdin ends, as a tool in the agent's process does between two commands.
 */
import { createInterface } from 'node:readline';
import { createBashTool, type BashToolOptions } from '../../src/tools/bash/bashTool.js';

const lines = createInterface({ input: process.stdin });
let tool: ReturnType<typeof createBashTool> | undefined;
for await (const line of lines) {
  if (tool === undefined) {
    tool = createBashTool(JSON.parse(line) as BashToolOptions);
    continue;
  }
  const { cwd, ...input } = JSON.parse(line) as { command: string; timeout?: number; cwd: string };
  const result = await tool.run(input, { cwd, signal: new AbortController().signal });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
