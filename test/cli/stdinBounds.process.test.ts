/**
 * The bound of stdin (src/cli/setup/stdinLines.ts, 24 MB): a stream-json line over it is answered with an input_error line
 * and one line on stderr, skipped, and the stream goes on, with the agent's memory bounded (a 600 MB line: Node's
 * readline held lines whole, 512 MB threw `RangeError: Invalid string length`); a `-p` prompt piped (or a file given)
 * over it ends the run with one line, before any request. The CLI as a process against the local Messages API.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, startCli } from '../support/cli.js';
import type { Step } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('stdin-bounds', (p) => (project = p), { noViolations: true });

const MB = 1024 * 1024;
const MEGA = 'a'.repeat(MB);
const STREAM = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'];
const user = (content: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content } })}\n`;
const answer = (text: string): Step => ({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });
type Line = Record<string, unknown> & { type: string; subtype?: string };
const linesOf = (stdout: string): Line[] => stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Line);

function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN) / 1024;
}

/** Writes `times` MB to `stream`, waiting for each write to drain. */
async function writeMegabytes(stream: NodeJS.WritableStream, times: number): Promise<void> {
  for (let i = 0; i < times; i++) if (!stream.write(MEGA)) await new Promise((resolve) => stream.once('drain', resolve));
}

describe('a stream-json line over the bound', () => {
  it('600 MB: an input_error line and one line on stderr, skipped; the next message answered; memory bounded', async () => {
    let pid = 0;
    const memory = { before: 0, peak: 0 };
    project.server.enqueue(
      (() => ((memory.before = memoryOf(pid, 'VmRSS')), answer('One.'))) as Step,
      (() => ((memory.peak = memoryOf(pid, 'VmHWM')), answer('Two.'))) as Step,
    );
    const cli = startCli(STREAM, { cwd: project.dir, env: project.env, openStdin: true });
    pid = cli.child.pid ?? 0;
    const stdin = cli.child.stdin as NodeJS.WritableStream;
    stdin.write(user('first'));
    stdin.write('{"type":"user","message":{"role":"user","content":"');
    await writeMegabytes(stdin, 600);
    stdin.write('"}}\n');
    stdin.end(user('second'));
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(0);
    const errors = linesOf(run.stdout).filter((l) => l.type === 'system' && l.subtype === 'input_error');
    expect(errors.map((l) => [l.line, l.error])).toEqual([
      [2, expect.stringMatching(/^the line is 600\.0 MB, over the 24\.0 MB agentloop reads \(the API takes at most 32 MB a request, the history included\): give a large input as a file the agent reads$/)],
    ]);
    expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^agentloop: stdin line 2: the line is 600\.0 MB/)]);
    expect(linesOf(run.stdout).filter((l) => l.type === 'result').map((l) => l.result)).toEqual(['One.', 'Two.']);
    const growth = memory.peak - memory.before;
    process.stderr.write(`a 600 MB stream-json line: the agent's peak RSS grew by ${growth.toFixed(1)} MB\n`);
    expect(growth).toBeLessThan(100);
  }, 90_000);
});

describe('a -p prompt over the bound', () => {
  it('piped: one line on stderr, exit 1, no request', async () => {
    const cli = startCli(['-p'], { cwd: project.dir, env: project.env, openStdin: true });
    const stdin = cli.child.stdin as NodeJS.WritableStream;
    stdin.on('error', () => {}); // agentloop stops reading: the rest meets a closed pipe
    void writeMegabytes(stdin, 100).then(() => stdin.end(), () => undefined);
    const run = await cli.done;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^agentloop: stdin is over 24\.0 MB \(the API takes at most 32 MB a request, the history included\): give a large input as a file the agent reads \(-p "read input.txt"\)\n$/);
    expect(project.server.requests).toHaveLength(0);
  }, 60_000);

  it('a file given as stdin (< big.txt): the same line, exit 1, no request', async () => {
    const file = join(project.dir, 'big.txt');
    writeFileSync(file, Buffer.alloc(30 * MB, 'a'));
    const fd = openSync(file, 'r');
    try {
      const child = spawn(process.execPath, [CLI, '-p', 'summarize'], { cwd: project.dir, env: project.env, stdio: [fd, 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/^agentloop: stdin is over 24\.0 MB/);
      expect(stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
      expect(project.server.requests).toHaveLength(0);
    } finally {
      closeSync(fd);
    }
  }, 60_000);
});
