/**
 * The beginner's mistakes of the seed chapter, each as the real machine with ONE action or guard
 * swapped through `machine.provide`. Everything else (the states, the other actions, the model
 * call, the bash tool) is the real thing, so what goes wrong is what a real loop would do.
 */
import { assign, enqueueActions } from 'xstate';
import { AppendLog } from '../core/appendLog.js';
import type { MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import { agentMachine, type AgentMachine } from '../machine/agentMachine.js';
import type { DemoModelOptions } from '../scripted/demo.js';
import type { MistakeName } from './names.js';

export interface Mistake {
  name: MistakeName;
  /** What the mistaken loop does, in one line. */
  summary: string;
  /** The action or guard of agentMachine that is swapped (swapAction, swapGuard give both this and `machine`). */
  swaps: { kind: 'action' | 'guard'; name: string };
  /** The real machine with the mistake in it. */
  machine: AgentMachine;
  /** How the scripted model plays this demo (the correct run plays it the same way); absent: the demo model's default script. */
  demo?: DemoModelOptions & { maxTurns?: number };
  /** The fix, in one sentence. */
  fix: string;
  /** Where the correct loop does it right: a file of src/ and the start of the line. */
  prevents: { file: string; line: string };
}

/** A result with its tool_use_id left out, as a loop that does not bind results writes it. */
function unbound(result: ToolResultBlockParam): ToolResultBlockParam {
  const { tool_use_id: _dropped, ...rest } = result;
  // Deliberately not a valid block: the API refuses it, which is what the demo shows.
  return rest as ToolResultBlockParam;
}

/** The history without its last tool call and result: what a loop that tidies `messages` like a chat window sends. */
export function withoutLastExchange(messages: readonly MessageParam[]): MessageParam[] {
  const isResults = (m: MessageParam | undefined) =>
    m?.role === 'user' && typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result');
  const last = messages[messages.length - 1];
  if (!isResults(last) || messages[messages.length - 2]?.role !== 'assistant') return [...messages];
  return messages.slice(0, -2);
}

type Implementations = NonNullable<Parameters<AgentMachine['provide']>[0]>;
type Actions = NonNullable<Implementations['actions']>;
type Guards = NonNullable<Implementations['guards']>;

/** The real machine with its action `name` swapped for `implementation`, and the swap as the report names it. */
function swapAction<K extends keyof Actions & string>(name: K, implementation: Actions[K]): Pick<Mistake, 'swaps' | 'machine'> {
  const actions: Partial<Actions> = {};
  actions[name] = implementation;
  return { swaps: { kind: 'action', name }, machine: agentMachine.provide({ actions }) };
}

/** The real machine with its guard `name` swapped for `implementation`, and the swap as the report names it. */
function swapGuard<K extends keyof Guards & string>(name: K, implementation: Guards[K]): Pick<Mistake, 'swaps' | 'machine'> {
  const guards: Partial<Guards> = {};
  guards[name] = implementation;
  return { swaps: { kind: 'guard', name }, machine: agentMachine.provide({ guards }) };
}

export const MISTAKES: Record<MistakeName, Mistake> = {
  'forget-tool-result': {
    name: 'forget-tool-result',
    summary: "prints the tool's output but never appends the tool_result to messages",
    // The output is shown (the CLI prints every tool_result event), and that is all.
    ...swapAction('appendResults', () => {}),
    fix: 'Append the tool_result blocks to messages as the next user message before calling the model again.',
    prevents: { file: 'machine/agentMachine.ts', line: 'appendResults: enqueueActions(' },
  },
  'forget-assistant': {
    name: 'forget-assistant',
    summary: "saves only the user's messages: the model's reply (with its tool_use) never joins messages",
    ...swapAction('appendReply', () => {}),
    fix: "Append the model's whole reply, tool_use blocks included, to messages before its tool results.",
    prevents: { file: 'machine/agentMachine.ts', line: 'appendReply: enqueueActions(' },
  },
  'unbound-result': {
    name: 'unbound-result',
    summary: 'writes each tool_result without the tool_use_id of the call it answers',
    ...swapAction(
      'recordToolResult',
      enqueueActions(({ context, enqueue }, params: { done: { block: ToolUseBlock; result: ToolResultBlockParam } | undefined }) => {
        if (!params.done) return;
        const { block, result } = params.done;
        enqueue.assign({ turn: { ...context.turn, toolResults: { ...context.turn.toolResults, [block.id]: unbound(result) } } });
        enqueue.emit({ type: 'tool_result', block, result });
      }),
    ),
    fix: 'Give every tool_result the tool_use_id of the tool_use it answers: that id is how the model knows which call the output belongs to.',
    prevents: { file: 'machine/agentMachine.ts', line: 'recordToolResult: enqueueActions(' },
  },
  'drop-message': {
    name: 'drop-message',
    summary: 'tidies messages like a chat window before the next turn: the tool call and its tool_result are deleted',
    // What the real startNextTurn does, and the deletion: both blocks of the exchange go, so
    // the API still accepts the history and nothing warns.
    ...swapAction(
      'startNextTurn',
      assign(({ context }) => ({ turnCount: context.turnCount + 1, messages: AppendLog.of(withoutLastExchange(context.messages.toArray())) })),
    ),
    demo: { maxTurns: 3 },
    fix: "Never delete from messages: it is the model's only memory of the run; hide things in the display, not in the history.",
    prevents: { file: 'machine/context.ts', line: 'messages: context.messages.shared(),' },
  },
  'stop-reason-only': {
    name: 'stop-reason-only',
    summary: "decides the follow-up from stop_reason alone, on a streamed reply whose stop_reason says end_turn though a tool_use is in it",
    ...swapGuard('needsFollowUp', ({ context }) => context.stopReason === 'tool_use'),
    demo: { toolUseStopReason: 'end_turn' },
    fix: 'Decide the follow-up from the tool_use blocks that arrived in the stream (needsFollowUp), not from stop_reason.',
    prevents: { file: 'machine/agentMachine.ts', line: 'needsFollowUp: ({ context }) => context.needsFollowUp,' },
  },
};

export function mistakeOf(name: MistakeName): Mistake {
  return MISTAKES[name];
}
