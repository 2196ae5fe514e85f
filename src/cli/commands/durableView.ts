/**
 * `agentloop view --restate URL ID`: a durable run in the local step-through viewer. Its records are read through
 * Restate's admin API into a temporary home, refreshed while it runs; the calls it waits on for an approval go to the
 * page's card (view/server/approvals.ts: the call, since when, the commands that answer it; then how it was answered) and,
 * once each, to stderr.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSession, type SessionView } from '../../durable/admin.js';
import { withRunningChildren } from '../../durable/childView.js';
import { adminUrlOf } from '../../durable/addresses.js';
import { SERVICE_NAME, type WaitingCall } from '../../durable/protocol.js';
import type { SessionRecord } from '../../transcript/records.js';
import { approvalFeed, type WaitingCallView } from '../../view/server/approvals.js';
import type { DurableIo } from './durableIo.js';
import { notDone } from './durableNotDone.js';
import type { DurableOptions } from '../commandLine/durableOptions.js';
import { selfCommand, shellWord } from '../commandLine/self.js';
import { outputRedactor, shown } from '../printers/terminal.js';

type ViewOptions = Extract<DurableOptions, { command: 'view' }>;

/** The commands that answer call `toolUseId`, as typed (`--admin` where it is not the one `--restate` implies). */
function answers(options: ViewOptions, toolUseId: string): { approve: string; deny: string } {
  const admin = options.admin === adminUrlOf(options.restate) ? '' : ` --admin ${shellWord(options.admin)}`;
  const where = `${shellWord(options.id)} ${shellWord(toolUseId)} --restate ${shellWord(options.restate)}${admin}`;
  return { approve: `${selfCommand()} approve ${where}`, deny: `${selfCommand()} deny ${where} --reason TEXT` };
}

/** How a call that no longer waits was answered, from the run's records (not there yet: `answered`). */
function answered(call: WaitingCallView, records: readonly SessionRecord[]): WaitingCallView {
  const denial = records.find((r) => r.type === 'permission_denied' && r.toolUseId === call.toolUseId);
  if (denial && denial.type === 'permission_denied') return { ...call, state: 'denied', message: denial.reason };
  const ran = records.some((r) => r.type === 'tool_result' && r.toolUseId === call.toolUseId);
  return { ...call, state: ran ? 'approved' : 'answered' };
}

/** The page's list after `view`: the calls that wait now, and those that waited before with how they were answered. */
function callsOf(options: ViewOptions, before: readonly WaitingCallView[], view: SessionView): WaitingCallView[] {
  const waiting: readonly WaitingCall[] = view.state === 'running' ? view.waiting : [];
  const records = view.state === 'unknown' ? [] : view.records;
  const now = new Set(waiting.map((call) => call.toolUseId));
  const past = before.filter((call) => !now.has(call.toolUseId)).map((call) => (call.state === 'waiting' || call.state === 'answered' ? answered(call, records) : call));
  const current = waiting.map(({ toolUseId, tool, call, reason, since, deadline }): WaitingCallView => ({
    toolUseId, tool, call, reason, since, ...(deadline ? { deadline } : {}), ...answers(options, toolUseId), state: 'waiting',
  }));
  return [...past, ...current];
}

/** Says each call of the run that waits for approval, once, with the commands that answer it. */
function waitingSayer(options: { restate: string; id: string }, io: DurableIo): (view: SessionView) => void {
  const said = new Set<string>();
  return (view) => {
    for (const call of view.state === 'running' ? view.waiting : []) {
      if (said.has(call.toolUseId)) continue;
      said.add(call.toolUseId);
      const answer = `${selfCommand()} approve ${options.id} ${call.toolUseId} --restate ${shellWord(options.restate)} (or deny ... --reason TEXT)`;
      io.stderr.write(`${shown(`waiting for approval since ${call.since}: ${call.call} (${call.toolUseId}); ${answer}`)}\n`);
    }
  };
}

/** `view --restate URL ID`: the durable run's records in a temporary home, for the local viewer, refreshed while it runs. */
export async function viewCommand(options: ViewOptions, io: DurableIo): Promise<number> {
  // A running child's records and waiting calls are read from its own invocation's state (durable/childView.ts).
  const read = async () => withRunningChildren({ admin: options.admin }, options.id, await readSession({ admin: options.admin }, SERVICE_NAME, options.id));
  const first = await read();
  // Nothing recorded yet (unknown, or a run no worker has started): nothing to show.
  if (first.state === 'unknown' || (first.state === 'running' && first.records.length === 0)) return notDone(first, options, io);
  const records = first.records;
  const sayWaiting = waitingSayer(options, io);
  sayWaiting(first);
  const approvals = approvalFeed();
  approvals.set(callsOf(options, [], first));
  const home = mkdtempSync(join(tmpdir(), 'agentloop-durable-view-'));
  const sessions = join(home, 'sessions');
  mkdirSync(sessions);
  const file = join(sessions, `${options.id}.jsonl`);
  const write = (list: readonly unknown[]) => writeFileSync(file, `${list.map((r) => JSON.stringify(r)).join('\n')}\n`);
  write(records);
  let count = records.length;
  const timer = setInterval(() => {
    read().then(
      (view) => {
        const latest = view.state === 'unknown' ? [] : view.records;
        if (latest.length !== count) write(latest);
        count = latest.length;
        sayWaiting(view);
        approvals.set(callsOf(options, approvals.current, view));
      },
      () => {}, // Restate is away for a moment: the page keeps what it has
    );
  }, 1000);
  try {
    const [{ startViewer }, { waitForInterrupt }] = await Promise.all([import('../../view/server/server.js'), import('./view.js')]);
    const port = options.port !== undefined ? { port: options.port } : {};
    const viewer = await startViewer({ home, sessionId: options.id, live: true, ...port, approvals, redactor: outputRedactor() });
    io.stdout.write(`${viewer.url}\n`);
    io.stderr.write(`Serving durable session ${options.id} from ${options.restate} on 127.0.0.1; press Ctrl-C to stop.\n`);
    await waitForInterrupt();
    await viewer.close();
    return 0;
  } finally {
    clearInterval(timer);
    rmSync(home, { recursive: true, force: true });
  }
}
