// The agent machine's diagram laid out at build time (ELK takes seconds of the viewer's thread on a loaded machine):
// dist/view/client/machine.json holds it with the graph it was laid out from; the viewer uses it for a machine of
// the same graph (src/view/server/assets.ts) and lays any other out itself.
import { writeFileSync } from 'node:fs';
import { graphOf, layOutView, SHIPPED_VIEW } from '../dist/view/server/assets.js';
import { agentMachine } from '../dist/machine/agentMachine.js';

const shipped = { graph: graphOf(agentMachine), view: await layOutView(agentMachine) };
writeFileSync(new URL(`../dist/view/client/${SHIPPED_VIEW}`, import.meta.url), JSON.stringify(shipped));
