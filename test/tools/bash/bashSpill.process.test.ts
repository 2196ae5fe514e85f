/**
 * Where the full output of a long command is kept, and the bound on it (issue 11, item 5): in
 * the folder given (a session's), at most `maxOutputFileBytes` per command and
 * `maxOutputDirBytes` together, counting what the folder held already; without a folder, in a
 * temporary one removed when the process exits.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/tools/bash/bashTool.js';
import { context, makeTempDir } from './bashHelpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

const savedPath = (content: string) => /(?:is|are) in (\S+output\.txt)\]/.exec(content)?.[1];
/** A command printing `bytes` bytes: lines of 10 digits. */
const print = (bytes: number) => `seq 1000000000 $((1000000000 + ${bytes / 11 - 1}))`;

describe('saved output', () => {
  it('goes into the folder given, bounded per command and for the folder, counting earlier runs', async () => {
    const outputDir = join(dir, 'session-files');
    const limits = { outputDir, maxOutputChars: 1000, maxOutputFileBytes: 200_000, maxOutputDirBytes: 330_000 };
    const tool = createBashTool(limits);
    const run = (bytes: number, t = tool) => t.run({ command: print(bytes) }, context(dir));

    const first = await run(275_000); // 25,000 lines of 11 bytes
    const firstPath = savedPath(first.content) as string;
    expect(first.content).toContain(`[output truncated: `);
    expect(first.content).toContain(`the first 200000 bytes are in ${outputDir}/agentloop-bash-`);
    expect(statSync(firstPath).size).toBe(200_000);
    expect(readFileSync(firstPath, 'utf8').startsWith('1000000000\n1000000001\n')).toBe(true);

    const second = await run(275_000);
    expect(second.content).toContain('the first 130000 bytes are in');
    expect(statSync(savedPath(second.content) as string).size).toBe(130_000);

    const third = await run(275_000);
    expect(third.content).toContain('the full output could not be saved (the saved outputs reached their bound of 330000 bytes)');
    expect(third.content.length).toBeLessThan(1500);

    // A later run of the session (a new tool, the same folder) finds the bound used up.
    const resumed = await run(275_000, createBashTool(limits));
    expect(resumed.content).toContain('reached their bound of 330000 bytes');
    // Nothing was removed to make room: every path given still holds what it said.
    expect(statSync(firstPath).size).toBe(200_000);
    expect(readdirSync(outputDir)).toHaveLength(2);
    const total = readdirSync(outputDir).reduce((n, d) => n + statSync(join(outputDir, d, 'output.txt')).size, 0);
    expect(total).toBe(330_000);
  });

  it('without a folder: a temporary one, removed when the process exits', () => {
    const bash = fileURLToPath(new URL('../../../dist/tools/bash/bashTool.js', import.meta.url));
    const script = `
      const { createBashTool } = await import(${JSON.stringify(bash)});
      const r = await createBashTool({ maxOutputChars: 100 }).run({ command: 'seq 1 5000' }, { cwd: ${JSON.stringify(dir)}, signal: new AbortController().signal });
      const path = /are in (\\S+output\\.txt)/.exec(r.content)?.[1] ?? /is in (\\S+output\\.txt)/.exec(r.content)?.[1];
      const { existsSync, readFileSync } = await import('node:fs');
      console.log(JSON.stringify({ path, existed: existsSync(path), bytes: readFileSync(path).length }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as {
      path: string;
      existed: boolean;
      bytes: number;
    };
    expect(out.existed).toBe(true);
    expect(out.bytes).toBe(Buffer.byteLength(Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('')));
    expect(out.path.startsWith(join(tmpdir(), 'agentloop-output-'))).toBe(true);
    expect(existsSync(out.path)).toBe(false);
    expect(existsSync(dirname(dirname(out.path)))).toBe(false);
  });
});
