import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import { runAgent, type RunAgentOptions } from '../../src/run/runAgent.js';
import { type RunEvent } from '../../src/core/events.js';
import { createBashTool } from '../../src/tools/bash/bashTool.js';
import { answerFromResults, bashUse, lastToolResults } from '../support/agentServer.js';
import { startCli } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { cliProjectPerTest } from '../support/project.js';
import { liveWithMarker } from '../support/processes.js';
import { waitUntilEmpty } from '../tools/bash/bashHelpers.js';

let server: MessagesServer;
let dir: string;

let env: NodeJS.ProcessEnv;

cliProjectPerTest('abort', (project) => ({ server, dir, env } = project));

/** A sleep whose command line is unique to this test, so `pgrep -f` finds only ours. */
const uniqueSleep = () => `sleep 30.${Math.floor(Math.random() * 1e6)}`;
function processesMatching(pattern: string): string {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
}

function options(extra: Partial<RunAgentOptions> = {}): RunAgentOptions {
  return {
    model: 'claude-test',
    modelCall: createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url }),
    tools: [createBashTool({ cwd: dir })],
    cwd: dir,
    retryBaseMs: 1,
    ...extra,
  };
}

/**
 * The processes with `marker` still alive once the kernel has carried out the abort's SIGKILL (at most 2 s). The run
 * ends at the abort, as the CLI does: its tools are answered "interrupted by user" at once, not after their processes
 * have been reaped, and a namespace killed takes the kernel some ms to tear down: seen at the run's end, in state Z
 * with SIGKILL pending, gone 17-35 ms later (the first case failed so once, at load 2, on e78f64e).
 */
const gone = (marker: string) => waitUntilEmpty(() => liveWithMarker(marker));

const untilEvent = (predicate: (e: RunEvent) => boolean) => {
  let fire: () => void = () => {};
  const seen = new Promise<void>((r) => (fire = r));
  return { seen, onEvent: (e: RunEvent) => predicate(e) && fire() };
};

describe('concurrency-safe tools', () => {
  it('run two 300 ms read-only commands in parallel: both done well under 600 ms', async () => {
    server.enqueue(
      { content: [bashUse('a', 'sleep 0.3; echo a'), bashUse('b', 'sleep 0.3; echo b')], stop_reason: 'tool_use' },
      answerFromResults,
    );
    const times: Record<string, number> = {};
    await runAgent('parallel', options({
      onEvent: (e) => {
        if (e.type === 'tool_start') times[`start ${e.block.id}`] ??= performance.now();
        if (e.type === 'tool_result') times[`end ${e.block.id}`] = performance.now();
      },
    }));
    // They overlap: the second started before the first ended, so together they take well under
    // the sum of their own durations (>= 600 ms) however loaded the machine is.
    expect(times['start b']!).toBeLessThan(times['end a']!);
    const own = (id: string) => times[`end ${id}`]! - times[`start ${id}`]!;
    const wall = Math.max(times['end a']!, times['end b']!) - Math.min(times['start a']!, times['start b']!);
    expect(own('a')).toBeGreaterThanOrEqual(290);
    expect(wall).toBeLessThan(0.75 * (own('a') + own('b')));
    expect(lastToolResults(server.requests[1]!.body!).map((r) => r.content)).toEqual(['a', 'b']);
  });
});

describe('abort', () => {
  it('through an AbortSignal while a tool runs: killed within 1 s, answered "interrupted by user"', async () => {
    // Two sleeps: both read-only, so both run at once, and neither can finish before the abort
    // (a quick second command could, and would then rightly be answered with its output).
    const sleep = uniqueSleep();
    const other = uniqueSleep();
    server.enqueue({ content: [bashUse('s', sleep), bashUse('t', other)], stop_reason: 'tool_use' });
    const controller = new AbortController();
    const started = untilEvent((e) => e.type === 'tool_start');
    const running = runAgent('sleep', options({ signal: controller.signal, onEvent: started.onEvent }));
    await started.seen;
    for (let i = 0; i < 200 && (processesMatching(sleep) === '' || processesMatching(other) === ''); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(processesMatching(sleep)).not.toBe('');
    expect(processesMatching(other)).not.toBe('');
    const abortedAt = performance.now();
    controller.abort();
    const run = await running;
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(run.state).toBe('aborted');
    expect(run.context.exitReason).toBe('aborted');
    expect(run.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 's', content: 'interrupted by user', is_error: true },
        { type: 'tool_result', tool_use_id: 't', content: 'interrupted by user', is_error: true },
      ],
    });
    expect(historyProblems(run.context.messages)).toEqual([]);
    expect(await gone(sleep)).toEqual([]);
    expect(await gone(other)).toEqual([]);
  });

  // The reply streams on (frames 150 ms apart, a text after the tool_use) while its read-only command has started:
  // an abort as the command starts (its runner still making the namespace) or once it runs leaves none of its processes.
  it.each([
    ['plain', 'tool_start', { contain: false }],
    ['plain', 'running', { contain: false }],
    ['contained', 'tool_start', {}],
    ['contained', 'running', {}],
    ['sandboxed', 'tool_start', { sandbox: true }],
    ['sandboxed', 'running', { sandbox: true }],
  ] as const)('%s: an abort at %s while the reply still streams leaves no process of the tool', async (_runner, at, tool) => {
    const sleep = uniqueSleep();
    const text = { type: 'text' as const, text: 'and while it sleeps, a long answer streams on '.repeat(8) };
    server.enqueue({ content: [bashUse('s', sleep), text], stop_reason: 'tool_use', delayMs: 150 });
    const controller = new AbortController();
    let streamEnded = false;
    const onEvent = (e: RunEvent) => {
      if (e.type === 'message' && e.origin === 'model') streamEnded = true;
      if (e.type === 'tool_start' && at === 'tool_start') controller.abort();
    };
    const running = runAgent('sleep', options({ signal: controller.signal, onEvent, tools: [createBashTool({ cwd: dir, ...tool })] }));
    if (at === 'running') {
      for (let i = 0; i < 400 && !liveWithMarker(sleep).some((p) => p.cmdline.startsWith('sleep ')); i++) await new Promise((r) => setTimeout(r, 10));
      controller.abort();
    }
    const run = await running;
    expect(streamEnded).toBe(false); // the abort came while the reply streamed
    expect(run.context.exitReason).toBe('aborted');
    expect(historyProblems(run.context.messages)).toEqual([]);
    expect(await gone(sleep)).toEqual([]);
  });

  it('a run aborted before it starts never calls the model', async () => {
    const run = await runAgent('never', options({ signal: AbortSignal.abort() }));
    expect(run.state).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('-p ends on %s with exit code %i, the tool’s process group killed', async (signal, code) => {
    const sleep = uniqueSleep();
    server.enqueue({ content: [bashUse('s', sleep)], stop_reason: 'tool_use' });
    const cli = startCli(['-p', 'sleep', '--output-format', 'json'], { cwd: dir, env, input: '' });
    for (let i = 0; i < 200 && processesMatching(sleep) === ''; i++) await new Promise((r) => setTimeout(r, 25));
    expect(processesMatching(sleep)).not.toBe('');
    cli.child.kill(signal);
    const run = await cli.done;
    expect(run.code).toBe(code);
    expect(JSON.parse(run.stdout)).toMatchObject({ exit_reason: 'aborted', is_error: true });
    expect(await gone(sleep)).toEqual([]);
  });

  it('Ctrl-C in the REPL aborts the run, and the next question continues with a valid history', async () => {
    const sleep = uniqueSleep();
    server.enqueue(
      { content: [bashUse('s', sleep)], stop_reason: 'tool_use' },
      { content: [{ type: 'text', text: 'still here' }], stop_reason: 'end_turn' },
    );
    const cli = startCli([], { cwd: dir, env });
    cli.child.stdin?.write('first question\n');
    for (let i = 0; i < 200 && processesMatching(sleep) === ''; i++) await new Promise((r) => setTimeout(r, 25));
    cli.child.kill('SIGINT');
    for (let i = 0; i < 200 && !cli.output().stderr.includes('Interrupted'); i++) await new Promise((r) => setTimeout(r, 25));
    cli.child.stdin?.end('second question\nq\n');
    const run = await cli.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('still here');
    expect(await gone(sleep)).toEqual([]);
    const second = server.requests[1]?.body?.messages ?? [];
    expect(historyProblems(second)).toEqual([]);
    expect(second.at(-1)).toMatchObject({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 's', is_error: true, content: 'interrupted by user' },
        { type: 'text', text: 'second question' },
      ],
    });
  });

  it('a second Ctrl-C at an idle REPL prompt quits', async () => {
    const cli = startCli([], { cwd: dir, env });
    for (let i = 0; i < 200 && !cli.output().stdout.includes('agentloop >> '); i++) await new Promise((r) => setTimeout(r, 25));
    cli.child.kill('SIGINT');
    for (let i = 0; i < 200 && !cli.output().stderr.includes('Ctrl-C again'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(cli.output().stderr).toContain('press Ctrl-C again to quit');
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(0);
  });
});
