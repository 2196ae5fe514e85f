/** The figures of bench/engine.ts and its section of BENCHMARKS.md (between `<!-- engine:begin` and `<!-- engine:end -->`). */
import type { MachineInfo } from './machine.js';
import { fmt } from './stats.js';
import { COMMAND, MAX_TURNS, MODEL, type EngineName, type EngineRun } from './engineSides.js';

/** An engine's medians: the figures of its runs (engineSides.ts's EngineRun). */
export type EngineSummary = Pick<EngineRun, 'engine' | 'wallMs' | 'endMs' | 'firstRequestMs' | 'cpuMs' | 'peakRssMb' | 'otherRequests'>;

export interface EngineFigures {
  machine: MachineInfo;
  machineAfter: MachineInfo;
  seconds: number;
  rounds: number;
  /** Rounds in which both engines succeeded with the same result and tool_result (the only ones counted). */
  valid: number;
  failures: string[];
  sides: Record<EngineName, EngineSummary>;
  /** Medians of the per-round ratios agentloop ÷ Claude Code. */
  wallRatio: number;
  rssRatio: number;
  cpuRatio: number;
}

export const WALL_TARGET = 0.5;
export const RSS_TARGET = 0.4;

const LABELS: Record<EngineName, string> = {
  agentloop: 'agentloop (`dist/cli/main.js`, run with node as the SDK runs a `.js` path)',
  claude: 'Claude Code 2.1.197 (`claude.exe`, its native binary from bench/peers)',
};

const verdict = (pass: boolean) => (pass ? '**pass**' : '**FAIL**');

function summaryRows(f: EngineFigures): string {
  const a = f.sides.agentloop;
  const c = f.sides.claude;
  if (f.valid === 0) return '| 9a, 9b | no round counted: see the failures below | | | **FAIL** |';
  return [
    `| 9a | Agent SDK program, wall of the whole \`query()\` (call → result message), agentloop ÷ Claude Code as the engine (${fmt(a.wallMs, 0)} vs ${fmt(c.wallMs, 0)} ms) | ${fmt(f.wallRatio)} | ≤ ${fmt(WALL_TARGET)} | ${verdict(f.wallRatio <= WALL_TARGET)} |`,
    `| 9b | Agent SDK program, peak RSS of the engine process, agentloop ÷ Claude Code (${fmt(a.peakRssMb, 1)} vs ${fmt(c.peakRssMb, 1)} MB) | ${fmt(f.rssRatio)} | ≤ ${fmt(RSS_TARGET)} | ${verdict(f.rssRatio <= RSS_TARGET)} |`,
  ].join('\n');
}

function sideRows(f: EngineFigures): string {
  return (['agentloop', 'claude'] as const)
    .map((e) => {
      const s = f.sides[e];
      return `| ${LABELS[e]} | ${fmt(s.wallMs, 0)} | ${fmt(s.endMs, 0)} | ${fmt(s.firstRequestMs, 0)} | ${fmt(s.cpuMs, 0)} | ${fmt(s.peakRssMb, 1)} | ${fmt(s.otherRequests, 0)} |`;
    })
    .join('\n');
}

export function renderEngine(f: EngineFigures, quick: boolean): string {
  const m = f.machine;
  const failures = f.failures.length
    ? `\n\nRounds not counted (${f.failures.length}):\n${f.failures.map((x) => `- ${x}`).join('\n')}`
    : '';
  return `<!-- engine:begin (written by npm run bench:engine -- --write) -->
## 9. An Agent SDK program: agentloop or Claude Code as its engine (issue 27)

\`npm run bench:engine${quick ? ' -- --quick' : ''}\` ([bench/engine.ts](bench/engine.ts)) on ${m.date}: ${m.cpuCount} × ${m.cpuModel}, load
${m.loadAverage.join(', ')} at start and ${f.machineAfter.loadAverage.join(', ')} at the end (a load above ${m.cpuCount} means
other work shared the machine: the times rise, the ratios of this one run stay side by side), commit ${m.commit}${m.dirtyFiles ? ` + ${m.dirtyFiles} changed files` : ''}, ${f.seconds} s.

One program with the real \`@anthropic-ai/claude-agent-sdk\` 0.3.335: \`query()\` with a prompt, \`model: '${MODEL}'\`,
\`maxTurns: ${MAX_TURNS}\`, \`allowedTools: ['Bash']\`, partial messages off; the local Messages API
(test/support/messagesServer.ts, in the benchmark's process) answers the first request with a \`Bash\` call of
\`${COMMAND}\` and the second with the final text. \`pathToClaudeCodeExecutable\` is, for each engine, a wrapper that
\`exec\`s GNU time on the engine as the SDK would start it, so the engine's peak RSS (\`%M\`: the largest resident set
of the engine and of the processes it waited for, here the tool's shell) and CPU time are its own; both get the same
environment (a home of their own, \`ANTHROPIC_BASE_URL\`, \`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\`). ${f.rounds}
rounds after a warm-up one, the engines' order alternating; a round counts only when both engines ended in a success
result with the mock's answer and sent back the same tool_result (the real \`${COMMAND}\` output): ${f.valid} of
${f.rounds} counted. Medians over the counted rounds; the ratios are medians of the per-round ratios.

| # | Figure | Measured | Target | Result |
|---|---|---|---|---|
${summaryRows(f)}

| Engine | wall to the result, ms | to the end of the iteration (engine exited), ms | \`query()\` → first request, ms | engine CPU, ms | engine peak RSS, MB | other requests |
|---|---|---|---|---|---|---|
${sideRows(f)}

The engine's CPU time, agentloop ÷ Claude Code: ${fmt(f.cpuRatio)} (median of the per-round ratios). Both engines
are busy from start to end here (the mock answers at once), so on an idle machine the wall follows the CPU; under
load the wall of each stretches by how much of the two cores it gets.${failures}
<!-- engine:end -->`;
}
