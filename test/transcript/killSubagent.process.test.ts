/**
 * kill -9 inside a subagent, then resume: the CLI as a real process against the local Messages API, killed at several
 * points of a child's run (a fault matrix): before its first model reply, after one of its tools ran while the next
 * ran, during its last reply, inside a child's child. The resumed session takes the child up where it stopped
 * (--continue, --resume, the REPL's --continue, the Agent SDK's `resume`, the library's runAgent with `cutAgents`): its finished tools never
 * run again, its cut-off tool is answered as interrupted (and said so), it runs on to its end, and its answer is the
 * parent's Agent call's result, which the parent's next request carries. Every side effect happens once; every request
 * history is valid. Without the agent's definition, the child cannot go on: one line says so, and the call is
 * answered as interrupted, as before. Killed after the parent recorded its Agent call and before the child wrote
 * anything, each host runs the child from its prompt (nothing of it had run).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/transcript/resume.js';
import { resumeSession } from '../../src/transcript/open.js';
import { runAgent } from '../../src/run/runAgent.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { lastToolResults, resultText } from '../support/agentServer.js';
import { RUN_EVERYTHING, runCli, startCli } from '../support/cli.js';
import { collectSdk } from '../support/sdkCollect.js';
import type { MessagesServer, RequestBody, Step } from '../support/messagesServer.js';
import type { CliProject } from '../support/project.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';

let project: CliProject;
let server: MessagesServer;
let dir: string;
let home: string;
let marker: string;

markedCliProjectPerTest('killsub', (p, m) => {
  ({ server, dir, home } = p);
  project = p;
  marker = m;
});

const WORKER = { description: 'Works', prompt: 'You work.', tools: ['Bash'] };
const AGENTS = JSON.stringify({ worker: WORKER });
const NESTED = JSON.stringify({ outer: { description: 'Delegates', prompt: 'You delegate.', tools: ['Agent', 'Bash'] }, worker: WORKER });

const text = (words: string): Step => ({ content: [{ type: 'text', text: words }], stop_reason: 'end_turn' });
const bash = (id: string, command: string): Step => ({ content: [{ type: 'tool_use', id, name: 'bash', input: { command } }], stop_reason: 'tool_use' });
const agentCall = (id: string, type: string): Step => ({ content: [{ type: 'tool_use', id, name: 'Agent', input: { description: 'Work', prompt: `Do the work (${type})`, subagent_type: type } }], stop_reason: 'tool_use' });
const records = (text: string) => text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { type: string; record?: { type: string }; [k: string]: unknown });
const fileText = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
/** The requests whose system prompt is `who`'s (a child's is its agent's prompt). */
const systemOf = (body: RequestBody) => JSON.stringify(body.system ?? '');
const requestsOf = (who: string) => server.requests.map((r) => r.body as RequestBody).filter((body) => systemOf(body).includes(who));
const parentRequests = () => server.requests.map((r) => r.body as RequestBody).filter((body) => !systemOf(body).includes('You work.') && !systemOf(body).includes('You delegate.'));
/** The result the last request of `who` carries for `id`. */
const resultFor = (bodies: RequestBody[], id: string) => lastToolResults(bodies.at(-1) as RequestBody).find((r) => r.tool_use_id === id);

/** Starts `-p` with `agents`, waits for `cut`, kills the CLI with SIGKILL; gives the session's id. */
async function killedAt(agents: string, cut: (stderr: string) => boolean, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const run = startCli(['-p', 'work', RUN_EVERYTHING, '--agents', agents], { cwd: dir, env: { ...project.env, ...env } });
  await waitFor('the point to kill at', () => cut(run.output().stderr) || run.output().stderr.includes('Error'), 30_000);
  run.child.kill('SIGKILL');
  expect((await run.done).signal, run.output().stderr).toBe('SIGKILL');
  const [name] = [...transcripts(home).keys()];
  return (name as string).replace(/\.jsonl$/, '');
}

/** The child's second call cut while it runs (its first ran: once.log), the child's records as they are on disk. */
async function killedDuringSecondTool(agents = AGENTS, first: Step[] = [agentCall('toolu_A1', 'worker')]): Promise<string> {
  server.enqueue(...first, bash('toolu_C1', 'echo ran >> once.log'), bash('toolu_C2', `echo cut >> cut.log; sleep 30 # ${marker}`));
  return killedAt(agents, () => fileText('cut.log') !== '');
}

/** What holds after any resume: each side effect once, every history valid, the parent's first request sent once. */
function expectOnceAndValid(): void {
  expect(fileText('once.log')).toBe('ran\n');
  for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
  expect(parentRequests().filter((body) => body.messages.length === 1)).toHaveLength(1);
}


/** Session `id` taken up by the library: resumeSession, then runAgent with its messages and cutAgents. */
async function resumeInLibrary(id: string, onEvent?: (event: { type: string }) => void) {
  const resumed = await resumeSession(join(home, 'sessions', `${id}.jsonl`));
  const { conversation } = resumed;
  const run = await runAgent(null, {
    model: 'claude-test',
    client: { apiKey: 'sk-test', baseURL: server.url },
    tools: defaultTools({ cwd: dir }),
    cwd: dir,
    agents: { worker: WORKER },
    messages: conversation.messages,
    turnCount: conversation.turnCount,
    cutAgents: conversation.cutAgents,
    session: resumed.recorder,
    ...(onEvent ? { onEvent } : {}),
  });
  resumed.recorder.close();
  return { run, cutAgents: conversation.cutAgents };
}

describe('kill -9 inside a subagent, then resume: the child goes on where it stopped', () => {
  it('before its first model reply: --continue asks its first question again, and it runs on to its end', async () => {
    server.enqueue(agentCall('toolu_A1', 'worker'), { fault: 'no-response' });
    await killedAt(AGENTS, () => server.requests.length === 2);
    server.enqueue(bash('toolu_C1', 'echo ran >> once.log'), text('Child done.'), text('Parent done.'));
    const again = await runCli(['--continue', '-p', '--output-format', 'json', RUN_EVERYTHING, '--agents', AGENTS], { cwd: dir, env: project.env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ result: 'Parent done.' });
    expect(again.stderr).toContain('subagent worker');
    expect(again.stderr).toContain('goes on where it stopped');
    const child = requestsOf('You work.');
    expect(child.map((body) => body.messages.length)).toEqual([1, 1, 3]);
    expect(child[1]?.messages).toEqual(child[0]?.messages);
    expect(resultFor(parentRequests(), 'toolu_A1')).toMatchObject({ tool_use_id: 'toolu_A1' });
    expect(resultText(resultFor(parentRequests(), 'toolu_A1')!)).toContain('Child done.');
    expect(resultFor(parentRequests(), 'toolu_A1')?.is_error).toBeFalsy();
    expectOnceAndValid();
  });

  it("after a tool ran, while the next ran: its finished tool is not run again, the cut one is answered as interrupted and said so", async () => {
    const id = await killedDuringSecondTool();
    const cut = records(transcripts(home).get(`${id}.jsonl`) as string);
    expect(cut.filter((r) => r.type === 'agent').map((r) => r.record?.type).filter((t) => t === 'tool_result')).toHaveLength(1);
    server.enqueue(text('Child done.'), text('Parent done.'));
    const again = await runCli(['--resume', id, '-p', '--output-format', 'json', RUN_EVERYTHING, '--agents', AGENTS, 'and then?'], { cwd: dir, env: project.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('answered bash toolu_C2 as interrupted (not run again)');
    const resumedChild = requestsOf('You work.').at(-1) as RequestBody;
    expect(lastToolResults(resumedChild)).toEqual([expect.objectContaining({ tool_use_id: 'toolu_C2', is_error: true, content: INTERRUPTED_TOOL_RESULT })]);
    const last = parentRequests().at(-1) as RequestBody;
    expect(resultText(resultFor([last], 'toolu_A1')!)).toContain('Child done.');
    expect(JSON.stringify(last.messages.at(-1))).toContain('and then?');
    expect(fileText('cut.log')).toBe('cut\n');
    expectOnceAndValid();
    const after = records(transcripts(home).get(`${id}.jsonl`) as string);
    const count = (kind: string, inner?: string) => after.filter((r) => r.type === kind && (inner === undefined || r.record?.type === inner)).length;
    expect([count('agent_start'), count('agent', 'resume'), count('agent_end')]).toEqual([1, 1, 1]);
    // The session is whole: resumed again, nothing of the child runs (its call has its answer).
    server.enqueue(text('Still done.'));
    const third = await runCli(['--continue', '-p', RUN_EVERYTHING, '--agents', AGENTS, 'anything else?'], { cwd: dir, env: project.env });
    expect(third.code, third.stderr).toBe(0);
    expect(requestsOf('You work.')).toHaveLength(3);
    expect(JSON.stringify(parentRequests().at(-1)?.messages)).toContain('Child done.');
  });

  it('during its last reply: the reply is asked again, from the same history', async () => {
    server.enqueue(agentCall('toolu_A1', 'worker'), bash('toolu_C1', 'echo ran >> once.log'), { fault: 'stall', content: [{ type: 'text', text: 'Child do' }], afterBlocks: 0, midBlock: true });
    await killedAt(AGENTS, () => requestsOf('You work.').length === 2);
    server.enqueue(text('Child done.'), text('Parent done.'));
    const again = await runCli(['--continue', '-p', '--output-format', 'stream-json', '--verbose', RUN_EVERYTHING, '--agents', AGENTS], { cwd: dir, env: project.env });
    expect(again.code, again.stderr).toBe(0);
    // The child taken up is a task of the resumed run: started, its lines, its end, then the Agent call's result line.
    const lines = again.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; subtype?: string; parent_tool_use_id?: string | null; tool_use_id?: string; result?: string; message?: { content?: { type: string; tool_use_id?: string }[] } });
    const kinds = lines.map((l) => `${l.type}${l.subtype ? `/${l.subtype}` : ''}`);
    expect(kinds.filter((k) => k.startsWith('system/task'))).toEqual(['system/task_started', 'system/task_updated', 'system/task_notification']);
    expect(lines.find((l) => l.subtype === 'task_started')?.tool_use_id).toBe('toolu_A1');
    const answer = lines.findIndex((l) => l.type === 'user' && l.parent_tool_use_id === null && l.message?.content?.[0]?.tool_use_id === 'toolu_A1');
    expect(answer).toBeGreaterThan(kinds.indexOf('system/task_notification'));
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'Parent done.' });
    const child = requestsOf('You work.');
    expect(child).toHaveLength(3);
    expect(child[2]?.messages).toEqual(child[1]?.messages);
    expect(resultText(resultFor(parentRequests(), 'toolu_A1')!)).toContain('Child done.');
    expectOnceAndValid();
  });

  it("inside a child's child: both go on, each answer reaching its caller", async () => {
    await killedDuringSecondTool(NESTED, [agentCall('toolu_A1', 'outer'), agentCall('toolu_B1', 'worker')]);
    server.enqueue(text('Inner done.'), text('Outer done.'), text('Parent done.'));
    const again = await runCli(['--continue', '-p', RUN_EVERYTHING, '--agents', NESTED], { cwd: dir, env: project.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Parent done.');
    expect(resultFor(requestsOf('You work.'), 'toolu_C2')).toMatchObject({ is_error: true, content: INTERRUPTED_TOOL_RESULT });
    expect(resultText(resultFor(requestsOf('You delegate.'), 'toolu_B1')!)).toContain('Inner done.');
    expect(resultText(resultFor(parentRequests(), 'toolu_A1')!)).toContain('Outer done.');
    expect(fileText('cut.log')).toBe('cut\n');
    expectOnceAndValid();
  });

  it('without the agent at resume: one line says the child cannot go on, and the call is answered as interrupted', async () => {
    await killedDuringSecondTool();
    server.enqueue(text('The work was cut; done.'));
    const again = await runCli(['--continue', '-p', '--output-format', 'json'], { cwd: dir, env: project.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.split('\n').filter((l) => l.includes('cannot go on'))).toEqual([expect.stringContaining('this run has no agent "worker"')]);
    expect(resultFor(parentRequests(), 'toolu_A1')).toMatchObject({ is_error: true, content: INTERRUPTED_TOOL_RESULT });
    expect(fileText('cut.log')).toBe('cut\n');
    expectOnceAndValid();
  });

  it("the REPL's --continue: the child goes on as the REPL finishes the interrupted turn, before the first question", async () => {
    await killedDuringSecondTool();
    server.enqueue(text('Child done.'), text('Parent done.'), text('Nothing more.'));
    const repl = await runCli(['--continue', RUN_EVERYTHING, '--agents', AGENTS], { cwd: dir, env: project.env, input: 'and then?\n/exit\n' });
    expect(repl.code, repl.stderr).toBe(0);
    expect(repl.stdout).toContain('Parent done.');
    expect(repl.stdout).toContain('Nothing more.');
    const [finishing, asked] = parentRequests().slice(-2) as [RequestBody, RequestBody];
    expect(resultText(resultFor([finishing], 'toolu_A1')!)).toContain('Child done.');
    expect(JSON.stringify(asked.messages.at(-1))).toContain('and then?');
    expect(requestsOf('You work.')).toHaveLength(3);
    expect(fileText('cut.log')).toBe('cut\n');
    expectOnceAndValid();
  });

  it("the Agent SDK's resume: the child goes on, and the new prompt follows its answer", async () => {
    const id = await killedDuringSecondTool();
    server.enqueue(text('Child done.'), text('Parent done.'));
    const { messages, thrown } = await collectSdk(project, 'and then?', { resume: id, agents: { worker: WORKER } });
    expect(thrown).toBeUndefined();
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'Parent done.' });
    const last = parentRequests().at(-1) as RequestBody;
    expect(resultText(resultFor([last], 'toolu_A1')!)).toContain('Child done.');
    expect(JSON.stringify(last.messages.at(-1))).toContain('and then?');
    expect(fileText('cut.log')).toBe('cut\n');
    expectOnceAndValid();
  });

  it("the library: resumeSession's cutAgents given to runAgent", async () => {
    const id = await killedDuringSecondTool();
    server.enqueue(text('Child done.'), text('Parent done.'));
    const events: string[] = [];
    const { run, cutAgents } = await resumeInLibrary(id, (event) => events.push(event.type));
    expect(cutAgents.map((c) => c.toolUseId)).toEqual(['toolu_A1']);
    expect(run.state).toBe('done');
    expect(run.text).toBe('Parent done.');
    expect(events.slice(0, 2)).toEqual(['agent_resume', 'agent_event']);
    expect(resultText(resultFor(parentRequests(), 'toolu_A1')!)).toContain('Child done.');
    expectOnceAndValid();
  });
});

/**
 * Killed after the parent recorded its Agent call (its tool_start on disk) and before the child wrote anything (no
 * agent_start, no request of its own): the crash point of transcript/crashPoint.ts stops the process right after that
 * write. Nothing of the child ran, so the resume runs it from its prompt, on every host that resumes.
 */
async function killedBeforeChild(): Promise<string> {
  server.enqueue(agentCall('toolu_A1', 'worker'));
  const pause = { AGENTLOOP_TEST_PAUSE_AT_RECORD: 'after:"type":"tool_start","block":{"type":"tool_use","id":"toolu_A1"' };
  const id = await killedAt(AGENTS, (stderr) => stderr.includes('paused at record after:'), pause);
  const cut = records(transcripts(home).get(`${id}.jsonl`) as string);
  expect(cut.filter((r) => r.type === 'tool_start').map((r) => (r.block as { id: string }).id)).toEqual(['toolu_A1']);
  expect(cut.filter((r) => r.type === 'agent_start' || r.type === 'agent')).toEqual([]);
  expect(requestsOf('You work.')).toEqual([]);
  server.enqueue(bash('toolu_C1', 'echo ran >> once.log'), text('Child done.'), text('Parent done.'));
  return id;
}

/** What every host gives: the child asked its prompt once, ran its tool once, and its answer is the call's result. */
function expectChildRan(): void {
  expect(requestsOf('You work.').map((body) => body.messages.length)).toEqual([1, 3]);
  const answer = parentRequests().flatMap((body) => lastToolResults(body)).find((r) => r.tool_use_id === 'toolu_A1');
  expect(answer?.is_error).toBeFalsy();
  expect(resultText(answer!)).toContain('Child done.');
  expectOnceAndValid();
}

describe('kill -9 after the Agent call was recorded, before its child started, then resume: the child runs', () => {
  it('-p --continue: said on stderr, the child runs from its prompt, its answer is the call\'s result', async () => {
    await killedBeforeChild();
    const again = await runCli(['--continue', '-p', '--output-format', 'stream-json', '--verbose', RUN_EVERYTHING, '--agents', AGENTS], { cwd: dir, env: project.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Agent toolu_A1 was cut before its subagent started: it runs now');
    const lines = again.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; subtype?: string; tool_use_id?: string; result?: string });
    // The child is a task of the resumed run, as a child that runs is: started, its tool's progress, its end.
    expect(lines.filter((l) => l.subtype?.startsWith('task_')).map((l) => l.subtype)).toEqual(['task_started', 'task_progress', 'task_updated', 'task_notification']);
    expect(lines.find((l) => l.subtype === 'task_started')?.tool_use_id).toBe('toolu_A1');
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'Parent done.' });
    expectChildRan();
  });

  it('--resume ID with a new prompt: the child runs first, the prompt follows its answer', async () => {
    const id = await killedBeforeChild();
    const again = await runCli(['--resume', id, '-p', RUN_EVERYTHING, '--agents', AGENTS, 'and then?'], { cwd: dir, env: project.env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.stringify(parentRequests().at(-1)?.messages.at(-1))).toContain('and then?');
    expectChildRan();
  });

  it("the REPL's --continue", async () => {
    await killedBeforeChild();
    server.enqueue(text('Nothing more.'));
    const repl = await runCli(['--continue', RUN_EVERYTHING, '--agents', AGENTS], { cwd: dir, env: project.env, input: 'and then?\n/exit\n' });
    expect(repl.code, repl.stderr).toBe(0);
    expect(repl.stdout).toContain('Nothing more.');
    expectChildRan();
  });

  it("the Agent SDK's resume", async () => {
    const id = await killedBeforeChild();
    const { messages, thrown } = await collectSdk(project, 'and then?', { resume: id, agents: { worker: WORKER }, allowedTools: ['Bash'] });
    expect(thrown).toBeUndefined();
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'Parent done.' });
    expect(JSON.stringify(parentRequests().at(-1)?.messages.at(-1))).toContain('and then?');
    expectChildRan();
  });

  it("the library: resumeSession's cutAgents given to runAgent", async () => {
    const id = await killedBeforeChild();
    const { run, cutAgents } = await resumeInLibrary(id);
    expect(cutAgents).toEqual([{ toolUseId: 'toolu_A1', start: undefined, end: undefined, records: [] }]);
    expect(run.text).toBe('Parent done.');
    expectChildRan();
  });
});
