import type { RunHooks } from '../../src/core/hooks.js';
import { createActor, toPromise, type Actor } from 'xstate';
import type { RunConfig } from '../../src/core/config.js';
import type { MachineEvent } from '../../src/core/events.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { ModelRequest } from '../../src/core/model.js';
import { toolDefinition, type Tool } from '../../src/core/tool.js';
import { historyProblems } from '../../src/history/validate.js';
import { scriptedModel, type ScriptedModelOptions, type ScriptStep } from '../../src/scripted/model.js';
import { createAgentMachine } from '../../src/run/actors.js';

export interface DriveOptions {
  steps: ScriptStep[];
  tools?: Tool[];
  config?: Partial<RunConfig>;
  messages?: MessageParam[];
  modelDelayMs?: number;
  seed?: number;
  /** Called once the actor has started: to send ABORT at the right moment, say. */
  onStart?: (actor: Actor<ReturnType<typeof createAgentMachine>>) => void;
  /** The scripted model's options besides `modelDelayMs` (its summary answer, its context window). */
  scripted?: ScriptedModelOptions;
  /** The run's hooks (the PreCompact hook, say), given to the real machine. */
  hooks?: RunHooks;
  /** Replace the machine (e.g. a broken tool runner); default: the real one with the scripted model. */
  machine?: ReturnType<typeof createAgentMachine>;
}

export interface Driven {
  context: Awaited<ReturnType<typeof toPromise<Actor<ReturnType<typeof createAgentMachine>>>>>;
  finalState: string;
  requests: ModelRequest[];
  /** States the machine entered, in order (core/events.ts `transition`). */
  states: string[];
  /** Everything the machine emitted, in order. */
  events: MachineEvent[];
}

/** Runs the real machine with a scripted model and keeps what it emits. */
export async function drive(options: DriveOptions): Promise<Driven> {
  const tools = options.tools ?? [];
  const model = scriptedModel(options.steps, { ...options.scripted, ...(options.modelDelayMs ? { delayMs: options.modelDelayMs } : {}) });
  const machine = options.machine ?? createAgentMachine({ model: model.call, tools, cwd: process.cwd(), ...(options.hooks ? { hooks: options.hooks } : {}) });
  const events: MachineEvent[] = [];
  const actor = createActor(machine, {
    input: {
      messages: options.messages ?? [{ role: 'user', content: 'go' }],
      config: { model: 'test-model', tools: tools.map(toolDefinition), retryBaseMs: 1, ...options.config },
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    },
  });
  actor.on('*', (event) => events.push(event));
  actor.start();
  options.onStart?.(actor);
  const context = await toPromise(actor);
  const value = actor.getSnapshot().value;
  return {
    context,
    finalState: typeof value === 'string' ? value : JSON.stringify(value),
    requests: model.requests,
    states: events.flatMap((e) => (e.type === 'transition' ? [e.state] : [])),
    events,
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
