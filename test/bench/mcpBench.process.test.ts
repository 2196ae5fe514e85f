/**
 * bench/mcp.ts's side by side with Claude Code (bench/mcpPeers.ts, bench/mcpReport.ts): the runs it counts are real
 * `-p` processes (the built CLI, the real server-everything twice over stdio, the benchmark's own Messages API
 * server), a run that did not do the task is a failure that says why, and a row without a fair comparison (a failed
 * run, tool_result texts that differ, Claude Code not installed) gives no verdict and says so.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { measureMcp, writeMcpConfig, type McpRunFigures, type McpSideResult } from '../../bench/mcpPeers.js';
import { renderMcpCli } from '../../bench/mcpReport.js';
import { CLAUDE_EXE, prepareBench, type Bench } from '../../bench/peersSides.js';
import { everything, processesMarked } from '../support/mcp.js';

let dir: string;
let bench: Bench;
let marker: string;
let count = 0;
const lines: string[] = [];
const log = (line: string) => lines.push(line);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-mcpbench-test-'));
  bench = prepareBench(dir);
  mkdirSync(bench.workspace, { recursive: true });
  marker = `mcpbench-${process.pid}-${++count}`;
  lines.length = 0;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  expect(processesMarked(marker)).toEqual([]);
});

// The benchmark runs each side under GNU time (bench/peersSides.ts), as bench:peers does; Debian's `time` package.
describe.skipIf(!existsSync('/usr/bin/time'))('bench/mcp.ts: the CLI runs it counts (needs GNU time at /usr/bin/time)', () => {
  it("counts agentloop's start-up and call runs with both servers listed and the echo's own tool_result", { timeout: 120_000 }, async () => {
    const config = writeMcpConfig(join(dir, 'config'), marker);
    for (const scenario of ['start', 'call'] as const) {
      const [agentloop] = await measureMcp(scenario, ['agentloop'], bench, config, { rounds: 1, log });
      expect(agentloop?.failures, lines.join('\n')).toEqual([]);
      expect(agentloop?.attempts).toBe(2);
      const run = agentloop?.runs[0] as McpRunFigures;
      expect(run.firstTaskRequestMs).toBeGreaterThan(0);
      expect(run.firstTaskRequestMs).toBeLessThan(run.wallMs);
      if (scenario === 'call') {
        expect(run.toolResult).toBe('Echo: hello');
        expect(run.toolMs).toBeGreaterThan(0);
        expect(run.toolMs).toBeLessThan(run.wallMs - run.firstTaskRequestMs);
      } else expect(run.toolMs).toBeUndefined();
    }
  });

  it('does not count a run whose second server did not start, naming it', { timeout: 120_000 }, async () => {
    const config = join(dir, 'mcp.json');
    const { command, args } = everything(marker);
    writeFileSync(config, JSON.stringify({ mcpServers: { every: { command, args, env: { AGENTLOOP_TEST_MARKER: marker } }, other: { command: '/nonexistent/mcp-server' } } }));
    const [agentloop] = await measureMcp('call', ['agentloop'], bench, config, { rounds: 1, log });
    expect(agentloop?.runs).toEqual([]);
    expect(agentloop?.failures).toEqual(['the first request lists no tool of other', 'the first request lists no tool of other']);
  });

  it.skipIf(!existsSync(CLAUDE_EXE))("counts Claude Code's call run with the same tool_result (installed by npm ci --prefix bench/peers)", { timeout: 120_000 }, async () => {
    const config = writeMcpConfig(join(dir, 'config'), marker);
    // Two rounds: once in a few dozen runs under load, Claude Code's first request came before its servers were listed
    // (the benchmark counts it as a failure that says so; its row then gives no verdict).
    const [claude] = await measureMcp('call', ['claude'], bench, config, { rounds: 2, log });
    expect(claude?.runs.length, lines.join('\n')).toBeGreaterThan(0);
    expect(claude?.runs.map((r) => r.toolResult)).toEqual(claude?.runs.map(() => 'Echo: hello'));
  });
});

const result = (side: 'agentloop' | 'claude', runs: Array<Partial<McpRunFigures>>, failures: string[] = []): McpSideResult => ({
  side,
  runs: runs.map((r) => ({ wallMs: 1000, firstTaskRequestMs: 500, ...r })),
  failures,
  attempts: runs.length + failures.length + 1,
});
const rowOf = (table: string, start: string) => table.split('\n').find((l) => l.startsWith(`| ${start}`)) ?? '';

describe("bench/mcp.ts: the side by side's rows", () => {
  const start = [result('agentloop', [{ wallMs: 900, firstTaskRequestMs: 400 }]), result('claude', [{ wallMs: 1800, firstTaskRequestMs: 1600 }])];
  it('gives each figure, the ratio and the verdict against ≤ 1.0', () => {
    const call = [result('agentloop', [{ toolMs: 60, toolResult: 'Echo: hello' }]), result('claude', [{ toolMs: 40, toolResult: 'Echo: hello' }])];
    const table = renderMcpCli({ start, call });
    expect(rowOf(table, 'start-up: process start')).toMatch(/\| 400\.0+ \| 1600\.0+ \| 0\.25 \| ≤ 1\.0 \| \*\*pass\*\* \|$/);
    expect(rowOf(table, 'a call of')).toMatch(/\| 60\.0+ \| 40\.0+ \| 1\.50 \| ≤ 1\.0 \| \*\*FAIL\*\* \|$/);
  });

  it('gives no verdict when the tool_result texts differ, saying both', () => {
    const call = [result('agentloop', [{ toolMs: 30, toolResult: 'Echo: hello' }]), result('claude', [{ toolMs: 40, toolResult: 'Echo: hello!' }])];
    const row = rowOf(renderMcpCli({ start, call }), 'a call of');
    expect(row).toContain('no verdict: the tool_result texts differ (agentloop "Echo: hello", Claude Code "Echo: hello!")');
    expect(row).not.toContain('pass');
  });

  it('gives no verdict when a run failed, saying which side and why', () => {
    const call = [result('agentloop', [{ toolMs: 30, toolResult: 'Echo: hello' }]), result('claude', [{ toolMs: 40, toolResult: 'Echo: hello' }], ['exit 1: boom'])];
    expect(rowOf(renderMcpCli({ start, call }), 'a call of')).toContain('no verdict: Claude Code failed 1 of 3 runs (exit 1: boom)');
  });

  it("says Claude Code was skipped when it is not installed, with agentloop's figures", () => {
    const table = renderMcpCli({ start: [start[0] as McpSideResult], call: [result('agentloop', [{ toolMs: 30, toolResult: 'Echo: hello' }])], claudeSkipped: 'Claude Code is not installed' });
    expect(rowOf(table, 'a call of')).toMatch(/\| 30\.0+ \| — \| — \| ≤ 1\.0 \| skipped: Claude Code is not installed \|$/);
  });
});
