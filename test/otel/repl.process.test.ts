/**
 * The REPL's traces: the real CLI in a pseudo-terminal (tmux) with OTEL_EXPORTER_OTLP_ENDPOINT, sending OTLP to a
 * receiver on 127.0.0.1. Each question is a run of its own: one `invoke_agent` span each, in the session's
 * conversation; a question stopped with Ctrl-C (mid-tool) ends its spans aborted and interrupted, and the REPL goes on. One tmux server per test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashUse } from '../support/agentServer.js';
import { CLI } from '../support/cli.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlpReceiver.js';
import { openCliProject, type CliProject } from '../support/project.js';
import { openTmux, shellQuote, type TmuxPane } from '../support/tmux.js';

const TIMEOUT = 60_000;
const PROMPT = 'agentloop >>';

let project: CliProject;
let receiver: OtlpReceiver;
let pane: TmuxPane | undefined;

beforeEach(async () => {
  project = await openCliProject('otel-repl');
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await pane?.close();
  pane = undefined;
  await receiver.close();
  await project.close();
});

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const lastLine = (screen: string) => screen.split('\n').at(-1);

describe('the REPL with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('one invoke_agent span per question in one conversation; a question stopped with Ctrl-C ends aborted', async () => {
    project.server.enqueue({ content: [bashUse('t1', 'sleep 30')], stop_reason: 'tool_use' }, answer('second answer'));
    const cli = [process.execPath, CLI].map(shellQuote).join(' ');
    const p = (pane = await openTmux(`${cli}; echo "[exit $?]"; exec cat`, { cwd: project.dir, env: { ...project.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } }));
    await p.waitFor((s) => lastLine(s) === PROMPT);
    await p.line('a long one');
    await p.waitFor('sleep 30');
    await p.keys(['C-c']);
    await p.waitFor((s) => lastLine(s) === PROMPT && s.includes('a long one'));
    await p.line('the second');
    await p.waitFor((s) => s.includes('second answer') && lastLine(s) === PROMPT);
    await p.line('/exit');
    expect(await p.waitFor('[exit')).toContain('[exit 0]');

    const agents = receiver.spans.filter((s) => s.name === 'invoke_agent agentloop');
    expect(agents.map((a) => [a.attributes['agentloop.exit_reason'], a.status.code])).toEqual([
      ['aborted', 'ERROR'],
      ['completed', 'UNSET'],
    ]);
    expect(agents[0]?.attributes['error.type']).toBe('aborted');
    expect(new Set(agents.map((a) => a.attributes['gen_ai.conversation.id'])).size).toBe(1);
    const under = (name: string) => receiver.spans.filter((s) => s.name === name).map((c) => agents.findIndex((a) => a.spanId === c.parentSpanId));
    expect(under('chat claude-test')).toEqual([0, 1]);
    expect(under('execute_tool bash')).toEqual([0]);
    expect(receiver.spans.find((s) => s.name === 'execute_tool bash')?.attributes['error.type']).toBe('interrupted');
  }, TIMEOUT);
});
