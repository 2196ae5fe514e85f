/**
 * The plain loop as the smallest XState v5 machine that keeps the brief's design: the model call
 * and the tools are invoked promise actors, the messages live in the context. No retries, no
 * streaming tool start, no validation, no observers: the cost of the state machine itself, the
 * floor for any loop built as an XState machine with invoked actors. For the benchmark only.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { assign, createActor, fromPromise, setup, toPromise, type InspectionEvent } from 'xstate';
import { plainLoopStep, type PlainLoopOptions, type PlainLoopResult } from './plainLoop.js';

interface Context {
  messages: Anthropic.MessageParam[];
  turns: number;
  reply: Anthropic.ContentBlock[];
}

export async function xstateLoop(prompt: string, options: PlainLoopOptions): Promise<PlainLoopResult> {
  return xstateLoopWith(prompt, plainLoopStep(options));
}

/** The same machine around any model call and tool runner (bench/machineTurn.ts gives it in-process ones). */
export async function xstateLoopWith(
  prompt: string,
  step: Pick<ReturnType<typeof plainLoopStep>, 'call' | 'runTools'>,
  inspect?: (event: InspectionEvent) => void,
): Promise<PlainLoopResult> {
  const machine = setup({
    types: { context: {} as Context },
    actors: {
      callModel: fromPromise<Anthropic.ContentBlock[], Anthropic.MessageParam[]>(({ input }) => step.call(input)),
      runTools: fromPromise<Anthropic.ToolResultBlockParam[], Anthropic.ContentBlock[]>(({ input }) => step.runTools(input)),
    },
    guards: { hasToolUse: ({ context }) => context.reply.some((b) => b.type === 'tool_use') },
  }).createMachine({
    context: { messages: [{ role: 'user', content: prompt }], turns: 0, reply: [] },
    initial: 'callingModel',
    states: {
      callingModel: {
        invoke: {
          src: 'callModel',
          input: ({ context }) => context.messages,
          onDone: {
            target: 'checkingReply',
            actions: assign(({ context, event }) => {
              context.messages.push({ role: 'assistant', content: event.output });
              return { reply: event.output, turns: context.turns + 1 };
            }),
          },
        },
      },
      checkingReply: { always: [{ guard: 'hasToolUse', target: 'executingTools' }, { target: 'done' }] },
      executingTools: {
        invoke: {
          src: 'runTools',
          input: ({ context }) => context.reply,
          onDone: {
            target: 'callingModel',
            actions: assign(({ context, event }) => {
              context.messages.push({ role: 'user', content: event.output });
              return {};
            }),
          },
        },
      },
      done: { type: 'final' },
    },
  });
  const actor = createActor(machine, inspect ? { inspect } : {}).start();
  await toPromise(actor);
  const { messages, turns, reply } = actor.getSnapshot().context;
  return { messages, turns, text: reply.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('') };
}

