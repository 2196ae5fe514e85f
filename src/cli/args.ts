import { parseArgs } from 'node:util';

export type OutputFormat = 'text' | 'json' | 'stream-json';

export interface CliOptions {
  /** `sessions` lists the saved sessions; `view` serves the step-through viewer. */
  command: 'run' | 'help' | 'version' | 'sessions' | 'view';
  /** `-p` prompt; absent: the REPL (or the demo). */
  prompt?: string;
  demo: boolean;
  outputFormat: OutputFormat;
  model?: string;
  maxTurns?: number;
  maxTokens?: number;
  maxRetries?: number;
  cwd?: string;
  /** Run bash commands under bubblewrap. */
  sandbox?: boolean;
  /** Credential variables the commands may see. */
  allowEnv?: string[];
  /** `--resume ID`: go on with that session (a unique prefix of the id is enough). */
  resume?: string;
  /** `--continue`: go on with the newest session of the working directory. */
  continue?: boolean;
  /** `--inspect`: connect the machine to the Stately inspector (the page needs the internet). */
  inspect?: boolean;
  /** `--view`: show the run live in the local step-through viewer. */
  view?: boolean;
  /** Port of the viewer or the inspector bridge (default: any free port). */
  port?: number;
  /** `view [ID]`: the session to open. */
  sessionId?: string;
}

/** Bad command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

function positiveInt(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new UsageError(`${flag} takes a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${value}"`);
  }
  return Number(value);
}

export function parseCliArgs(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        print: { type: 'string', short: 'p' },
        'output-format': { type: 'string' },
        model: { type: 'string' },
        'max-turns': { type: 'string' },
        'max-tokens': { type: 'string' },
        'max-retries': { type: 'string' },
        cwd: { type: 'string' },
        sandbox: { type: 'boolean' },
        'allow-env': { type: 'string', multiple: true },
        demo: { type: 'boolean' },
        resume: { type: 'string' },
        continue: { type: 'boolean', short: 'c' },
        inspect: { type: 'boolean' },
        view: { type: 'boolean' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help', demo: false, outputFormat: 'text' };
  if (values.version) return { command: 'version', demo: false, outputFormat: 'text' };
  const [first, ...rest] = positionals;
  if (first === 'sessions' || first === 'view') return parseSubcommand(first, rest, values);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (a prompt goes after -p)`);

  const format = values['output-format'] ?? 'text';
  if (format !== 'text' && format !== 'json' && format !== 'stream-json') {
    throw new UsageError(`--output-format must be text, json or stream-json, not "${format}"`);
  }
  if (values.print !== undefined && values.print.trim() === '') throw new UsageError('-p needs a non-empty prompt');

  const options: CliOptions = { command: 'run', demo: values.demo ?? false, outputFormat: format };
  if (values.print !== undefined) options.prompt = values.print;
  if (values.model !== undefined) options.model = values.model;
  if (values.cwd !== undefined) options.cwd = values.cwd;
  if (values.sandbox) options.sandbox = true;
  for (const name of values['allow-env'] ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--allow-env takes a variable name, not "${name}"`);
  }
  if (values['allow-env']) options.allowEnv = values['allow-env'];
  const maxTurns = positiveInt('--max-turns', values['max-turns']);
  const maxTokens = positiveInt('--max-tokens', values['max-tokens']);
  const maxRetries = positiveInt('--max-retries', values['max-retries'], 0);
  if (maxTurns !== undefined) options.maxTurns = maxTurns;
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  if (maxRetries !== undefined) options.maxRetries = maxRetries;
  if (values.resume !== undefined) {
    if (values.resume.trim() === '') throw new UsageError('--resume needs a session id (see: agentloop sessions)');
    options.resume = values.resume.trim();
  }
  if (values.continue) options.continue = true;
  if (values.inspect) options.inspect = true;
  if (values.view) options.view = true;
  const port = portOf(values.port);
  if (port !== undefined) options.port = port;
  if (options.resume !== undefined && options.continue) throw new UsageError('--resume and --continue exclude each other');
  if (options.demo && (options.resume !== undefined || options.continue)) {
    throw new UsageError('--demo always starts a new session: it cannot be combined with --resume or --continue');
  }
  if (port !== undefined && !options.view && !options.inspect) throw new UsageError('--port goes with --view, --inspect or view');
  if (options.view && options.inspect && port !== undefined) throw new UsageError('--port is ambiguous with both --view and --inspect');
  const resuming = options.resume !== undefined || options.continue === true;
  if (format !== 'text' && options.prompt === undefined && !options.demo && !resuming) {
    throw new UsageError(`--output-format ${format} needs -p PROMPT (or --demo, --resume, --continue)`);
  }
  return options;
}

function portOf(value: string | undefined): number | undefined {
  const port = positiveInt('--port', value, 0);
  if (port !== undefined && port > 65535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  return port;
}

type ParsedValues = Record<string, string | boolean | string[] | undefined>;

/** `sessions` and `view [ID]`: they take only `--output-format` / `--port`. */
function parseSubcommand(command: 'sessions' | 'view', rest: string[], values: ParsedValues): CliOptions {
  const allowed = command === 'sessions' ? ['output-format'] : ['port'];
  const stray = Object.keys(values).find((key) => !allowed.includes(key));
  if (stray) throw new UsageError(`${command} does not take --${stray}`);
  const maxPositionals = command === 'view' ? 1 : 0;
  if (rest.length > maxPositionals) throw new UsageError(`unexpected argument "${rest[maxPositionals]}" after ${command}`);
  const format = values['output-format'] ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError('sessions --output-format must be text or json');
  const options: CliOptions = { command, demo: false, outputFormat: format };
  const port = portOf(values.port as string | undefined);
  if (port !== undefined) options.port = port;
  if (rest[0] !== undefined) options.sessionId = rest[0];
  return options;
}
