/** The machine's diagram, one pipeline: definition -> graph -> ELK layout -> SVG. */
import type { AnyStateMachine } from 'xstate';
import { machineGraph } from './graph.js';
import { layoutMachine, type MachineLayout } from './layout.js';
import { machineSvg } from './svg.js';

export { machineGraph, type MachineEdge, type MachineGraph, type MachineNode, type NodeKind } from './graph.js';
export { layoutMachine, type MachineLayout, type PlacedEdge, type PlacedNode } from './layout.js';
export { machineSvg, DIAGRAM_CSS, type SvgOptions } from './svg.js';

/** The machine laid out (what the viewer draws and highlights). */
export function machineLayout(machine: AnyStateMachine): Promise<MachineLayout> {
  return layoutMachine(machineGraph(machine));
}

/** A standalone SVG file of the machine (diagrams/agent-loop.svg). */
export async function machineDiagramSvg(machine: AnyStateMachine): Promise<string> {
  return `${machineSvg(await machineLayout(machine), { standalone: true })}\n`;
}
