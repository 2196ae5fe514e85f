/**
 * The command lines of durable runs (Restate): `worker`, `submit`, `result`, `messages` and
 * `view --restate`. main.ts hands them here before the main parser sees them.
 */
import { parseArgs } from 'node:util';
import { resolveModel } from '../core/models.js';
import { adminUrlOf } from '../durable/admin.js';
import { allowWriteOf, portOf, positiveInt, UsageError, usageErrorOf } from './argValues.js';

export const DEFAULT_INGRESS = 'http://127.0.0.1:8080';

export type DurableOptions =
  | {
      command: 'worker';
      port: number;
      host: string;
      /** Admin API to register with (`--register`). */
      register?: string;
      /** The address to register (a load balancer's, say); default the worker's own. */
      advertise?: string;
      /** Register even though another address serves AgentSession (new runs come here). */
      replace?: boolean;
      cwd?: string;
      model?: string;
      sandbox?: boolean;
      allowEnv?: string[];
      allowWrite?: string[];
      /** `--mcp-config` values: MCP servers whose tools every run of this worker has (journalled as bash's are). */
      mcpConfig?: string[];
      /** Restate's request-signing public keys (`publickeyv1_...`): unsigned requests are refused. */
      identityKeys?: string[];
    }
  | {
      command: 'submit';
      restate: string;
      /** Restate's admin API (`--admin`; default: the ingress's host, port 9070): `--wait` reads the run's records there. */
      admin: string;
      prompt: string;
      wait: boolean;
      sessionId?: string;
      /** Restate starts one run per key: a submit retried with it does not start another. */
      idempotencyKey?: string;
      model?: string;
      maxTurns?: number;
      maxTokens?: number;
      maxRetries?: number;
      appendSystemPrompt?: string;
    }
  | {
      command: 'balancer';
      port: number;
      host: string;
      /** The workers' addresses. */
      backends: string[];
      /** Admin API to register the balancer's address with. */
      register?: string;
      replace?: boolean;
    }
  | { command: 'result' | 'messages'; restate: string; admin: string; id: string }
  | { command: 'view'; restate: string; admin: string; id: string; port?: number };

const COMMANDS = ['worker', 'balancer', 'submit', 'result', 'messages'];

/** Whether this command line is one of ours (`view` only with `--restate`). */
export function isDurableCommand(argv: readonly string[]): boolean {
  const [first] = argv;
  if (first !== undefined && COMMANDS.includes(first)) return true;
  return first === 'view' && argv.some((a) => a === '--restate' || a.startsWith('--restate='));
}

type Spec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

const SPECS: Record<DurableOptions['command'], Spec> = {
  worker: {
    port: { type: 'string' },
    host: { type: 'string' },
    register: { type: 'string' },
    advertise: { type: 'string' },
    replace: { type: 'boolean' },
    cwd: { type: 'string' },
    model: { type: 'string' },
    sandbox: { type: 'boolean' },
    'allow-env': { type: 'string', multiple: true },
    'allow-write': { type: 'string', multiple: true },
    'mcp-config': { type: 'string', multiple: true },
    'identity-key': { type: 'string', multiple: true },
  },
  balancer: {
    port: { type: 'string' },
    host: { type: 'string' },
    backend: { type: 'string', multiple: true },
    register: { type: 'string' },
    replace: { type: 'boolean' },
  },
  submit: {
    print: { type: 'string', short: 'p' },
    restate: { type: 'string' },
    admin: { type: 'string' },
    wait: { type: 'boolean' },
    'idempotency-key': { type: 'string' },
    'session-id': { type: 'string' },
    model: { type: 'string' },
    'max-turns': { type: 'string' },
    'max-tokens': { type: 'string' },
    'max-retries': { type: 'string' },
    'append-system-prompt': { type: 'string' },
  },
  result: { restate: { type: 'string' }, admin: { type: 'string' } },
  messages: { restate: { type: 'string' }, admin: { type: 'string' } },
  view: { restate: { type: 'string' }, admin: { type: 'string' }, port: { type: 'string' } },
};

function url(flag: string, value: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // said below
  }
  throw new UsageError(`${flag} takes an http:// or https:// URL, not "${value}"`);
}

/** A session id: it goes into Restate's URLs as the object's key. */
function sessionIdOf(what: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${what} needs a session id (submit prints it)`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(value)) throw new UsageError(`${what}: "${value}" is not a session id (letters, digits, _ and -)`);
  return value;
}

/** Parses a command line that `isDurableCommand` accepted; throws `UsageError`. */
export function parseDurableArgs(argv: readonly string[]): DurableOptions {
  const command = argv[0] as DurableOptions['command'];
  const spec = SPECS[command];
  let parsed;
  try {
    parsed = parseArgs({ args: argv.slice(1), options: spec, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageErrorOf(error, Object.keys(spec));
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const positionals = parsed.positionals;
  const str = (name: string) => values[name] as string | undefined;
  const restate = url('--restate', str('restate') ?? DEFAULT_INGRESS);
  const admin = str('admin') !== undefined ? url('--admin', str('admin') as string) : adminUrlOf(restate);

  if (command === 'worker' || command === 'submit' || command === 'balancer') {
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" after ${command}`);
  } else if (positionals.length > 1) {
    throw new UsageError(`unexpected argument "${positionals[1]}" after ${command} ID`);
  }

  switch (command) {
    case 'worker': {
      const allowEnv = values['allow-env'] as string[] | undefined;
      for (const name of allowEnv ?? []) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--allow-env takes a variable name, not "${name}"`);
      }
      const options: DurableOptions = { command, port: portOf(str('port')) ?? 9080, host: str('host') ?? '127.0.0.1' };
      if (str('register') !== undefined) options.register = url('--register', str('register') as string);
      if (str('advertise') !== undefined) options.advertise = url('--advertise', str('advertise') as string);
      if (options.advertise && !options.register) throw new UsageError('--advertise goes with --register');
      if (values.replace && !options.register) throw new UsageError('--replace goes with --register');
      if (values.replace) options.replace = true;
      if (str('cwd') !== undefined) options.cwd = str('cwd');
      if (str('model') !== undefined) options.model = resolveModel(str('model') as string); // an alias as -p takes it
      if (values.sandbox) options.sandbox = true;
      if (allowEnv) options.allowEnv = allowEnv;
      const allowWrite = allowWriteOf(values['allow-write'] as string[] | undefined, values.sandbox === true);
      if (allowWrite) options.allowWrite = allowWrite;
      const mcpConfig = values['mcp-config'] as string[] | undefined;
      if (mcpConfig?.some((value) => value.trim() === '')) throw new UsageError('--mcp-config takes a file or JSON text, not an empty value');
      if (mcpConfig) options.mcpConfig = mcpConfig;
      const keys = values['identity-key'] as string[] | undefined;
      for (const key of keys ?? []) {
        if (!/^publickeyv1_\w+$/.test(key)) throw new UsageError(`--identity-key takes a Restate public key (publickeyv1_...), not "${key}"`);
      }
      if (keys) options.identityKeys = keys;
      return options;
    }
    case 'balancer': {
      const backends = ((values.backend as string[] | undefined) ?? []).map((b) => url('--backend', b));
      if (backends.length === 0) throw new UsageError('balancer needs the workers\' addresses: --backend URL, once for each');
      const options: DurableOptions = { command, port: portOf(str('port')) ?? 9080, host: str('host') ?? '127.0.0.1', backends };
      if (str('register') !== undefined) options.register = url('--register', str('register') as string);
      if (values.replace && !options.register) throw new UsageError('--replace goes with --register');
      if (values.replace) options.replace = true;
      return options;
    }
    case 'submit': {
      const prompt = str('print');
      if (prompt === undefined || prompt.trim() === '') throw new UsageError('submit needs -p "PROMPT"');
      const options: DurableOptions = { command, restate, admin, prompt, wait: values.wait === true };
      if (str('session-id') !== undefined) options.sessionId = sessionIdOf('--session-id', str('session-id'));
      const key = str('idempotency-key');
      if (key !== undefined && !/^[\x21-\x7e]{1,256}$/.test(key)) throw new UsageError(`--idempotency-key takes 1 to 256 visible ASCII characters, not "${key}"`);
      if (key !== undefined) options.idempotencyKey = key;
      if (str('model') !== undefined) options.model = resolveModel(str('model') as string); // an alias as -p takes it
      if (str('append-system-prompt') !== undefined) options.appendSystemPrompt = str('append-system-prompt');
      const maxTurns = positiveInt('--max-turns', str('max-turns'));
      const maxTokens = positiveInt('--max-tokens', str('max-tokens'));
      const maxRetries = positiveInt('--max-retries', str('max-retries'), 0);
      if (maxTurns !== undefined) options.maxTurns = maxTurns;
      if (maxTokens !== undefined) options.maxTokens = maxTokens;
      if (maxRetries !== undefined) options.maxRetries = maxRetries;
      return options;
    }
    case 'result':
    case 'messages':
      return { command, restate, admin, id: sessionIdOf(command, positionals[0]) };
    case 'view': {
      const options: DurableOptions = { command, restate, admin, id: sessionIdOf('view --restate', positionals[0]) };
      const port = portOf(str('port'));
      if (port !== undefined) options.port = port;
      return options;
    }
  }
}
