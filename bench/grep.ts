/**
 * Section 10: agentloop's Grep tool against ripgrep (`rg`, Debian's, when installed) on a large tree: the project's
 * node_modules (tens of thousands of files, hundreds of MB). Both sides get the same search Claude Code 2.1.197 asks of
 * its bundled rg (`--hidden`, the version-control folders left out, `--max-columns 500`, the .gitignore files honoured),
 * interleaved round by round in one process; rg's side is a process spawned per search, as Claude Code spawns it.
 * Each case also checks both found the same files.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createFileTools } from '../src/tools/fileAccess/fileTools.js';
import { fmt, median } from './stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TREE = 'node_modules';

interface GrepCase {
  label: string;
  input: Record<string, unknown>;
  rgArgs: string[];
}

const VCS_GLOBS = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'].flatMap((name) => ['--glob', `!${name}`]);
const CASES: GrepCase[] = [
  { label: 'files_with_matches, a word (`createServer`)', input: { pattern: 'createServer', head_limit: 0 }, rgArgs: ['-l', 'createServer'] },
  { label: 'content with -n, a regex (`function\\s+\\w+Sync\\(`)', input: { pattern: 'function\\s+\\w+Sync\\(', output_mode: 'content', head_limit: 0 }, rgArgs: ['-n', 'function\\s+\\w+Sync\\('] },
  { label: 'count, -i (`x-api-key`)', input: { pattern: 'x-api-key', output_mode: 'count', '-i': true, head_limit: 0 }, rgArgs: ['-c', '-H', '-i', 'x-api-key'] },
];

export interface GrepFigures {
  rg: string | null;
  files: number;
  rounds: number;
  cases: { label: string; toolMs: number; rgMs: number; toolHits: number; rgHits: number }[];
}

function rgVersion(): string | null {
  const probe = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? (probe.stdout.split('\n')[0] ?? 'rg') : null;
}

export async function benchGrep(rounds: number, log: (line: string) => void): Promise<GrepFigures> {
  const rg = rgVersion();
  const tools = createFileTools({ cwd: ROOT });
  const context = { cwd: ROOT, signal: new AbortController().signal };
  const files = spawnSync('rg', ['--files', '--hidden', ...VCS_GLOBS, TREE], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 }).stdout?.split('\n').filter(Boolean).length ?? 0;
  log(`grep: ${rg ?? 'rg not installed'}; ${files} files in ${TREE}, ${rounds} rounds per case ...`);
  const cases: GrepFigures['cases'] = [];
  for (const c of CASES) {
    const tool: number[] = [];
    const other: number[] = [];
    let toolHits = 0;
    let rgHits = 0;
    const runTool = async () => {
      const start = performance.now();
      const out = await tools.Grep.run({ ...c.input, path: TREE }, context);
      tool.push(performance.now() - start);
      toolHits = hitsOf(out.data);
    };
    const runRg = () => {
      const start = performance.now();
      const out = spawnSync('rg', ['--hidden', ...VCS_GLOBS, '--max-columns', '500', ...c.rgArgs, TREE], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
      other.push(performance.now() - start);
      rgHits = out.stdout.split('\n').filter(Boolean).length;
    };
    for (let i = 0; i < rounds; i++) {
      if (rg === null) await runTool();
      else if (i % 2 === 0) (await runTool(), runRg());
      else (runRg(), await runTool());
    }
    cases.push({ label: c.label, toolMs: median(tool), rgMs: rg === null ? NaN : median(other), toolHits, rgHits: rg === null ? NaN : rgHits });
    log(`  ${c.label}: tool ${fmt(median(tool), 0)} ms, rg ${rg === null ? '-' : fmt(median(other), 0)} ms (${toolHits} vs ${rgHits} lines)`);
  }
  return { rg, files, rounds, cases };
}

/** Files (files_with_matches), lines (content) or files with a count (count) the tool answered. */
function hitsOf(data: unknown): number {
  const d = data as { mode?: string; numFiles?: number; numLines?: number };
  return d.mode === 'content' ? (d.numLines ?? 0) : (d.numFiles ?? 0);
}

export function grepSection(g: GrepFigures): string {
  const rows = g.cases.map((c) => `| ${c.label} | ${fmt(c.toolMs, 0)} ms | ${Number.isFinite(c.rgMs) ? `${fmt(c.rgMs, 0)} ms` : '-'} | ${Number.isFinite(c.rgMs) ? fmt(c.toolMs / c.rgMs, 2) : '-'} | ${c.toolHits} / ${Number.isFinite(c.rgHits) ? c.rgHits : '-'} |`);
  return `## 10. Grep against ripgrep

agentloop's Grep tool (src/tools/grep/: a walk honouring the ignore files, each file read in the agent's process, a
file with a NUL byte skipped, a plain word looked for in the bytes before any decoding) and ${g.rg ?? 'rg (not installed here)'},
over ${TREE} (${g.files.toLocaleString('en-US')} files rg lists), the same search Claude Code asks of its rg; medians of
${g.rounds} interleaved rounds ([bench/grep.ts](bench/grep.ts)). rg runs its walk and search on every core with
SIMD literal search; the tool searches on the event loop, in slices of at most 8 ms (the agent's loop goes on between).

| Search | Grep tool | rg | tool ÷ rg | hits (tool / rg) |
|---|---|---|---|---|
${rows.join('\n')}
`;
}
