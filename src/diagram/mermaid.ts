import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { listTransitions, stateNodes, type TransitionInfo } from './transitions.js';

const nodeName = (id: string) => id.split('.').pop() ?? id;

/** A state with only eventless transitions and nothing else: drawn as a choice. */
function isChoice(node: AnyStateNode): boolean {
  return (
    (node.always?.length ?? 0) > 0 && node.transitions.size === 0 && node.entry.length === 0 && node.invoke.length === 0
  );
}

function label(t: TransitionInfo, siblings: TransitionInfo[]): string {
  // An unguarded branch beside guarded ones of the same event is their `else`.
  const guarded = siblings.some((s) => s.guard && s.event === t.event);
  const condition = t.guard ? `[${t.guard}]` : guarded ? '[else]' : '';
  const event = t.event === 'always' ? '' : t.event;
  const actions = t.actions.filter((a) => a !== 'inline');
  return [event, condition].filter(Boolean).join(' ') + (actions.length ? ` / ${actions.join(', ')}` : '');
}

/**
 * Mermaid `stateDiagram-v2` of a machine, derived from its definition: compound states become
 * composite states, eventless decision states become choices, targetless handlers become notes.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const transitions = listTransitions(machine);
  const lines = ['stateDiagram-v2'];
  const declare = (node: AnyStateNode, indent: string) => {
    const name = nodeName(node.id);
    const children = Object.values(node.states);
    if (children.length > 0) {
      lines.push(`${indent}state ${name} {`);
      const initial = node.initial?.target?.[0];
      if (initial) lines.push(`${indent}  [*] --> ${nodeName(initial.id)}`);
      for (const child of children) declare(child, `${indent}  `);
      lines.push(`${indent}}`);
    } else if (isChoice(node)) {
      lines.push(`${indent}state ${name} <<choice>>`);
    } else {
      lines.push(`${indent}${name}`);
    }
  };
  const root = machine.root;
  const initial = root.initial?.target?.[0];
  if (initial) lines.push(`  [*] --> ${nodeName(initial.id)}`);
  for (const child of Object.values(root.states)) declare(child, '  ');

  const notes = new Map<string, string[]>();
  const rootSource = nodeName(root.id);
  for (const t of transitions) {
    const from = nodeName(t.source);
    const siblings = transitions.filter((s) => s.source === t.source && s.event === t.event);
    if (t.source === rootSource) {
      // A transition of the machine itself can be taken from any state: a note on its target.
      for (const target of t.targets) {
        const name = nodeName(target);
        notes.set(name, [...(notes.get(name) ?? []), `from any state on ${label(t, siblings)}`]);
      }
      continue;
    }
    if (t.targets.length === 0) {
      notes.set(from, [...(notes.get(from) ?? []), `on ${t.event}${t.guard ? ` [${t.guard}]` : ''} / ${t.actions.join(', ')}`]);
      continue;
    }
    for (const target of t.targets) lines.push(`  ${from} --> ${nodeName(target)} : ${label(t, siblings)}`);
  }
  // The block form: a one-line note may not hold a second colon (`error: tools`).
  for (const [state, handlers] of notes) lines.push(`  note right of ${state}`, ...handlers.map((h) => `    ${h}`), '  end note');
  for (const node of stateNodes(machine)) {
    if (node.type === 'final') lines.push(`  ${nodeName(node.id)} --> [*]`);
  }
  return `${lines.join('\n')}\n`;
}
