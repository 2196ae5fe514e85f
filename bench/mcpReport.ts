/**
 * The rows of bench/mcp.ts's side by side with Claude Code (bench/mcpPeers.ts): each figure of agentloop's CLI and of
 * Claude Code's on the same config and server, their ratio, the target (agentloop not slower: ratio ≤ 1.0) and the
 * verdict; a row with a failed run, or with tool_result texts that differ, gives no verdict and says why.
 */
import { mcpMedians, type McpSide, type McpSideResult } from './mcpPeers.js';
import { fmt } from './stats.js';

export const MCP_TARGET = 1.0;

export interface McpCliResults {
  start: McpSideResult[];
  call: McpSideResult[];
  /** Why Claude Code was not run (not installed), if it was not. */
  claudeSkipped?: string;
}

const side = (results: McpSideResult[], name: McpSide) => results.find((r) => r.side === name);

/** Why the figures of `results` give no verdict, or undefined when they do. */
export function noVerdict(results: McpSideResult[], skipped: string | undefined, compareText: boolean): string | undefined {
  if (skipped) return `skipped: ${skipped}`;
  for (const r of results) {
    if (r.failures.length > 0) return `no verdict: ${label(r.side)} failed ${r.failures.length} of ${r.attempts} runs (${r.failures[0]})`;
    if (r.runs.length === 0) return `no verdict: no run of ${label(r.side)} counted`;
  }
  if (!compareText) return undefined;
  const texts = results.map((r) => [...new Set(r.runs.map((run) => run.toolResult))].map((t) => JSON.stringify(t ?? null)).join(' / '));
  return new Set(texts).size > 1 ? `no verdict: the tool_result texts differ (${results.map((r, i) => `${label(r.side)} ${texts[i]}`).join(', ')})` : undefined;
}

function label(name: McpSide): string {
  return name === 'claude' ? 'Claude Code' : 'agentloop';
}

function row(what: string, ours: number, theirs: number | undefined, why: string | undefined): string {
  const ratio = theirs === undefined || !Number.isFinite(theirs) ? Number.NaN : ours / theirs;
  const verdict = why ?? (!Number.isFinite(ratio) ? 'no figure' : ratio <= MCP_TARGET ? '**pass**' : '**FAIL**');
  const show = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '—' : fmt(v));
  return `| ${what} | ${show(ours)} | ${show(theirs)} | ${show(ratio)} | ≤ ${MCP_TARGET.toFixed(1)} | ${verdict} |`;
}

/** The table of the CLI side by side. */
export function renderMcpCli(results: McpCliResults): string {
  const pick = (list: McpSideResult[], name: McpSide) => {
    const found = side(list, name);
    return found && found.runs.length > 0 ? mcpMedians(found) : undefined;
  };
  const [startA, startC, callA, callC] = [pick(results.start, 'agentloop'), pick(results.start, 'claude'), pick(results.call, 'agentloop'), pick(results.call, 'claude')];
  const whyStart = noVerdict(results.start, results.claudeSkipped, false);
  const whyCall = noVerdict(results.call, results.claudeSkipped, true);
  const nan = Number.NaN;
  return [
    '| `-p` run, `--mcp-config` with server-everything twice (stdio) | agentloop ms | Claude Code ms | ratio | target | result |',
    '|---|---|---|---|---|---|',
    row('start-up: process start → the first request at the mock (both servers connected, their tools listed)', startA?.firstTaskRequestMs ?? nan, startC?.firstTaskRequestMs, whyStart),
    row('start-up: wall to exit (one reply, text)', startA?.wallMs ?? nan, startC?.wallMs, whyStart),
    row('a call of `mcp__every__echo` in the run: the reply’s end → the next request (the tool as the model sees it)', callA?.toolMs ?? nan, callC?.toolMs, whyCall),
    row('that run’s wall to exit (two replies)', callA?.wallMs ?? nan, callC?.wallMs, whyCall),
  ].join('\n');
}
