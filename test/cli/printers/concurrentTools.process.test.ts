/**
 * One reply with several concurrency-safe calls (Read, Glob, Grep), held to Claude Code 2.1.197's recording
 * (./claudeConcurrentTools.json, ./recordConcurrentTools.ts): agentloop's CLI (`-p --output-format stream-json
 * --verbose`) writes the same lines in the same order (each result as its call ends), the next request carries the
 * results in that order, each bound to its call's id, and the calls overlap: the first call reads a FIFO the test
 * writes only once a later call's result line is out (./concurrentTools.ts), so run one after the other they never
 * would end but by the 20 s fallback, which the run reports.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { CASES, runCase, type ConcurrentRun } from './concurrentTools.js';
import { FIXTURE } from './recordConcurrentTools.js';

let project: CliProject;
cliProjectPerTest('concurrent', (p) => (project = p), { noViolations: true });

const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: Record<string, ConcurrentRun> };

describe('concurrency-safe calls of one reply, as Claude Code runs them', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const run = await runCase(CLI, project.env, project.dir, project.server, c);
    const claude = recorded.cases[name] as ConcurrentRun;
    expect(claude.released, 'Claude Code ran them at once').toBe('lines');
    expect(run.released, 'the calls overlapped: each FIFO was written once a later call had ended').toBe('lines');
    expect(run.lines).toEqual(claude.lines);
    expect(run.nextRequest).toEqual(claude.nextRequest);
    expect(run.bound).toEqual(Object.fromEntries(c.calls.map((call) => [call.id, true])));
  }, 60_000);
});
