/**
 * Control-protocol paths the real Claude Agent SDK produces (issue 27, "What to build"), with agentloop's built CLI as
 * its engine against the local Messages API server: a `can_use_tool` or `hook_callback` still unanswered when the turn
 * is interrupted is cancelled (`control_cancel_request`: the program's callback sees its signal abort); an initialize
 * asking for what agentloop does not do is refused naming it; a UserPromptSubmit hook's `block` stops the prompt.
 * The raw lines the SDK cannot send (keep_alive, bad lines, --await-initialize) are in test/cli/streamControl.test.ts.
 */
import { query, type HookCallback, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import { bashUse } from '../../support/agentServer.js';
import type { MessagesServer } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { waitFor } from '../../support/sessions.js';
import { promptStream } from './scenarios.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('controlprotocol', (p) => { project = p; server = p.server; }, { noViolations: true });

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const callTool = (...blocks: ReturnType<typeof bashUse>[]) => ({ content: blocks, stop_reason: 'tool_use' as const });
const options = (extra: Options = {}): Options => ({ pathToClaudeCodeExecutable: CLI, cwd: project.dir, env: project.env, ...extra });

/**
 * One turn whose tool call waits on a callback of the program's (`hang` registers it: the callback waits until its
 * signal aborts): the program interrupts while the callback is unanswered. Whether the signal had aborted when the
 * turn's result came (the SDK aborts every open callback when the query closes, so only then does it tell), and the
 * messages received.
 */
async function interruptWhileAsked(hang: (wait: (signal: AbortSignal) => Promise<void>) => Options) {
  server.enqueue(callTool(bashUse('t1', 'touch never.txt')), answer('Next.'));
  let asked: AbortSignal | undefined;
  const wait = (signal: AbortSignal) => {
    asked = signal;
    return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  };
  const stream = promptStream();
  const q = query({ prompt: stream, options: options(hang(wait)) });
  stream.push('make a file');
  const messages: SDKMessage[] = [];
  let abortedAtResult: boolean | undefined;
  const reading = (async () => {
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') {
        abortedAtResult = asked?.aborted;
        break;
      }
    }
  })();
  await waitFor('the callback to be asked', () => asked !== undefined);
  await q.interrupt();
  await reading;
  stream.end();
  return { abortedAtResult, messages };
}

describe('control requests cancelled, refused and blocked, with the real SDK', () => {
  it('cancels a can_use_tool still unanswered when the turn is interrupted: the canUseTool callback sees its signal abort', async () => {
    const { abortedAtResult, messages } = await interruptWhileAsked((wait) => ({
      canUseTool: async (_name, _input, { signal }) => (await wait(signal), { behavior: 'deny', message: 'too late' }),
    }));
    expect(abortedAtResult).toBe(true);
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ is_error: true, subtype: 'error_during_execution' });
  });

  it('cancels a hook_callback still unanswered when the turn is interrupted: the PreToolUse hook sees its signal abort', async () => {
    const hook: (wait: (signal: AbortSignal) => Promise<void>) => HookCallback = (wait) => async (_input, _id, { signal }) => (await wait(signal), {});
    const { abortedAtResult, messages } = await interruptWhileAsked((wait) => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook(wait)] }] } }));
    expect(abortedAtResult).toBe(true);
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ is_error: true, subtype: 'error_during_execution' });
  });

  it("refuses an initialize with what agentloop does not do, naming it: an agent's skills, a SessionStart hook", async () => {
    for (const extra of [
      { agents: { reviewer: { description: 'Reviews code', prompt: 'Review it.', skills: ['pdf'] } } },
      { hooks: { SessionStart: [{ hooks: [async () => ({})] }] } },
    ] as Options[]) {
      const stream = promptStream();
      const q = query({ prompt: stream, options: options(extra) });
      await expect(q.initializationResult()).rejects.toThrow('agents' in extra ? 'initialize: agentloop does not support agents.reviewer.skills' : /agentloop does not support SessionStart hooks/);
      stream.end();
      q.close();
    }
    expect(server.requests).toHaveLength(0);
  });

  it("a UserPromptSubmit hook's block stops the prompt: no model call, an error result with the hook's reason", async () => {
    server.enqueue(answer('Never asked.'));
    const messages: SDKMessage[] = [];
    const run = async () => {
      const hooks = { UserPromptSubmit: [{ hooks: [async () => ({ decision: 'block' as const, reason: 'no prompts about secrets' })] }] };
      for await (const m of query({ prompt: 'tell me the secret', options: options({ hooks }) })) messages.push(m);
    };
    await run().catch(() => undefined); // the SDK throws after an error result
    expect(server.requests).toHaveLength(0);
    const result = messages.find((m) => m.type === 'result');
    expect(result).toMatchObject({ is_error: true, subtype: 'error_during_execution', terminal_reason: 'hook_stopped' });
    expect(JSON.stringify(result)).toContain('no prompts about secrets');
  });
});
