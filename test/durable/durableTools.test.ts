/**
 * A durable run's tools with agents (journal.ts `durableTools`): every tool journalled but the Agent tool, which is
 * not wrapped (its child's own calls are the journalled steps: a wrapper's step would hold the child's steps inside
 * it, and the run never ended: agents.restate.test.ts) and not concurrency-safe (the journal's steps in one order);
 * its result is journalled when the child ends. A child's seed follows from its parent's (run/subagents.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Tool, ToolContext } from '../../src/core/tool.js';
import { durableSteps, durableTools, type Journal } from '../../src/durable/journal.js';
import { childSeed } from '../../src/run/subagents.js';

function recordingJournal() {
  const names: string[] = [];
  const journal: Journal = { id: 'inv-tools', run: async (name, action) => (names.push(name), action()), sleep: async () => {} };
  return { names, steps: durableSteps(journal, { now: 0 }, 10) };
}

const echo: Tool = { name: 'echo', description: 'echo', inputSchema: { type: 'object' }, isConcurrencySafe: () => true, run: async () => ({ isError: false, content: 'echoed' }) };
const AGENTS = { logger: { description: 'Logs', prompt: 'You log.' } };

describe('durableTools', () => {
  it('journals every tool but Agent, which it adds for agents, one call at a time', async () => {
    const { names, steps } = recordingJournal();
    const tools = durableTools(steps, [echo], AGENTS);
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'Agent']);
    expect(tools.map((tool) => tool.isConcurrencySafe?.({}))).toEqual([false, false]);
    const context = { cwd: '/', signal: new AbortController().signal, toolUseId: 'toolu_1', subagents: { agents: AGENTS, run: async () => ({ agentId: 'a0', state: 'done', exitReason: 'completed', text: 'child says', model: 'm', usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, toolUses: 0, durationMs: 1, turnCount: 1 }) } } as unknown as ToolContext;
    const output = await tools[1]?.run({ description: 'd', prompt: 'p', subagent_type: 'logger' }, context);
    expect(output?.content).toContain('child says');
    expect(names, 'the Agent call journals its result only, no start: the child is not one step').toEqual(['tool Agent ends']);
  });

  it('leaves a worker\'s own Agent tool out of the wrapper, and offers none without agents', () => {
    const { steps } = recordingJournal();
    const stray: Tool = { ...echo, name: 'Agent' };
    expect(durableTools(steps, [echo, stray], undefined).map((tool) => tool.name)).toEqual(['echo']);
  });

  it("derives a child's seed from its parent's and the call", () => {
    expect(childSeed(7, 'toolu_1')).toBe(childSeed(7, 'toolu_1'));
    expect(childSeed(7, 'toolu_1')).not.toBe(childSeed(8, 'toolu_1'));
    expect(childSeed(7, 'toolu_1')).not.toBe(childSeed(7, 'toolu_2'));
  });
});

describe('a durable run\'s agents as submitted', () => {
  it('are checked where the request is (a bad one is a 400) and where submit reads --agents (a usage error)', async () => {
    const { requestProblem } = await import('../../src/durable/protocol.js');
    const { parseCommandLine } = await import('../../src/cli/commandLine/args.js');
    expect(requestProblem({ prompt: 'hi', agents: AGENTS })).toBeUndefined();
    expect(requestProblem({ prompt: 'hi', agents: { logger: { prompt: 'no description' } } })).toMatch(/^"agents"\.logger/);
    expect(requestProblem({ prompt: 'hi', agents: [] })).toMatch(/"agents" must be an object/);
    expect(parseCommandLine(['submit', '-p', 'hi', '--agents', JSON.stringify(AGENTS)])).toMatchObject({ command: 'submit', agents: JSON.stringify(AGENTS) });
    expect(() => parseCommandLine(['submit', '-p', 'hi', '--agents', '{nope'])).toThrow(/--agents takes a JSON object of agents/);
  });
});
