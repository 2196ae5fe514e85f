/**
 * The viewer's diagram is laid out at build time (scripts/build-machine-view.mjs): ELK takes seconds of the viewer's
 * thread on a loaded machine, which a page opened at once waited for (BENCHMARKS.md row 8c). The shipped layout must
 * be the one the viewer would make now, for the graph of the machine as it is: no drift.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../../src/machine/agentMachine.js';
import { graphOf, layOutView, machineView, SHIPPED_VIEW, type ShippedView } from '../../../src/view/server/assets.js';

const shippedPath = fileURLToPath(new URL(`../../../dist/view/client/${SHIPPED_VIEW}`, import.meta.url));

describe("the build's diagram", () => {
  it('is laid out from the machine as it is, and is the layout the viewer would make', async () => {
    const shipped = JSON.parse(readFileSync(shippedPath, 'utf8')) as ShippedView;
    expect(shipped.graph).toEqual(JSON.parse(JSON.stringify(graphOf(agentMachine))));
    expect(shipped.view).toEqual(await layOutView(agentMachine));
  }, 60_000);

  it('is what the viewer serves for the agent machine', async () => {
    const shipped = JSON.parse(readFileSync(shippedPath, 'utf8')) as ShippedView;
    expect(await machineView(agentMachine)).toEqual(shipped.view);
  });
});
