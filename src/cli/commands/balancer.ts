/**
 * `agentloop balancer`: one address in front of several workers (durable/balancer.ts), so that Restate sends each
 * invocation to one that answers; with `--register ADMIN_URL`, registered once a worker answers (./serving.ts).
 */
import type { DurableOptions } from '../commandLine/durableOptions.js';
import { selfCommand } from '../commandLine/self.js';
import { shown } from '../printers/terminal.js';
import type { DurableIo } from './durableIo.js';
import { register, untilInterrupted } from './serving.js';

/** How long `balancer --register` waits for a worker to answer: Restate asks a worker, through the balancer, what it serves. */
const FIRST_WORKER_MS = 30_000;

/** `agentloop balancer`: one address in front of several workers (its address on stdout), until Ctrl-C. */
export async function balancerCommand(options: Extract<DurableOptions, { command: 'balancer' }>, io: DurableIo): Promise<number> {
  const { startBalancer } = await import('../../durable/balancer.js');
  const balancer = await startBalancer({ ...options, log: (line) => io.stderr.write(`agentloop balancer: ${shown(line)}\n`) });
  io.stdout.write(`${balancer.url}\n`);
  io.stderr.write(`agentloop balancer: ${balancer.url} in front of ${options.backends.join(', ')}; Ctrl-C stops it\n`);
  if (options.register && !(await balancer.answered(FIRST_WORKER_MS))) {
    io.stderr.write(`agentloop: no worker answers at ${options.backends.join(', ')}: start them first (${selfCommand()} worker --port N)\n`);
    await balancer.close();
    return 1;
  }
  if (!(await register(options, balancer.url, io))) {
    await balancer.close();
    return 1;
  }
  return untilInterrupted(() => balancer.close());
}
