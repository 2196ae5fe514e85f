/**
 * `agentloop approvals`, `approve ID TOOL_USE_ID` and `deny ID TOOL_USE_ID --reason TEXT`: the calls of durable runs
 * that wait for someone to allow them (docs/durable.md#approvals), listed and answered from any machine that reaches
 * Restate (durable/approvalsClient.ts: the admin API lists them, the ingress answers them).
 */
import { answerApproval, listApprovals } from '../../durable/approvalsClient.js';
import type { DurableOptions } from '../commandLine/durableOptions.js';
import type { DurableIo } from './durableIo.js';
import { selfCommand, shellWord } from '../commandLine/self.js';
import { shown } from '../printers/terminal.js';

type ApprovalCommand = Extract<DurableOptions, { command: 'approvals' | 'approve' | 'deny' }>;

/** No such call waits (exit 2, as a reading command's "no such session"). */
const NOT_WAITING = 2;

export async function approvalCommand(options: ApprovalCommand, io: DurableIo): Promise<number> {
  if (options.command === 'approvals') return listCommand(options, io);
  const answer = options.command === 'approve' ? ({ allow: true } as const) : { allow: false as const, message: options.reason ?? 'denied by the approver' };
  const answered = await answerApproval(options, options.id, options.toolUseId, answer);
  if (!answered) {
    io.stderr.write(`agentloop: no call ${options.toolUseId} of session ${options.id} waits for approval (see ${selfCommand()} approvals)\n`);
    return NOT_WAITING;
  }
  io.stderr.write(`${shown(`${options.command === 'approve' ? 'approved' : 'denied'}: ${answered.call} (session ${options.id}, ${options.toolUseId})`)}\n`);
  return 0;
}

/** One line a waiting call: session, tool_use id, since when, the call; how to answer on stderr. */
async function listCommand(options: Extract<ApprovalCommand, { command: 'approvals' }>, io: DurableIo): Promise<number> {
  const waiting = await listApprovals(options);
  for (const call of waiting) {
    const deadline = call.deadline ? ` (denied at ${call.deadline} unless answered)` : '';
    io.stdout.write(`${shown(`${call.sessionId}  ${call.toolUseId}  ${call.since}  ${call.call}${deadline}`)}\n`);
  }
  if (waiting.length === 0) {
    io.stderr.write('no call waits for approval\n');
    return 0;
  }
  const restate = ` --restate ${shellWord(options.restate)}`;
  io.stderr.write(`answer with: ${selfCommand()} approve ID TOOL_USE_ID${restate}, or ${selfCommand()} deny ID TOOL_USE_ID --reason TEXT${restate}\n`);
  return 0;
}
