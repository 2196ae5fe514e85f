/**
 * What every run of a command starts from, one-shot (../commands/run.ts), REPL (../commands/repl.ts) or stream input (../control/streamInput.ts):
 * the session it records to and its limits from the flags.
 */
import { readFileSync } from 'node:fs';
import { defaultRunConfig } from '../../core/config.js';
import { claudeConfigDir, type MirrorOptions } from '../../transcript/claudeMirror.js';
import { describeHolder, type LockHolder } from '../../transcript/holder.js';
import type { CliOptions } from '../commandLine/args.js';
import { palette } from '../printers/output.js';
import { outputRedactor, shown } from '../printers/terminal.js';
import type { PreparedSession } from './session.js';
import { CLI_MAX_RETRIES, thinkingOf } from '../commandLine/sdkFlags.js';
import { contextWindowOf } from '../commandLine/argValues.js';

const { stderr, env } = process;
const colors = palette(stderr, env);

const loadSessions = () => import('./session.js');

/** The session of this run: a new transcript, or the one --resume / --continue names; `prompt` is recorded at once. */
export async function openSession(options: CliOptions, cwd: string, model: string, prompt: string | null): Promise<PreparedSession> {
  const { prepareSession } = await loadSessions();
  let warned = false;
  const session = await prepareSession(options, {
    env,
    cwd,
    model,
    prompt,
    ...(options.demo ? { label: options.step ? 'demo, stepped' : 'demo' } : options.name !== undefined ? { label: options.name } : {}),
    redactor: outputRedactor(),
    onRecordError: (error) => {
      if (warned) return;
      warned = true;
      stderr.write(colors.red(`agentloop: the transcript stopped being saved: ${shown(error.message)}\n`));
    },
    onMoved: (notice) => stderr.write(colors.red(`agentloop: ${notice}\n`)),
    mirror: mirrorOptions(),
    onWait: (holder) => stderr.write(colors.dim(`agentloop: ${waitingLine(options, holder)}\n`)),
  });
  for (const notice of session.notices) stderr.write(colors.dim(`${shown(notice)}\n`));
  return session;
}

/**
 * The session's copy in Claude Code's place and shape (transcript/claudeMirror.ts), for the Agent SDK's session
 * functions and Claude Code's own lists: its lines say agentloop's version and how it was started (`sdk-ts` under the SDK).
 */
function mirrorOptions(): MirrorOptions {
  return {
    configDir: claudeConfigDir(env),
    version: `agentloop ${packageVersion()}`,
    entrypoint: env.CLAUDE_CODE_ENTRYPOINT || 'cli',
    warn: (line) => stderr.write(colors.dim(`${shown(line)}\n`)),
  };
}

/**
 * The default system prompt without its per-machine part (core/prompts.ts's, but the working directory), for
 * `--exclude-dynamic-system-prompt-sections`: the directory goes into the first user message instead (./ask.ts).
 */
const STATIC_SYSTEM_PROMPT = 'You are a coding agent. Use the tools to look and act; answer briefly when the task is done.';

/** agentloop's version, from its package.json (three folders above src/cli/setup/, dist/cli/setup/ and dist/cli/chunks/). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The line said while --wait-for-session waits. */
function waitingLine(options: CliOptions, holder: LockHolder | undefined): string {
  const which = options.resume !== undefined ? `session ${options.resume}` : 'the session';
  return `${which} is in use by ${describeHolder(holder)}: waiting until it ends (Ctrl-C to give up)`;
}

/**
 * The run's system prompt, fallback model, thinking and limits from the flags (the tools' flags go to ./ask.ts's tools). A
 * resumed run starts at turn `startTurn`: `--max-turns` counts the model calls of this invocation, so the
 * machine's limit is moved on by the turns already done.
 */
export function limitsOf(options: CliOptions, startTurn: number | undefined) {
  const maxTurns = startTurn !== undefined && startTurn > 1 ? (options.maxTurns ?? defaultRunConfig.maxTurns) + startTurn - 1 : options.maxTurns;
  return {
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    ...thinkingOf(options),
    maxRetries: options.maxRetries ?? CLI_MAX_RETRIES,
    ...(options.maxBudgetUsd !== undefined ? { maxBudgetUsd: options.maxBudgetUsd } : {}),
    ...contextWindowOf(options, process.env),
    ...(options.fallbackModel !== undefined ? { fallbackModel: options.fallbackModel } : {}),
    ...(options.systemPrompt !== undefined ? { system: options.systemPrompt } : options.excludeDynamicSystemPromptSections ? { system: STATIC_SYSTEM_PROMPT } : {}),
    ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
  };
}
