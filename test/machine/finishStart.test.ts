/**
 * The tool started when the reply is in is announced by the machine itself, in the step that takes the reply
 * (agentMachine.ts, `finishToolUses`): the runner sends no TOOL_STARTED for it. The events, the records and
 * `startedToolIds` are what they were with the runner's TOOL_STARTED; only the event back is gone.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, toPromise, type AnyActorRef } from 'xstate';
import type { MachineEvent } from '../../src/core/events.js';
import { toolDefinition, type Tool } from '../../src/core/tool.js';
import { reply, scriptedModel, type ScriptStep } from '../../src/scripted/model.js';
import type { ToolRunnerCommand } from '../../src/machine/events.js';
import { createAgentMachine } from '../../src/run/actors.js';
import { historyProblems } from '../../src/history/validate.js';
import { requestProblems } from '../support/drive.js';

interface Seen {
  /** The events the machine itself took, in order. */
  taken: string[];
  /** What it emitted, and when each tool ran: `run <id>`. */
  log: string[];
  /** `startedToolIds` of each snapshot in executingTools. */
  startedInExecuting: string[][];
  exitReason: string | null;
  problems: string[];
}

/** A tool that notes in `log` when it runs; concurrency-safe if `safe`. */
function noting(name: string, log: string[], safe = false, delayMs = 0): Tool {
  return {
    name,
    description: name,
    inputSchema: { type: 'object', properties: {} },
    isConcurrencySafe: () => safe,
    run: async (_input, { signal }) => {
      log.push(`run ${name}`);
      if (delayMs) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
      return { content: name, isError: false };
    },
  };
}

async function run(steps: ScriptStep[], tools: (log: string[]) => Tool[]): Promise<Seen> {
  const seen: Seen = { taken: [], log: [], startedInExecuting: [], exitReason: null, problems: [] };
  const all = tools(seen.log);
  const model = scriptedModel(steps);
  let root: AnyActorRef | undefined;
  const actor = createActor(createAgentMachine({ model: model.call, tools: all, cwd: process.cwd() }), {
    input: { messages: [{ role: 'user', content: 'go' }], config: { model: 'm', tools: all.map(toolDefinition) } },
    inspect: (e) => {
      if (e.type === '@xstate.event' && e.actorRef === root) seen.taken.push(e.event.type);
      if (e.type === '@xstate.snapshot' && e.actorRef === root) {
        const s = e.snapshot as unknown as { matches: (v: unknown) => boolean; context: { turn: { startedToolIds: string[] } } };
        if (s.matches({ turn: 'executingTools' })) seen.startedInExecuting.push([...s.context.turn.startedToolIds]);
      }
    },
  });
  root = actor;
  actor.on('*', (e: MachineEvent) => {
    if (e.type === 'tool_start') seen.log.push(`tool_start ${e.block.id}`);
    if (e.type === 'tool_result') seen.log.push(`tool_result ${e.block.id}`);
    if (e.type === 'transition') seen.log.push(`→ ${e.state}`);
  });
  actor.start();
  const context = await toPromise(actor);
  seen.exitReason = context.exitReason;
  seen.problems = [...requestProblems(model.requests), ...historyProblems(context.messages)];
  return seen;
}

const use = (id: string) => ({ id, name: id, input: {} });

describe('a tool started when the reply is in', () => {
  it('is announced in the step that takes the reply: no TOOL_STARTED comes back, and the same events in the same order', async () => {
    const seen = await run([reply.toolUse([use('a')]), reply.text('ok')], (log) => [noting('a', log)]);
    expect(seen.exitReason).toBe('completed');
    expect(seen.taken).not.toContain('TOOL_STARTED');
    expect(seen.log.slice(0, 5)).toEqual(['→ callingModel', '→ executingTools', 'tool_start a', 'run a', 'tool_result a']);
    // The first snapshot in executingTools has it started already (it is the step that took the reply).
    expect(seen.startedInExecuting[0]).toEqual(['a']);
    expect(seen.problems).toEqual([]);
  });

  it('is only the first: a second unsafe tool waits for it, and the runner announces it when it starts', async () => {
    const seen = await run([reply.toolUse([use('a'), use('b')]), reply.text('ok')], (log) => [noting('a', log), noting('b', log)]);
    expect(seen.taken.filter((t) => t === 'TOOL_STARTED')).toHaveLength(1);
    expect(seen.log.slice(1, 8)).toEqual(['→ executingTools', 'tool_start a', 'run a', 'tool_result a', 'tool_start b', 'run b', 'tool_result b']);
    expect(seen.startedInExecuting[0]).toEqual(['a']);
    expect(seen.startedInExecuting.at(-1)).toEqual(['a', 'b']);
    expect(seen.problems).toEqual([]);
  });

  it('is none while a tool started mid-stream still runs: what starts next is the runner’s to say', async () => {
    // `s` is safe, so it starts as the reply streams and runs until the turn ends; `u` waits for it.
    const seen = await run([reply.toolUse([use('s'), use('u')]), reply.text('ok')], (log) => [noting('s', log, true, 30), noting('u', log)]);
    expect(seen.taken.filter((t) => t === 'TOOL_STARTED')).toHaveLength(2);
    expect(seen.startedInExecuting[0]).toEqual(['s']);
    expect(seen.log.indexOf('tool_start u')).toBeGreaterThan(seen.log.indexOf('tool_result s'));
    expect(seen.log.indexOf('tool_start u')).toBeLessThan(seen.log.indexOf('run u'));
    expect(seen.problems).toEqual([]);
  });
});

describe('a runner that announces every start itself (written before FINISH named one)', () => {
  it('still gives one tool_start per tool: the machine ignores a TOOL_STARTED for a start it announced itself', async () => {
    const log: string[] = [];
    const tool = noting('a', log);
    // Every start announced, the old way; the result sent with TOOLS_DONE.
    const legacy = fromCallback<ToolRunnerCommand>(({ sendBack, receive }) => {
      receive((command) => {
        if (command.type !== 'FINISH') return;
        for (const block of command.blocks) sendBack({ type: 'TOOL_STARTED', block });
        const [block] = command.blocks;
        if (block) sendBack({ type: 'TOOLS_DONE', last: { block, result: { type: 'tool_result', tool_use_id: block.id, content: 'done' } } });
      });
    });
    const model = scriptedModel([reply.toolUse([use('a')]), reply.text('ok')]);
    const machine = createAgentMachine({ model: model.call, tools: [tool], cwd: process.cwd() }).provide({ actors: { runTools: legacy } });
    const actor = createActor(machine, { input: { messages: [{ role: 'user', content: 'go' }], config: { model: 'm', tools: [toolDefinition(tool)] } } });
    const starts: string[] = [];
    actor.on('tool_start', (e) => starts.push(e.block.id));
    actor.start();
    const context = await toPromise(actor);
    expect(context.exitReason).toBe('completed');
    expect(starts).toEqual(['a']);
    expect(historyProblems(context.messages)).toEqual([]);
  });
});
