/**
 * The part of `npm run diagrams` beyond agent-loop.mmd: the sequence diagram of the two-turn
 * example (from a real run: the scripted demo model and the real bash tool, in a scratch
 * directory with known files) and an SVG of every diagram, rendered offline by mermaid-cli with
 * Debian's chromium (scripts/puppeteer.json; PUPPETEER_EXECUTABLE_PATH overrides the path).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '@mermaid-js/mermaid-cli';
import { DEMO_PROMPT, demoModel } from '../src/cli/demo.js';
import { runAgent } from '../src/session/run.js';
import { type RunEvent } from '../src/core/events.js';
import { sequenceDiagram } from '../src/view/sequence.js';

/** Runs the two-turn example and writes its sequence diagram to `dir/two-turn.mmd`. */
export async function writeTwoTurnSequence(dir: string): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'agentloop-two-turn-'));
  try {
    writeFileSync(join(work, 'README.md'), '# demo\n');
    writeFileSync(join(work, 'main.py'), 'print("hello")\n');
    const events: RunEvent[] = [];
    const result = await runAgent(DEMO_PROMPT, {
      model: 'scripted-demo',
      modelCall: demoModel().call,
      cwd: work,
      onEvent: (event) => events.push(event),
    });
    if (result.context.exitReason !== 'completed') throw new Error(`the two-turn example ended with ${result.context.exitReason}`);
    const out = join(dir, 'two-turn.mmd');
    writeFileSync(out, sequenceDiagram(events, { prompt: DEMO_PROMPT, answer: result.text }));
    return out;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function puppeteerConfig(): Record<string, unknown> {
  const config = JSON.parse(readFileSync(new URL('./puppeteer.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const path = process.env.PUPPETEER_EXECUTABLE_PATH;
  return path ? { ...config, executablePath: path } : config;
}

/** Renders each `.mmd` file to an `.svg` beside it. */
export async function renderSvgs(files: readonly string[]): Promise<string[]> {
  const written: string[] = [];
  for (const file of files) {
    const svg = file.replace(/\.mmd$/, '.svg') as `${string}.svg`;
    // A fixed seed: mermaid draws choice diamonds with rough.js, randomly unless seeded.
    await run(file, svg, { puppeteerConfig: puppeteerConfig(), quiet: true, parseMMDOptions: { mermaidConfig: { handDrawnSeed: 1 } } });
    written.push(svg);
  }
  return written;
}

export async function renderDiagrams(dirUrl: URL, mmdFiles: readonly string[]): Promise<void> {
  const dir = fileURLToPath(dirUrl);
  mkdirSync(dir, { recursive: true });
  const sequence = await writeTwoTurnSequence(dir);
  console.log(`wrote ${sequence}`);
  for (const svg of await renderSvgs([...mmdFiles, sequence])) console.log(`wrote ${svg}`);
}
