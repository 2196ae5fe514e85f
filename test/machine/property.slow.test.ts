import fc from 'fast-check';
import { createActor, toPromise } from 'xstate';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import type { ContentBlock, StopReason, ToolUseBlock } from '../../src/core/messages.js';
import type { ModelCall, ModelReply } from '../../src/core/model.js';
import { ModelError } from '../../src/core/model.js';
import { zeroUsage } from '../../src/core/usage.js';
import { createAgentMachine } from '../../src/run/actors.js';
import { toolDefinition, type Tool } from '../../src/core/tool.js';

type ToolKind = 'safe' | 'unsafe' | 'failing' | 'unknown';

interface ReplyStep {
  kind: 'reply';
  tools: ToolKind[];
  text: boolean;
  stopReason: StopReason;
  /** A tool_use cut off by max_tokens: streamed in part, never complete. */
  cut: boolean;
}
interface ErrorStep {
  kind: 'error';
  retryable: boolean;
  /** Tool_use blocks completed in the stream before it broke. */
  toolsBeforeError: ToolKind[];
}
type Step = ReplyStep | ErrorStep;

const toolKind = fc.constantFrom<ToolKind>('safe', 'safe', 'unsafe', 'failing', 'unknown');
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('reply' as const),
      tools: fc.array(toolKind, { maxLength: 5 }),
      text: fc.boolean(),
      stopReason: fc.constantFrom<StopReason>('end_turn', 'tool_use', 'tool_use', 'max_tokens', 'pause_turn', 'refusal'),
      cut: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('error' as const),
      retryable: fc.boolean(),
      toolsBeforeError: fc.array(toolKind, { maxLength: 2 }),
    }),
  },
);

/** A world of fake tools and a fake model that records what was executed and sent. */
function world(steps: Step[]) {
  const executed: string[] = [];
  const cutIds = new Set<string>();
  const requests: unknown[][] = [];
  let ids = 0;
  const tool = (name: string, safe: boolean, fails: boolean): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    isConcurrencySafe: () => safe,
    run: async (_input, { signal }) => {
      await new Promise((r) => setTimeout(r, Math.random() < 0.5 ? 0 : 1));
      if (signal.aborted) return { content: 'aborted', isError: true };
      if (fails) throw new Error('tool failed');
      return { content: 'ok', isError: false };
    },
  });
  const tools = [tool('safe', true, false), tool('unsafe', false, false), tool('failing', false, true)];
  const block = (kind: ToolKind, id = `t${ids++}`): ToolUseBlock => ({ type: 'tool_use', id, name: kind, input: { n: ids } });
  // Record tool runs by wrapping each tool.
  const recorded = tools.map((t) => ({
    ...t,
    run: (input: unknown, ctx: Parameters<Tool['run']>[1]) => {
      executed.push(JSON.stringify(input));
      return t.run(input, ctx);
    },
  }));

  let index = 0;
  const model: ModelCall = async ({ request, onToolUse }, signal) => {
    requests.push(structuredClone(request.messages));
    const s = steps[index++] ?? ({ kind: 'reply', tools: [], text: true, stopReason: 'end_turn', cut: false } as const);
    await new Promise((r) => setTimeout(r, 0));
    if (signal.aborted) throw signal.reason;
    if (s.kind === 'error') {
      for (const kind of s.toolsBeforeError) onToolUse(block(kind));
      await new Promise((r) => setTimeout(r, 0));
      throw new ModelError(s.retryable ? 'overloaded' : 'invalid_request', 'scripted failure', {
        midStream: s.toolsBeforeError.length > 0,
      });
    }
    const content: ContentBlock[] = [];
    if (s.text) content.push({ type: 'text', text: 'thinking out loud' });
    for (const kind of s.tools) {
      const b = block(kind);
      content.push(b);
      onToolUse(b);
    }
    if (s.cut && s.stopReason === 'max_tokens') cutIds.add(JSON.stringify(block('unsafe').input));
    const reply: ModelReply = {
      content,
      stopReason: s.stopReason,
      usage: zeroUsage(),
      droppedIncompleteBlock: s.cut && s.stopReason === 'max_tokens',
    };
    return reply;
  };
  return { model, tools: recorded, executed, cutIds, requests };
}

describe('any model behaviour leaves a valid history', () => {
  it('holds over random replies, tool errors, max_tokens cuts, API errors and aborts (2,000 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 6 }),
        fc.option(fc.nat({ max: 40 }), { nil: undefined }),
        async (steps, abortAfterEvents) => {
          const w = world(steps);
          const machine = createAgentMachine({ model: w.model, tools: w.tools, cwd: '.' });
          let seen = 0;
          const actor = createActor(machine, {
            input: {
              messages: [{ role: 'user', content: 'go' }],
              config: { model: 'm', tools: w.tools.map(toolDefinition), maxTurns: 8, maxRetries: 2, retryBaseMs: 0 },
            },
            inspect: (event) => {
              if (event.type !== '@xstate.event' || abortAfterEvents === undefined) return;
              if (seen++ !== abortAfterEvents) return;
              queueMicrotask(() => {
                if (actor.getSnapshot().status === 'active') actor.send({ type: 'ABORT' });
              });
            },
          });
          actor.start();
          const final = await toPromise(actor);

          for (const [i, messages] of w.requests.entries()) {
            expect(historyProblems(messages as never), `request ${i}`).toEqual([]);
          }
          expect(historyProblems(final.messages)).toEqual([]);
          expect(new Set(w.executed).size).toBe(w.executed.length); // no tool_use ran twice
          for (const cut of w.cutIds) expect(w.executed).not.toContain(cut); // no incomplete tool_use ran
          expect(final.exitReason).not.toBeNull();
          expect(final.transitionReason).toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
  }, 120_000);
});
