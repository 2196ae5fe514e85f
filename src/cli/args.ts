import { parseArgs } from 'node:util';

export type OutputFormat = 'text' | 'json' | 'stream-json';

export interface CliOptions {
  command: 'run' | 'help' | 'version';
  /** `-p` prompt; absent: the REPL (or the demo). */
  prompt?: string;
  demo: boolean;
  outputFormat: OutputFormat;
  model?: string;
  maxTurns?: number;
  maxTokens?: number;
  maxRetries?: number;
  cwd?: string;
}

/** Bad command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage: agentloop [options]            start a REPL (the conversation is kept across questions)
       agentloop -p "PROMPT" [options]  run once and print the result
       agentloop --demo [options]       offline demo with a scripted model and the real bash tool

Options:
  -p, --print PROMPT          run PROMPT once and exit
      --output-format FORMAT  text (default), json or stream-json
      --model ID              model id (overrides MODEL_ID)
      --max-turns N           stop after N model calls (default 50)
      --max-tokens N          max_tokens of each request (default 8000)
      --max-retries N         retries of a failed model call (default 4)
      --cwd DIR               working directory of the tools (default: the current one)
      --demo                  play the two-turn example with a scripted model, no API key needed
  -h, --help                  show this help
  -v, --version               print the version

Configuration (environment or .env in the working directory):
  ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, MODEL_ID, NO_COLOR

Exit codes: 0 success, 1 the run failed, 2 bad usage or configuration, 130/143 interrupted.`;

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
        demo: { type: 'boolean' },
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
  const maxTurns = positiveInt('--max-turns', values['max-turns']);
  const maxTokens = positiveInt('--max-tokens', values['max-tokens']);
  const maxRetries = positiveInt('--max-retries', values['max-retries'], 0);
  if (maxTurns !== undefined) options.maxTurns = maxTurns;
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  if (maxRetries !== undefined) options.maxRetries = maxRetries;
  if (format !== 'text' && options.prompt === undefined && !options.demo) {
    throw new UsageError(`--output-format ${format} needs -p PROMPT (or --demo)`);
  }
  return options;
}
