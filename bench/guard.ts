/**
 * The bash guard's parser (tree-sitter-bash through web-tree-sitter), as shipped in dist/:
 * - first load in a fresh process (import, WebAssembly init, grammar), over several processes;
 * - per command, once loaded: the guard (`findDanger`, one parse), and what `isConcurrencySafe` does (the
 *   guard and the read-only check on one parse); for a line of plain words, the same before the parser has loaded
 *   (shell/plain.ts);
 * - the first tool run of a fresh process, with the tool's `prepare` called while a model call
 *   would be under way (300 ms here) and without it, next to the second run.
 * Output on stdout. `npx tsx bench/guard.ts [--processes N]`
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findDanger } from '../src/tools/bash/judge/guard.js';
import { isSafeAlongside } from '../src/tools/bash/judge/checks.js';
import { loadShellParser } from '../src/tools/bash/judge/shell/load.js';
import { parserReader, plainReader, type ReadScript } from '../src/tools/bash/judge/shell/reader.js';
import { build } from './build.js';
import { fmt, median, now } from './stats.js';

const processes = Number(process.argv[process.argv.indexOf('--processes') + 1]) || 8;
const dist = (path: string) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));

const COMMANDS = [
  'ls -la src',
  'git status && git diff --stat',
  'npm test 2>&1 | tail -50',
  'x=rm; $x -rf /',
  'echo cm0gLXJmIC8K | base64 -d | bash',
  'cd / && rm -rf *',
  'find . -name "*.ts" -not -path "./node_modules/*" | xargs grep -n "TODO" | head -20',
  `cat > src/x.ts <<'EOF'\n${'export const a = 1;\n'.repeat(200)}EOF`,
  'for f in src/*.ts; do echo "$f: $(wc -l < "$f")"; done',
];

/** Runs `script` (an ES module body) in a fresh node and returns what it prints as JSON. */
function fresh(script: string): Record<string, number> {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fresh process failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim()) as Record<string, number>;
}

const loadScript = `
const t0 = performance.now();
const { loadShellParser } = await import(${JSON.stringify(dist('tools/bash/judge/shell/load.js'))});
const t1 = performance.now();
await loadShellParser();
const t2 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, loadMs: t2 - t1, rssMiB: process.memoryUsage().rss / 2 ** 20 }));`;

const runScript = (prepare: boolean) => `
const { createBashTool } = await import(${JSON.stringify(dist('tools/bash/bashTool.js'))});
const tool = createBashTool({ contain: false });
const context = { cwd: process.cwd(), signal: new AbortController().signal };
${prepare ? 'tool.prepare();' : ''}
await new Promise((r) => setTimeout(r, 300));
let t = performance.now();
await tool.run({ command: 'true' }, context);
const firstMs = performance.now() - t;
t = performance.now();
await tool.run({ command: 'true' }, context);
console.log(JSON.stringify({ firstMs, secondMs: performance.now() - t }));`;

async function main(): Promise<void> {
  const built = build();
  if (!built.ok) throw new Error(`build failed: ${built.error}`);
  const loads = Array.from({ length: processes }, () => fresh(loadScript));
  console.log(`first load in a fresh process (median of ${processes}):`);
  console.log(`  import of the loader ${fmt(median(loads.map((l) => l.importMs ?? 0)))} ms, parser ready after ${fmt(median(loads.map((l) => l.loadMs ?? 0)))} ms more; RSS then ${fmt(median(loads.map((l) => l.rssMiB ?? 0)))} MiB`);

  const read = parserReader(await loadShellParser());
  const rounds = 200;
  const perCommand = (reader: ReadScript, command: string): string => {
    const guard: number[] = [];
    const safe: number[] = [];
    for (let i = 0; i < rounds; i++) {
      let t = now();
      findDanger(reader(command), reader);
      guard.push(now() - t);
      t = now();
      isSafeAlongside(reader, command);
      safe.push(now() - t);
    }
    return `${fmt(median(guard) * 1000)} µs guard, ${fmt(median(safe) * 1000)} µs isConcurrencySafe`;
  };
  console.log(`per command, parser loaded (median of ${rounds} rounds):`);
  for (const command of COMMANDS) {
    const shown = command.length > 60 ? `${JSON.stringify(command.slice(0, 57))}... (${command.length} chars)` : JSON.stringify(command);
    console.log(`  ${perCommand(read, command)}  ${shown}`);
  }
  console.log(`per command of plain words, before the parser has loaded (median of ${rounds} rounds):`);
  for (const command of ['ls -la src', 'git status && git diff --stat', 'cd / && rm -rf usr']) {
    console.log(`  ${perCommand(plainReader, command)}  ${JSON.stringify(command)}`);
  }

  console.log(`first tool run of a fresh process, 300 ms after start (median of ${processes}; contain: false):`);
  for (const prepare of [true, false]) {
    const runs = Array.from({ length: processes }, () => fresh(runScript(prepare)));
    console.log(`  ${prepare ? 'with prepare   ' : 'without prepare'}: first ${fmt(median(runs.map((r) => r.firstMs ?? 0)))} ms, second ${fmt(median(runs.map((r) => r.secondMs ?? 0)))} ms`);
  }
}

await main();
