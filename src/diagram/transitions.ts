import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** One transition of the machine definition, in a form tests and diagrams can name. */
export interface TransitionInfo {
  /** Stable, readable name: `source --event [guard]--> target`. */
  key: string;
  source: string;
  /** Readable event: an event type, `always`, `done: model`, `error: tools`, `after: retryDelay`. */
  event: string;
  guard?: string;
  /** Target state ids (machine id stripped); empty for a targetless transition. */
  targets: string[];
  /** What the transition does, without the actions that only announce it (`ANNOUNCEMENTS`). */
  actions: string[];
}

/** The machine's actions that only emit events (core/events.ts): left out of diagrams. */
export const ANNOUNCEMENTS: ReadonlySet<string> = new Set(['enter', 'decide', 'announceRetry']);

/** A transition of a state node of the machine definition, reduced to what we read. */
export interface TransitionLike {
  source: { id: string };
  target?: ReadonlyArray<{ id: string }> | undefined;
  eventType: string;
  guard?: unknown;
  actions: readonly unknown[];
}

function shortId(id: string): string {
  return id.split('.').slice(1).join('.') || id;
}

export function readableEvent(eventType: string): string {
  if (eventType === '') return 'always';
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType);
  if (done) return `done: ${done[1]}`;
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType);
  if (error) return `error: ${error[1]}`;
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after) return `after: ${after[1]}`;
  return eventType;
}

function nameOf(item: unknown): string {
  if (typeof item === 'string') return item;
  if (item && typeof item === 'object' && 'type' in item && typeof item.type === 'string') {
    const params = 'params' in item ? item.params : undefined;
    return typeof params === 'string' ? `${item.type}(${params})` : item.type;
  }
  if (typeof item === 'function') return item.name || 'inline';
  return 'inline';
}

export function describeTransition(t: TransitionLike): TransitionInfo {
  const source = shortId(t.source.id);
  const event = readableEvent(t.eventType);
  const targets = (t.target ?? []).map((s) => shortId(s.id));
  const guard = t.guard === undefined ? undefined : nameOf(t.guard);
  const key = `${source} --${event}${guard ? ` [${guard}]` : ''}--> ${targets.length ? targets.join(',') : '(stays)'}`;
  const actions = t.actions.map(nameOf).filter((name) => !ANNOUNCEMENTS.has(name));
  return { key, source, event, ...(guard ? { guard } : {}), targets, actions };
}

/** Every state node below the root, depth first, in definition order. */
export function stateNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const visit = (node: AnyStateNode) => {
    out.push(node);
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return out;
}

/** Every transition of the machine definition: event handlers, invoke done/error, delays, `always`. */
export function listTransitions(machine: AnyStateMachine): TransitionInfo[] {
  return stateNodes(machine).flatMap((node) => [
    ...[...node.transitions.values()].flat().map((t) => describeTransition(t as TransitionLike)),
    ...(node.always ?? []).map((t) => describeTransition(t as TransitionLike)),
  ]);
}
