/**
 * `npm run diagrams`: writes diagrams/agent-loop.mmd from the machine definition, then the
 * two-turn sequence diagram and the SVGs of both (render-diagrams.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { toMermaid } from '../src/diagram/mermaid.js';
import { agentMachine } from '../src/machine/agentMachine.js';
import { renderDiagrams } from './render-diagrams.js';

const out = new URL('../diagrams/agent-loop.mmd', import.meta.url);
mkdirSync(new URL('../diagrams/', import.meta.url), { recursive: true });
writeFileSync(out, toMermaid(agentMachine));
console.log(`wrote ${out.pathname}`);
await renderDiagrams(new URL('../diagrams/', import.meta.url), [out.pathname]);
