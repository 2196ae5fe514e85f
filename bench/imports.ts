/**
 * What loading costs: each module imported alone in a fresh `node` process (ESM), wall and CPU ms of the import, median
 * of several runs, next to an empty import (Node's own start-up is not counted: the clock starts in the process).
 *
 *   npx tsx bench/imports.ts [runs]        (build dist/ first: npm run build)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;

/** What a `-p` run loads, piece by piece, and what the plain loop loads. */
export const MODULES: Array<[string, string]> = [
  ['nothing (node:fs only)', 'node:fs'],
  ['@anthropic-ai/sdk (all the plain loop loads)', '@anthropic-ai/sdk'],
  ['xstate', 'xstate'],
  ['execa', 'execa'],
  ['dist/cli/args.js (the parser)', dist('cli/commandLine/args.js')],
  ['dist/cli/run.js (what main.js loads for -p)', dist('cli/commands/run.js')],
  ['dist/machine/agentMachine.js (machine + xstate)', dist('machine/agentMachine.js')],
  ['dist/tools/bash/bashTool.js (bash tool; the process runner loads at its first use)', dist('tools/bash/bashTool.js')],
  ['dist/tools/bash/run/process.js (the process runner)', dist('tools/bash/run/process.js')],
  ['dist/run/runAgent.js (runAgent: machine, tools)', dist('run/runAgent.js')],
  ['dist/anthropic/call.js (adapter + SDK)', dist('anthropic/call.js')],
  ['dist/transcript/recorder.js (transcript)', dist('transcript/recorder.js')],
  ['everything a -p run loads', `${dist('cli/commands/run.js')}","${dist('run/runAgent.js')}","${dist('anthropic/call.js')}","${dist('cli/setup/session.js')}`],
];

function importOnce(specifiers: string): { wallMs: number; cpuMs: number } {
  const list = specifiers.split('","');
  const code = `const t = performance.now(); const c = process.cpuUsage();
for (const s of ${JSON.stringify(list)}) await import(s);
const u = process.cpuUsage(c); console.log(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (u.user + u.system) / 1000 }));`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`import of ${specifiers} failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim()) as { wallMs: number; cpuMs: number };
}

export function measureImports(runs = 7): Array<{ label: string; wallMs: number; cpuMs: number }> {
  const samples = MODULES.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let r = 0; r < runs; r++) {
    MODULES.forEach(([, spec], i) => {
      const x = importOnce(spec);
      samples[i]?.wall.push(x.wallMs);
      samples[i]?.cpu.push(x.cpuMs);
    });
  }
  return MODULES.map(([label], i) => ({ label, wallMs: median(samples[i]?.wall ?? []), cpuMs: median(samples[i]?.cpu ?? []) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('| module | import wall ms | import CPU ms |\n|---|---|---|');
  for (const m of measureImports(Number(process.argv[2] ?? 7))) console.log(`| ${m.label} | ${m.wallMs.toFixed(1)} | ${m.cpuMs.toFixed(1)} |`);
}
