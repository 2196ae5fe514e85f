/**
 * `--replay-user-messages` (stream-json in and out): each user message read is written back as Claude Code 2.1.197
 * writes it, held to its recording (./claudeReplay.json, ./recordReplay.ts): after the turn's init line and before its
 * reply, with Claude Code's keys in its order, the message as given (a text or blocks), the session's id, and the
 * uuid the host gave it (else a new one).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startCli } from '../../support/cli.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { ARGS, converse, FIXTURE, shapesOf, type LineShape } from './recordReplay.js';

let project: CliProject;
cliProjectPerTest('replay', (p) => (project = p), { noViolations: true });

const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { lines: LineShape[] };

describe('--replay-user-messages', () => {
  it("writes each user message back as Claude Code does: its place, keys, message, session and uuid", async () => {
    for (const text of ['one', 'two', 'three']) project.server.enqueue({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });
    const cli = startCli(ARGS, { cwd: project.dir, env: project.env, openStdin: true });
    const lines = await converse(cli.child);
    expect((await cli.done).code, cli.output().stderr).toBe(0);
    expect(shapesOf(lines)).toEqual(recorded.lines);
  }, 60_000);
});
