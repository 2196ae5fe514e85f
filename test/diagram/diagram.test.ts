import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { machineDiagramSvg, machineGraph, machineLayout } from '../../src/diagram/index.js';
import type { Box } from '../../src/diagram/layout.js';
import { listTransitions } from '../../src/diagram/transitions.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { lessonSvg } from '../../src/view/lesson/layout.js';

const graph = machineGraph(agentMachine);
const layout = await machineLayout(agentMachine);
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const inside = (a: Box, b: Box) => a.x >= b.x && a.y >= b.y && a.x + a.w <= b.x + b.w && a.y + a.h <= b.y + b.h;

describe('the machine graph, read from the definition', () => {
  it('has one edge per branch: every guard of a choice its own edge and label', () => {
    for (const t of listTransitions(agentMachine)) {
      for (const target of t.targets) {
        const edges = graph.edges.filter((e) => e.source === t.source && e.target === target && e.event === t.event && e.guard === (t.guard ?? e.guard));
        expect(edges.length, t.key).toBeGreaterThan(0);
      }
    }
    const toDone = graph.edges.filter((e) => e.source === 'turn.checkingReply' && e.target === 'done');
    expect(toDone.map((e) => e.label)).toEqual(['[isRefusal]', '[isCutByMaxTokens]', '[else]']);
    expect(toDone.map((e) => e.details[0])).toEqual(['/ exit(refusal)', '/ exit(max_tokens)', '/ exit(completed)']);
    expect(new Set(graph.edges.map((e) => e.id)).size).toBe(graph.edges.length);
  });

  it('draws the machine’s own transition (the tool runner failing) from the machine’s frame, taken from any state', () => {
    const edge = graph.edges.find((e) => e.event === 'error: tools');
    expect(edge).toMatchObject({ source: 'agent', target: 'failed', targetKey: 'failed' });
    expect(edge?.sourceKeys.sort()).toEqual(['appendingResults', 'callingModel', 'checkingContext', 'checkingError', 'checkingReply', 'compacting', 'executingTools', 'waitingToRetry']);
    expect(graph.nodes.find((n) => n.id === 'agent')).toMatchObject({ kind: 'machine', rows: ['invoke runTools'] });
  });

  it('lists what a state does while the machine is in it', () => {
    const node = (id: string) => graph.nodes.find((n) => n.id === id);
    expect(node('turn.callingModel')?.rows).toEqual(['invoke callModel', 'on TOOL_USE_READY']);
    expect(node('turn.checkingReply')).toMatchObject({ kind: 'choice', transient: true });
    // The machine rests in appendingResults (a snapshot of its own) until the event it sends itself.
    expect(node('appendingResults')).toMatchObject({ kind: 'state', transient: false, rows: ['entry appendResults, markTransitionReason, sendResultsAppended'] });
    expect(['done', 'failed', 'aborted'].map((id) => node(id)?.kind)).toEqual(['final', 'final', 'final']);
  });
});

describe('the layout (ELK)', () => {
  const leaves = layout.nodes.filter((n) => n.kind !== 'machine' && n.kind !== 'compound');
  const labels = layout.edges.flatMap((e) => (e.labelBox ? [{ id: e.id, box: e.labelBox }] : []));

  it('puts no label over a node or another label, and every box inside the drawing', () => {
    for (const label of labels) {
      for (const node of leaves) expect(overlap(label.box, node), `${label.id} over ${node.id}`).toBe(false);
      for (const other of labels) if (other !== label) expect(overlap(label.box, other.box), `${label.id} over ${other.id}`).toBe(false);
    }
    for (const [i, a] of leaves.entries()) for (const b of leaves.slice(i + 1)) expect(overlap(a, b), `${a.id} / ${b.id}`).toBe(false);
    for (const node of layout.nodes) expect(inside(node, { x: 0, y: 0, w: layout.width, h: layout.height }), node.id).toBe(true);
  });

  it('keeps each state inside its parent’s frame', () => {
    for (const node of layout.nodes) {
      const parent = layout.nodes.find((p) => p.id === node.parent);
      if (parent) expect(inside(node, parent), `${node.id} in ${parent.id}`).toBe(true);
    }
  });

  it('ends every edge on the border of its target and starts it on its source', () => {
    const near = (p: { x: number; y: number }, b: Box) => p.x >= b.x - 1 && p.x <= b.x + b.w + 1 && p.y >= b.y - 1 && p.y <= b.y + b.h + 1;
    for (const edge of layout.edges) {
      const source = layout.nodes.find((n) => n.id === edge.source) as Box;
      const target = layout.nodes.find((n) => n.id === edge.target) as Box;
      expect(edge.points.length, edge.id).toBeGreaterThanOrEqual(2);
      expect(near(edge.points[0] as { x: number; y: number }, source), `${edge.id} starts on ${edge.source}`).toBe(true);
      expect(near(edge.points.at(-1) as { x: number; y: number }, target), `${edge.id} ends on ${edge.target}`).toBe(true);
    }
  });
});

describe('diagrams/agent-loop.svg', () => {
  it('is what `npm run diagrams` draws from the machine definition (run it when this fails)', async () => {
    const committed = readFileSync(new URL('../../diagrams/agent-loop.svg', import.meta.url), 'utf8');
    expect(committed).toBe(await machineDiagramSvg(agentMachine));
  });

  it('is the diagram the README shows one click past the chapter’s loop', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('](diagrams/agent-loop.svg)');
    expect(readme).not.toContain('```mermaid');
  });
});

describe('diagrams/lesson-loop.svg (and .zh.svg)', () => {
  it('is the chapter’s loop as the viewer draws it (`npm run diagrams` when this fails), the README’s first picture', () => {
    for (const [file, lang] of [['lesson-loop.svg', 'en'], ['lesson-loop.zh.svg', 'zh']] as const) {
      expect(readFileSync(new URL(`../../diagrams/${file}`, import.meta.url), 'utf8'), file).toBe(lessonSvg(lang));
    }
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const pictures = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
    expect(pictures[0]).toBe('diagrams/lesson-loop.svg');
  });
});
