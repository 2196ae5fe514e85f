/**
 * The two-turn example as a sequence diagram: run for real (the scripted demo model and the real
 * bash tool, in a scratch directory with known files), written as Mermaid (src/view/lesson/sequence.ts)
 * and rendered to SVG by the `mermaid` package inside Debian's chromium, driven by playwright-core
 * (offline: the page is built here, nothing is fetched). CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { DEMO_PROMPT, demoModel } from '../src/cli/commands/demo.js';
import { defaultTools } from '../src/run/defaultTools.js';
import { runAgent } from '../src/run/runAgent.js';
import { type RunEvent } from '../src/core/events.js';
import { sequenceDiagram } from '../src/view/lesson/sequence.js';

/** Runs the two-turn example and gives back its sequence diagram (Mermaid text). */
export async function twoTurnSequence(): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'agentloop-two-turn-'));
  try {
    writeFileSync(join(work, 'README.md'), '# demo\n');
    writeFileSync(join(work, 'main.py'), 'print("hello")\n');
    const events: RunEvent[] = [];
    const result = await runAgent(DEMO_PROMPT, {
      model: 'scripted-demo',
      modelCall: demoModel().call,
      cwd: work,
      tools: defaultTools({ cwd: work }),
      onEvent: (event) => events.push(event),
    });
    if (result.context.exitReason !== 'completed') throw new Error(`the two-turn example ended with ${result.context.exitReason}`);
    return sequenceDiagram(events, { prompt: DEMO_PROMPT, answer: result.text });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Renders Mermaid text to SVG in headless chromium. */
export async function renderMermaid(text: string): Promise<string> {
  const mermaidJs = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ path: mermaidJs });
    return await page.evaluate(async (definition) => {
      const { mermaid } = window as unknown as {
        mermaid: { initialize(c: object): void; render(id: string, text: string): Promise<{ svg: string }> };
      };
      mermaid.initialize({ startOnLoad: false, deterministicIds: true, theme: 'default' });
      return (await mermaid.render('two-turn', definition)).svg;
    }, text);
  } finally {
    await browser.close();
  }
}

/** Writes `dir/two-turn.mmd` and `dir/two-turn.svg`. */
export async function writeTwoTurnDiagram(dir: string): Promise<string[]> {
  const text = await twoTurnSequence();
  const mmd = join(dir, 'two-turn.mmd');
  const svg = join(dir, 'two-turn.svg');
  writeFileSync(mmd, text);
  writeFileSync(svg, `${await renderMermaid(text)}\n`);
  return [mmd, svg];
}
