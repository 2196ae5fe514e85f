/**
 * `npm run diagrams`: diagrams/agent-loop.svg, drawn from the machine definition by the same code
 * as the viewer's diagram (src/diagram/: graph, ELK layout, SVG; no browser); diagrams/lesson-loop.svg
 * and lesson-loop.zh.svg, the chapter's loop as the viewer's lesson draws it (src/view/lesson/layout.ts);
 * and the sequence diagram of the two-turn example (render-diagrams.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineDiagramSvg } from '../src/diagram/index.js';
import { agentMachine } from '../src/machine/agentMachine.js';
import { lessonSvg } from '../src/view/lesson/layout.js';
import { writeTwoTurnDiagram } from './render-diagrams.js';

const dir = fileURLToPath(new URL('../diagrams/', import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}agent-loop.svg`, await machineDiagramSvg(agentMachine));
console.log(`wrote ${dir}agent-loop.svg`);
for (const [file, lang] of [['lesson-loop.svg', 'en'], ['lesson-loop.zh.svg', 'zh']] as const) {
  writeFileSync(`${dir}${file}`, lessonSvg(lang));
  console.log(`wrote ${dir}${file}`);
}
for (const file of await writeTwoTurnDiagram(dir)) console.log(`wrote ${file}`);
