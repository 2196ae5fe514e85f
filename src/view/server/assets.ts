/**
 * The viewer's page files: index.html, main.js and main.css, bundled at build time into
 * dist/view/client/ (scripts/build-client.mjs). Run from the sources (tests, tsx), the server
 * finds them in the build of the same tree.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { machineGraph, type MachineGraph } from '../../diagram/graph.js';
import { machineLayout, machineSvg } from '../../diagram/index.js';

// From dist/view/server/ (beside the client in dist/view/), from src/ (tests), and from dist/cli/chunks/ (the bundled CLI).
const CANDIDATES = [new URL('../client/', import.meta.url), new URL('../../../dist/view/client/', import.meta.url), new URL('../../view/client/', import.meta.url)];

function clientDir(): string {
  for (const dir of CANDIDATES) if (existsSync(new URL('main.js', dir))) return fileURLToPath(dir);
  throw new Error('the viewer’s client is not built: run `npm run build`');
}

export const CLIENT_FILES: Record<string, string> = {
  'main.js': 'text/javascript; charset=utf-8',
  'main.css': 'text/css; charset=utf-8',
};

export function clientFile(name: string): string {
  return readFileSync(`${clientDir()}${name}`, 'utf8');
}

/** JSON for a `<script type="application/json">` element: `<` escaped so it cannot close it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * The page, with its config. The config holds data (session ids from transcript headers): it goes in through a
 * function, never as a replacement string, where `$'`, `$&` or `$\`` in an id would paste parts of the page instead.
 */
export function viewerPage(config: { defaultSession: string | null; command?: string; startAtEnd?: boolean; compare?: [string, string]; stepping?: boolean; approvals?: boolean; lang?: string }): string {
  const json = scriptJson(config);
  return clientFile('index.html').replace(
    '<script type="application/json" id="agentloop-config">{}</script>',
    () => `<script type="application/json" id="agentloop-config">${json}</script>`,
  );
}

export interface MachineView {
  svg: string;
  edges: Array<{ id: string; label: string }>;
}

const views = new WeakMap<AnyStateMachine, Promise<MachineView>>();
const graphs = new WeakMap<AnyStateMachine, MachineGraph>();

/** The machine's graph (which edges a step took is worked out on it). */
export function graphOf(machine: AnyStateMachine): MachineGraph {
  let graph = graphs.get(machine);
  if (!graph) graphs.set(machine, (graph = machineGraph(machine)));
  return graph;
}

/** The machine laid out for the page (ELK: seconds of this thread on a loaded machine). */
export async function layOutView(machine: AnyStateMachine): Promise<MachineView> {
  const layout = await machineLayout(machine);
  return { svg: machineSvg(layout, { standalone: true }), edges: layout.edges.map((e) => ({ id: e.id, label: e.label })) };
}

/** What the build lays out ahead (scripts/build-machine-view.mjs): the view of the machine whose graph is `graph`. */
export interface ShippedView {
  graph: MachineGraph;
  view: MachineView;
}

export const SHIPPED_VIEW = 'machine.json';

/** The build's view of `machine`, if the build made one for a machine of the same graph. */
function shippedView(machine: AnyStateMachine): MachineView | undefined {
  try {
    const shipped = JSON.parse(clientFile(SHIPPED_VIEW)) as ShippedView;
    return JSON.stringify(shipped.graph) === JSON.stringify(graphOf(machine)) ? shipped.view : undefined;
  } catch {
    return undefined; // not built (or not readable): laid out here
  }
}

/** The diagram the page shows: the build's, or laid out once per process. */
export function machineView(machine: AnyStateMachine): Promise<MachineView> {
  let view = views.get(machine);
  if (!view) {
    const shipped = shippedView(machine);
    view = shipped ? Promise.resolve(shipped) : layOutView(machine);
    views.set(machine, view);
  }
  return view;
}
