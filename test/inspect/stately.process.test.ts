/**
 * `--inspect`: the machine's inspection events reach a page through the local bridge (the
 * Stately page itself is not loaded here: it needs the internet).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { assign, createActor, setup } from 'xstate';
import { startStatelyInspector, STATELY_INSPECTOR_URL, UNAVAILABLE, type StatelyInspector } from '../../src/inspect/stately.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { listSessions, readTranscript } from '../../src/transcript/store.js';
import { runAgent } from '../../src/run/runAgent.js';
import { startCheckedServer } from '../support/agentServer.js';
import { CLI, cliEnv, startCli } from '../support/cli.js';
import { echoTool } from '../support/drive.js';
import { waitFor } from '../support/sessions.js';

interface Received {
  type: string;
  name?: string;
  definition?: string;
  snapshot?: { status?: string; value?: unknown };
  event?: { type: string };
}

let inspector: StatelyInspector | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await inspector?.close();
  inspector = undefined;
});

/** Connects as the bridge page does, and collects what it relays. */
async function connectViewer(url: string, origin = `http://127.0.0.1:${new URL(url).port}`): Promise<Received[]> {
  const received: Received[] = [];
  const { port, searchParams } = new URL(url);
  const socket = new WebSocket(`ws://127.0.0.1:${port}/?role=viewer&token=${searchParams.get('token')}`, { origin });
  sockets.push(socket);
  socket.on('message', (data) => received.push(JSON.parse(data.toString()) as Received));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return received;
}

/** The innermost state of a snapshot's value (`{ turn: 'callingModel' }` is callingModel, as the transcript names it). */
const leaf = (value: unknown): unknown => (value && typeof value === 'object' ? leaf(Object.values(value)[0]) : value);

/** The agent machine's snapshots as the page received them: the state and the messages they hold. */
function machineSnapshots(events: Received[]): Array<{ value: unknown; messages: unknown[] }> {
  return events.flatMap((e) => {
    const context = (e.snapshot as { context?: { messages?: unknown[] } } | undefined)?.context;
    return e.type === '@xstate.snapshot' && Array.isArray(context?.messages) ? [{ value: leaf(e.snapshot?.value), messages: context.messages }] : [];
  });
}

/** Each state the transcript records the machine entering, with the messages written before it (by their index). */
function statesWithHistory(records: Array<Record<string, unknown>>): Array<{ state: string; turnCount: number; messages: unknown[] }> {
  let history: unknown[] = [];
  return records.flatMap((r) => {
    if (r.type === 'message') history = [...history.slice(0, r.index as number), r.message];
    return r.type === 'transition' ? [{ state: r.state as string, turnCount: r.turnCount as number, messages: history }] : [];
  });
}

/**
 * The states the machine rests in (a snapshot is taken there): appendingResults too, since the machine waits there for
 * its own RESULTS_APPENDED (house's pure machine, 013696a).
 */
const RESTS_IN = ['callingModel', 'executingTools', 'appendingResults', 'done'];

const finished = (events: Received[]) => events.some((e) => e.type === '@xstate.snapshot' && e.snapshot?.status === 'done');

describe('the Stately inspector bridge', () => {
  it('relays the run’s inspection events to the page, and replays them all to a page opened late', async () => {
    inspector = await startStatelyInspector();
    const early = await connectViewer(inspector.url);
    const model = scriptedModel([reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'x' } }]), reply.text('ok')]);
    const result = await runAgent('go', { model: 'm', modelCall: model.call, tools: [echoTool()], inspect: inspector.inspect });
    expect(result.context.exitReason).toBe('completed');

    await waitFor('the final snapshot at the page', () => finished(early));
    const actor = early.find((e) => e.type === '@xstate.actor' && e.name === 'agent');
    expect(actor?.definition).toContain('callingModel');
    expect(early.some((e) => e.type === '@xstate.event' && e.event?.type === 'TOOLS_DONE')).toBe(true);

    const late = await connectViewer(inspector.url);
    await waitFor('the replay', () => late.length >= early.length);
    expect(late.map((e) => e.type)).toEqual(early.map((e) => e.type));
    expect(inspector.viewers).toBe(2);
  });

  it('each snapshot the page receives holds the messages of its moment, as the transcript has them then', async () => {
    // Snapshots reach the page serialised later than they were taken (the inspector defers them until its socket is
    // open, and a page opened late gets them replayed): a context changed in place would show messages from the future.
    inspector = await startStatelyInspector();
    const home = mkdtempSync(join(tmpdir(), 'agentloop-inspect-snapshots-'));
    try {
      const model = scriptedModel([
        reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'one' } }]),
        reply.toolUse([{ id: 't2', name: 'echo', input: { text: 'two' } }, { id: 't3', name: 'echo', input: { text: 'three' } }]),
        reply.text('done'),
      ]);
      const run = runAgent('go', { model: 'm', modelCall: model.call, tools: [echoTool()], inspect: inspector.inspect, session: { home } });
      const early = await connectViewer(inspector.url);
      expect((await run).context.exitReason).toBe('completed');
      await waitFor('the machine’s final snapshot at the page', () => machineSnapshots(early).some((s) => s.value === 'done'));
      const late = await connectViewer(inspector.url);
      await waitFor('the replay', () => late.length >= early.length);

      const { records } = readTranscript(listSessions(home)[0]?.path as string);
      const entries = statesWithHistory(records as unknown as Array<Record<string, unknown>>);
      expect(entries.map((e) => e.state)).toEqual(expect.arrayContaining(RESTS_IN));
      for (const page of [early, late]) {
        const snapshots = machineSnapshots(page);
        // Each state the transcript records the machine resting in is a snapshot at the page, in the same order,
        // holding exactly the messages written by then.
        let at = 0;
        for (const entry of entries.filter((e) => RESTS_IN.includes(e.state))) {
          while (at < snapshots.length && snapshots[at]?.value !== entry.state) at += 1;
          expect(at, `a snapshot in ${entry.state} (with ${entry.messages.length} messages)`).toBeLessThan(snapshots.length);
          expect(snapshots[at]?.messages, `the snapshot of ${entry.state}, turn ${entry.turnCount}`).toEqual(entry.messages);
          at += 1;
        }
        // And none holds a message that was not yet written when the machine was in that state.
        for (const snapshot of snapshots) expect(entries.some((e) => e.state === snapshot.value && isDeepStrictEqual(e.messages, snapshot.messages)), `a snapshot in ${String(snapshot.value)} with ${snapshot.messages.length} messages`).toBe(true);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a machine that changes its context in place still reaches the page as each moment had it (the bridge copies snapshots as they happen)', async () => {
    // The subject is the bridge, so the machine is one that appends in place, the way the agent's machine once did.
    inspector = await startStatelyInspector();
    const early = await connectViewer(inspector.url);
    const appendsInPlace = setup({ types: { context: {} as { log: number[] }, events: {} as { type: 'ADD'; n: number } } }).createMachine({
      id: 'inPlace',
      context: { log: [] },
      on: { ADD: { actions: assign(({ context, event }) => (context.log.push(event.n), { log: context.log })) } },
    });
    const actor = createActor(appendsInPlace, { inspect: inspector.inspect }).start();
    for (const n of [1, 2, 3]) actor.send({ type: 'ADD', n });
    const logs = (events: Received[]) => events.flatMap((e) => (e.type === '@xstate.snapshot' ? [(e.snapshot as { context: { log: number[] } }).context.log] : []));
    await waitFor('the last snapshot at the page', () => logs(early).length === 4);
    const late = await connectViewer(inspector.url);
    await waitFor('the replay', () => logs(late).length === 4);
    for (const page of [early, late]) {
      expect(logs(page)).toEqual([[], [1], [1, 2], [1, 2, 3]]);
      // The actor's announcement carries its first snapshot, not one read after the later updates.
      expect(page.find((e) => e.type === '@xstate.actor' && e.name === 'inPlace')?.snapshot).toMatchObject({ context: { log: [] } });
    }
    actor.stop();
  });

  it('serves a page that embeds the Stately inspector, and refuses WebSockets from other sites', async () => {
    inspector = await startStatelyInspector();
    const html = await (await fetch(inspector.url)).text();
    expect(html).toContain(`<iframe id="inspector" src="${STATELY_INSPECTOR_URL}">`);
    expect(html).toContain("new WebSocket('ws://' + location.host");
    await expect(connectViewer(inspector.url, 'https://evil.example')).rejects.toThrow(/403/);
  });

  it('a viewer may send only the report that the Stately page could not load: it reaches onUnavailable once; anything else cuts it off', async () => {
    const reasons: string[] = [];
    inspector = await startStatelyInspector({ onUnavailable: (reason) => reasons.push(reason) });
    await connectViewer(inspector.url);
    const reporter = sockets.at(-1) as WebSocket;
    reporter.send(JSON.stringify({ type: UNAVAILABLE, reason: 'offline\u001b[2J' }));
    reporter.send(JSON.stringify({ type: UNAVAILABLE, reason: 'again' }));
    await waitFor('the report', () => reasons.length > 0);
    await connectViewer(inspector.url);
    const other = sockets.at(-1) as WebSocket;
    const closed = new Promise<number>((resolve) => other.once('close', (code) => resolve(code)));
    other.send(JSON.stringify({ type: '@xstate.event', event: { type: 'ABORT' } }));
    expect(await closed).toBe(1008);
    expect(reasons).toEqual(['offline [2J']); // control characters out, told once
    expect(reporter.readyState).toBe(WebSocket.OPEN);
  });

  it('agentloop -p --inspect prints the URL and says the page needs the internet', async () => {
    const server = await startCheckedServer();
    const dir = mkdtempSync(join(tmpdir(), 'agentloop-inspect-'));
    try {
      server.enqueue({ content: [{ type: 'text', text: 'Hello.' }], stop_reason: 'end_turn' });
      const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'm', AGENTLOOP_HOME: join(dir, 'home') });
      const cli = startCli(['-p', 'hi', '--inspect', '--output-format', 'json'], { cwd: dir, env });
      const url = await waitFor('the inspector URL', () => /Stately inspector: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+) \(.*needs the internet\)/.exec(cli.output().stderr)?.[1]);
      const events = await connectViewer(url);
      await waitFor('the run to end', () => cli.output().stderr.includes('page stays up until Ctrl-C'), 20_000);
      await waitFor('the final snapshot at the page', () => finished(events));
      const result = JSON.parse(cli.output().stdout) as { result: string; session_id: string };
      expect(result).toMatchObject({ result: 'Hello.', exit_reason: 'completed' });
      // A page that cannot load the Stately page reports it: the terminal says so, with the offline viewer's command.
      sockets.at(-1)?.send(JSON.stringify({ type: UNAVAILABLE, reason: 'it could not be reached: Failed to fetch' }));
      const said = await waitFor('the terminal to say it', () => /^Stately inspector: the page could not load https:\/\/stately\.ai\/inspect \(it could not be reached: Failed to fetch\); step through this run offline: (.+)$/m.exec(cli.output().stderr)?.[1]);
      expect(said).toBe(`node ${CLI} view ${result.session_id}`);
      cli.child.kill('SIGINT');
      expect((await cli.done).code).toBe(0);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
