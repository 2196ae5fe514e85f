/**
 * Claude Code's flags, with the CLI as a process against the local Messages API server: the positional prompt,
 * piped stdin (as the prompt, as context, never waited on for ever), the system prompt flags reaching the request,
 * model aliases, the budget, the fallback model, --verbose, --include-partial-messages, and bad flags.
 */
import { describe, expect, it } from 'vitest';
import { MODEL_ALIASES } from '../../src/core/models.js';
import { answerFromResults, bashUse } from '../support/agentServer.js';
import { runCli, SELF, startCli, type CliRun } from '../support/cli.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('flags', (p) => (project = p), { files: { 'notes.txt': 'n' } });

const cli = (args: string[], input = '', env: Record<string, string> = {}) =>
  runCli(args, { cwd: project.dir, env: { ...project.env, ...env }, input });
const answer = (text = 'ok') => project.server.enqueue({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });
const body = (index = 0) => project.server.requests[index]?.body as RequestBody;

/** The text of the first user message of a request. */
function firstUserText(request: RequestBody): string {
  const content = request.messages[0]?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((block) => ('text' in block ? block.text : '')).join('');
}

function systemText(request: RequestBody): string {
  const system = request.system;
  if (typeof system === 'string') return system;
  return (system ?? []).map((block) => block.text).join('');
}

function expectUsageError(run: CliRun, message: RegExp) {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(message);
  expect(lines[1]).toBe(`see ${SELF} --help`);
}

describe('the prompt: positional, after the flags or before them', () => {
  it.each([
    [['-p', '--output-format', 'json', 'what is here']],
    [['what is here', '-p', '--output-format', 'json']],
    [['--print', '--output-format=json', '--', 'what is here']],
    [['--output-format', 'json', 'what is here']], // json implies -p
  ])('%j', async (args) => {
    answer('nothing much');
    const run = await cli(args);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'result', result: 'nothing much' });
    expect(firstUserText(body())).toBe('what is here');
  });
});

describe('piped stdin', () => {
  it('is the prompt when none is given', async () => {
    answer();
    const run = await cli(['-p'], 'what is in notes.txt?\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('ok\n');
    expect(firstUserText(body())).toBe('what is in notes.txt?');
  });

  it('comes after the prompt as context when one is given', async () => {
    answer();
    const run = await cli(['-p', 'summarize this'], 'line one\nline two\n');
    expect(run.code, run.stderr).toBe(0);
    expect(firstUserText(body())).toBe('summarize this\n\n<stdin>\nline one\nline two\n</stdin>');
  });

  it('-p with neither a prompt nor stdin: one line saying how to give one, exit 2, no request', async () => {
    const run = await cli(['-p'], '  \n');
    expect(run.stderr.split('\n')[0]).toBe(`agentloop: -p needs a prompt: ${SELF} -p "PROMPT", or pipe it: echo "PROMPT" | ${SELF} -p`);
    expectUsageError(run, /^agentloop: -p needs a prompt: /);
    expect(project.server.requests).toHaveLength(0);
  });

  /** `-p PROMPT` with stdin a pipe the test holds open, and a grace period of 0.3 s for it. */
  const withOpenPipe = (prompt: string) =>
    startCli(['-p', prompt], { cwd: project.dir, env: { ...project.env, AGENTLOOP_STDIN_WAIT_MS: '300' }, openStdin: true });

  it('a pipe left open and silent does not hang a run that has its prompt: it goes on after the grace period', async () => {
    answer();
    const run = await withOpenPipe('hello').done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('ok\n');
    expect(run.stderr).toMatch(/nothing came on stdin within 0\.3 s: going on without it/);
    expect(firstUserText(body())).toBe('hello');
  });

  it('a pipe that has started is read to its end, however long past the grace period that takes', async () => {
    answer();
    const cli = withOpenPipe('review');
    cli.child.stdin?.write('first part\n'); // in the pipe before the CLI reads it: the pipe has started
    // The rest comes long after the grace period: it is still read.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    cli.child.stdin?.end('second part\n');
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(0);
    expect(firstUserText(body())).toBe('review\n\n<stdin>\nfirst part\nsecond part\n</stdin>');
  });

  it('is not read by the REPL: there it is the questions', async () => {
    answer('first answer');
    const run = await cli([], 'a question\nq\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('first answer');
    expect(firstUserText(body())).toBe('a question');
  });
});

describe('the system prompt', () => {
  it('--system-prompt replaces it', async () => {
    answer();
    const run = await cli(['-p', '--system-prompt', 'You are a pirate.', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(systemText(body())).toBe('You are a pirate.');
  });

  it('--append-system-prompt adds to the default one', async () => {
    answer();
    const run = await cli(['-p', '--append-system-prompt', 'Answer in French.', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    const system = systemText(body());
    expect(system).toMatch(new RegExp(`^You are a coding agent working in ${project.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(system.endsWith('\n\nAnswer in French.')).toBe(true);
  });

  it('both: the given one, then the addition', async () => {
    answer();
    await cli(['-p', '--system-prompt', 'Base.', '--append-system-prompt', 'More.', 'hi']);
    expect(systemText(body())).toBe('Base.\n\nMore.');
  });
});

describe('models', () => {
  it.each(Object.entries(MODEL_ALIASES))('--model %s sends %s', async (alias, id) => {
    answer();
    const run = await cli(['-p', '--model', alias, 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(body().model).toBe(id);
  });

  it('--fallback-model: after 3 overloaded errors in a row the next call goes to the fallback (alias resolved), as Claude Code', async () => {
    const overloaded = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '5' } };
    project.server.enqueue(overloaded, overloaded, overloaded);
    answer('from the fallback');
    const run = await cli(['-p', '--model', 'opus', '--fallback-model', 'haiku', '--output-format', 'json', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).result).toBe('from the fallback');
    expect(project.server.requests.map((r) => r.body?.model)).toEqual([MODEL_ALIASES.opus, MODEL_ALIASES.opus, MODEL_ALIASES.opus, MODEL_ALIASES.haiku]);
  });

  it('without --fallback-model the retry stays on the model', async () => {
    const overloaded = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '5' } };
    project.server.enqueue(overloaded);
    answer();
    await cli(['-p', '--model', 'opus', 'hi']);
    expect(project.server.requests.map((r) => r.body?.model)).toEqual([MODEL_ALIASES.opus, MODEL_ALIASES.opus]);
  });
});

describe('--max-budget-usd', () => {
  it('stops once the run has cost the budget: error_max_budget_usd, exit 1, no further model call', async () => {
    // Sonnet at $3 per million input tokens: 100k input tokens cost $0.30, past a budget of $0.10.
    project.server.enqueue({ content: [bashUse('toolu_1', 'ls')], stop_reason: 'tool_use', usage: { input_tokens: 100_000 } }, answerFromResults);
    const run = await cli(['-p', '--model', 'sonnet', '--max-budget-usd', '0.1', '--output-format', 'json', 'list']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true, exit_reason: 'max_budget' });
    expect(project.server.requests).toHaveLength(1);
  });

  it('a budget not reached lets the run finish', async () => {
    project.server.enqueue({ content: [bashUse('toolu_1', 'ls')], stop_reason: 'tool_use', usage: { input_tokens: 1000 } }, answerFromResults);
    const run = await cli(['-p', '--model', 'sonnet', '--max-budget-usd', '0.1', '--output-format', 'json', 'list']);
    expect(run.code, run.stderr).toBe(0);
    expect(project.server.requests).toHaveLength(2);
  });
});

describe('output flags', () => {
  it('--verbose with stream-json is accepted (Claude Code requires it there)', async () => {
    answer();
    const run = await cli(['-p', '--output-format', 'stream-json', '--verbose', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    const types = run.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.at(-1)).toBe('result');
    expect(types).not.toContain('stream_event');
  });

  it('--include-partial-messages adds the raw stream events as stream_event lines', async () => {
    answer('streamed');
    const run = await cli(['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; event?: { type: string } })
      .filter((line) => line.type === 'stream_event')
      .map((line) => line.event?.type);
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.at(-1)).toBe('message_stop');
  });
});

describe('bad flags: one line and a pointer to --help, exit 2, no request', () => {
  it.each([
    [['--verbos', '-p', 'hi'], /^agentloop: unknown option --verbos \(did you mean --verbose\?\)$/],
    [['-p', '--session-id', 'not-a-uuid', 'hi'], /^agentloop: --session-id takes a UUID/],
    [['-p', '--max-budget-usd', 'lots', 'hi'], /^agentloop: --max-budget-usd takes a number above 0, not "lots"$/],
    [['-p', '--include-partial-messages', 'hi'], /^agentloop: --include-partial-messages goes with --output-format stream-json$/],
    [['-p', '--allowedTools', 'Bash(git log', 'hi'], /^agentloop: --allowedTools: "\(" not closed in "Bash\(git log"$/],
    [['-p', '--model'], /^agentloop: --model needs a value$/],
  ])('%j', async (args, message) => {
    expectUsageError(await cli(args), message);
    expect(project.server.requests).toHaveLength(0);
  });
});
