import { describe, expect, it } from 'vitest';
import { listTransitions, stateNodes } from '../../src/diagram/transitions.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { machineGraph, type GraphNode } from '../../src/view/graph.js';

const graph = machineGraph(agentMachine);
const boxes = graph.nodes.filter((n) => n.kind !== 'compound');
const overlaps = (a: GraphNode, b: GraphNode) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('the viewer’s diagram, derived from the machine', () => {
  it('has a node for every state and an edge for every transition that changes state', () => {
    const ids = stateNodes(agentMachine)
      .filter((n) => n !== agentMachine.root)
      .map((n) => n.id.split('.').slice(1).join('.'));
    expect(graph.nodes.map((n) => n.id).sort()).toEqual(ids.sort());
    const pairs = new Set(graph.edges.map((e) => `${e.source}->${e.target}`));
    const topLevel = Object.keys(agentMachine.root.states).filter((k) => !['done', 'failed', 'aborted'].includes(k));
    for (const t of listTransitions(agentMachine)) {
      // The machine's own transitions (the tool runner's error) leave from every top-level state.
      const sources = t.source === agentMachine.id ? topLevel : [t.source];
      for (const source of sources) for (const target of t.targets) expect(pairs, t.key).toContain(`${source}->${target}`);
    }
  });

  it('marks the states the machine only passes through, and the final ones', () => {
    const kind = (key: string) => graph.nodes.find((n) => n.key === key);
    expect(kind('checkingReply')).toMatchObject({ kind: 'choice', transient: true });
    expect(kind('appendingResults')).toMatchObject({ kind: 'state', transient: true });
    expect(kind('callingModel')).toMatchObject({ kind: 'state', transient: false, parent: 'turn' });
    expect(['done', 'failed', 'aborted'].map((k) => kind(k)?.kind)).toEqual(['final', 'final', 'final']);
  });

  it('lays boxes out without overlaps, inside the drawing, with only a compound’s children in its frame', () => {
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) expect(overlaps(a, b), `${a.key} / ${b.key}`).toBe(false);
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.y).toBeGreaterThanOrEqual(0);
      expect(a.x + a.w).toBeLessThanOrEqual(graph.width);
      expect(a.y + a.h).toBeLessThanOrEqual(graph.height);
    }
    const frame = graph.nodes.find((n) => n.kind === 'compound') as GraphNode;
    for (const box of boxes) expect(overlaps(frame, box), box.key).toBe(box.parent === frame.id);
  });

  it('tells the page which states each edge joins, a compound standing for its leaves', () => {
    const loop = graph.edges.find((e) => e.source === 'appendingResults' && e.target === 'turn');
    expect(loop).toMatchObject({ back: true, targetKey: 'callingModel', labels: ['[else]'] });
    const toolRunnerFailed = graph.edges.find((e) => e.source === 'turn');
    expect(toolRunnerFailed?.sourceKeys.sort()).toEqual(['callingModel', 'checkingError', 'checkingReply', 'executingTools']);
    const completed = graph.edges.find((e) => e.source === 'turn.checkingReply' && e.target === 'done');
    expect(completed?.labels).toEqual(['[isRefusal]', '[isCutByMaxTokens]', '[else]']);
  });
});
