/**
 * Durable runs on Restate, the dispatcher: `agentloop worker` serves the agent as a Restate deployment, `balancer` one
 * address in front of several; `submit`, `result`, `messages`, `view --restate` and `approvals` talk to Restate's
 * ingress. Loaded by main.ts only for these commands; each command's file loads when it runs (the worker's SDK and
 * loop only for `worker`).
 */
import { loadModelSettings } from '../../anthropic/settings.js';
import { RestateCallError } from '../../durable/http.js';
import { credentialRedactor } from '../../tools/bash/judge/secrets.js';
import type { DurableOptions } from '../commandLine/durableOptions.js';
import { selfCommand } from '../commandLine/self.js';
import { shown, useRedactor } from '../printers/terminal.js';
import type { DurableIo } from './durableIo.js';

export type { DurableIo } from './durableIo.js';

/** The durable command `options.command`, each one file of its own here (worker.ts, balancer.ts, submit.ts, result.ts, durableView.ts, durableApprovals.ts); a Restate call that fails is one line and exit 1. */
export async function runDurable(options: DurableOptions, io: DurableIo): Promise<number> {
  // What these commands print holds no key of this configuration, nor a credential of the environment (../printers/terminal.ts).
  useRedactor(credentialRedactor(io.env, loadModelSettings(io.env, io.cwd)));
  try {
    switch (options.command) {
      case 'worker':
        return await (await import('./worker.js')).workerCommand(options, io);
      case 'balancer':
        return await (await import('./balancer.js')).balancerCommand(options, io);
      case 'submit':
        return await (await import('./submit.js')).submitCommand(options, io);
      case 'result':
        return await (await import('./result.js')).resultCommand(options, io);
      case 'messages':
        return await (await import('./result.js')).messagesCommand(options, io);
      case 'view':
        return await (await import('./durableView.js')).viewCommand(options, io);
      case 'approvals':
      case 'approve':
      case 'deny':
        return await (await import('./durableApprovals.js')).approvalCommand(options, io);
    }
  } catch (error) {
    // A rule that does not parse (read once the command runs, not by the parser every command line goes through).
    if (error instanceof Error && error.name === 'UsageError') {
      io.stderr.write(`agentloop: ${shown(error.message)}\nsee ${selfCommand()} ${options.command} --help\n`);
      return 2;
    }
    // `view --port N` on a port taken (loopback/listen.ts): one line, as the local viewer's.
    if (error instanceof Error && error.name === 'PortError') {
      io.stderr.write(`agentloop: ${shown(error.message)}\n`);
      return 2;
    }
    if (!(error instanceof RestateCallError)) throw error;
    io.stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 1;
  }
}
