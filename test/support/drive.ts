import { createActor, toPromise, type Actor } from 'xstate';
import { describeTransition, type TransitionLike } from '../../src/diagram/transitions.js';
import { historyProblems } from '../../src/history/validate.js';
import type { RunConfig } from '../../src/core/config.js';
import { scriptedModel, type ScriptStep } from '../../src/scripted/model.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { ModelRequest } from '../../src/core/model.js';
import { createAgentMachine } from '../../src/session/actors.js';
import { toolDefinition, type Tool } from '../../src/core/tool.js';

/** Transition keys taken by any machine driven through `drive`, for the coverage test. */
export const takenTransitions = new Set<string>();

export interface DriveOptions {
  steps: ScriptStep[];
  tools?: Tool[];
  config?: Partial<RunConfig>;
  messages?: MessageParam[];
  modelDelayMs?: number;
  /** Called once the actor has started: to send ABORT at the right moment, say. */
  onStart?: (actor: Actor<ReturnType<typeof createAgentMachine>>) => void;
  /** Replace the machine (e.g. a broken tool runner); default: the real one with the scripted model. */
  machine?: ReturnType<typeof createAgentMachine>;
}

export interface Driven {
  context: Awaited<ReturnType<typeof toPromise<Actor<ReturnType<typeof createAgentMachine>>>>>;
  finalState: string;
  requests: ModelRequest[];
  /** Leaf states the machine settled in, in order. */
  states: string[];
}

/** Runs the real machine with a scripted model and records every transition it takes. */
export async function drive(options: DriveOptions): Promise<Driven> {
  const tools = options.tools ?? [];
  const model = scriptedModel(options.steps, options.modelDelayMs ? { delayMs: options.modelDelayMs } : {});
  const machine = options.machine ?? createAgentMachine({ model: model.call, tools, cwd: process.cwd() });
  const states: string[] = [];
  const actor = createActor(machine, {
    input: {
      messages: options.messages ?? [{ role: 'user', content: 'go' }],
      config: { model: 'test-model', tools: tools.map(toolDefinition), retryBaseMs: 1, ...options.config },
    },
    inspect: (event) => {
      if (event.type === '@xstate.microstep') {
        const transitions = (event as unknown as { _transitions: TransitionLike[] })._transitions;
        for (const t of transitions) takenTransitions.add(describeTransition(t).key);
      }
      if (event.type === '@xstate.snapshot' && event.actorRef.sessionId === event.rootId) {
        const value = (event.snapshot as unknown as { value: unknown }).value;
        const leaf = typeof value === 'string' ? value : Object.values(value as Record<string, string>)[0];
        if (leaf && states[states.length - 1] !== leaf) states.push(leaf);
      }
    },
  });
  actor.start();
  options.onStart?.(actor);
  const context = await toPromise(actor);
  const value = actor.getSnapshot().value;
  return {
    context,
    finalState: typeof value === 'string' ? value : JSON.stringify(value),
    requests: model.requests,
    states,
  };
}

/** Every request must be valid for the API; returns the problems of all of them. */
export function requestProblems(requests: ModelRequest[]): string[] {
  return requests.flatMap((r, i) => historyProblems(r.messages).map((p) => `request ${i}: ${p}`));
}

/** An in-process tool for transition tests: answers with its input, after an optional delay. */
export function echoTool(options: { name?: string; delayMs?: number; safe?: boolean; fail?: boolean } = {}): Tool {
  return {
    name: options.name ?? 'echo',
    description: 'Echoes its input',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    isConcurrencySafe: () => options.safe ?? false,
    run: async (input, { signal }) => {
      if (options.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, options.delayMs);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
      }
      if (options.fail) throw new Error('echo exploded');
      return { content: JSON.stringify(input), isError: false };
    },
  };
}
