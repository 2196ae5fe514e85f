/**
 * What the durable commands that serve until Ctrl-C share (`worker`: ./worker.ts, `balancer`: ./balancer.ts): the
 * registration of their address with Restate (`--register ADMIN_URL`), and the wait for Ctrl-C.
 */
import type { DurableOptions } from '../commandLine/durableOptions.js';
import { selfCommand } from '../commandLine/self.js';
import { shown } from '../printers/terminal.js';
import type { DurableIo } from './durableIo.js';

type Serving = Extract<DurableOptions, { command: 'worker' | 'balancer' }>;

/** Registers `uri` (unless no `--register`); on failure says why in one line and gives false. */
export async function register(options: Serving, uri: string, io: DurableIo): Promise<boolean> {
  if (!options.register) return true;
  const { registerDeployment, RegistrationError, takeover } = await import('../../durable/worker.js');
  try {
    const deployment = await registerDeployment(options.register, uri, { replace: options.replace === true, as: options.command, command: selfCommand() });
    if (deployment.joined) {
      io.stderr.write(`joined the workers of the balancer at ${deployment.uri} (registered with ${options.register}): ${deployment.joined.join(', ')}\n`);
    } else {
      io.stderr.write(`registered ${uri} with ${options.register} (deployment ${deployment.id}); ${takeover()}\n`);
    }
    return true;
  } catch (error) {
    if (!(error instanceof RegistrationError)) throw error;
    io.stderr.write(`agentloop: ${shown(error.message)}\n`);
    return false;
  }
}

/** Serves until Ctrl-C, then closes. */
export async function untilInterrupted(close: () => Promise<void>): Promise<number> {
  const { waitForInterrupt } = await import('./view.js');
  await waitForInterrupt();
  await close();
  return 0;
}
