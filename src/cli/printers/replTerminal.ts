/**
 * The REPL's terminal (../commands/repl.ts), a printer as every output format's is (./printer.ts).
 */
import type { RunEvent } from '../../core/events.js';
import type { ToolLookup } from '../../core/tool.js';
import { textOf } from '../../history/messages.js';
import type { RunResult } from '../../run/runAgent.js';
import { estimateTokens } from '../../history/tokens.js';
import { thresholdOf } from '../../machine/compaction.js';
import type { AgentOutput } from '../../machine/context.js';
import { sayDenied } from './denials.js';
import { describeError, palette } from './output.js';
import type { RunPrinter } from './printer.js';
import { progressPrinter, refusalWarner } from './progress.js';
import type { Spinner } from './spinner.js';
import { shown } from './terminal.js';
import { usageSummary } from './usage.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

/**
 * The REPL's printer: as a run goes, the model's text (of every turn) on stdout, tool calls, retries and the thinking
 * line on stderr; when it is over, why it did not complete and its usage, with how much of the context is left.
 * `sayDenials`: a call the permissions denied is said (nobody was asked: stdin is no terminal).
 */
export function replPrinter(spinner: Spinner, sayDenials: boolean, tools: ToolLookup): RunPrinter {
  const printProgress = progressPrinter(tools);
  const warn = refusalWarner(tools);
  let open = false; // a line of streamed text is open
  let turnText = false; // this turn's text was streamed
  const endLine = () => {
    if (open) stdout.write('\n');
    open = false;
  };
  const onEvent = (event: RunEvent) => {
    warn(event);
    if (event.type === 'request') {
      endLine();
      spinner.start();
      turnText = false;
      return;
    }
    if (event.type === 'transition' || event.type === 'decision' || event.type === 'stream_event') return;
    spinner.stop();
    if (event.type === 'text') {
      stdout.write(shown(event.delta));
      open = event.delta.length > 0 && !event.delta.endsWith('\n');
      turnText = true;
    } else if (event.type === 'message' && event.origin === 'model') {
      // A model that does not stream its text (a scripted one) shows each turn's text whole.
      const text = turnText ? '' : textOf(event.message.content);
      endLine();
      if (text) stdout.write(`${shown(text)}\n`);
      turnText = true;
    } else if (event.type !== 'message') {
      endLine();
      if (event.type === 'permission_denied' && sayDenials) sayDenied(event);
      printProgress(event);
    }
  };
  const finish = async (result: RunResult) => {
    spinner.stop();
    endLine();
    if (result.context.exitReason !== 'completed') stderr.write(`${colors.red(shown(describeError(result)))}\n`);
    const left = contextLeftLine(result.context); // as Claude Code shows it, near the threshold
    stderr.write(`${colors.dim(shown([usageSummary(result), left].filter(Boolean).join(' · ')))}\n`);
  };
  return { onEvent, finish };
}

/**
 * Claude Code's "Context left until auto-compact: N%", once the context in use comes near the threshold (within 20,000
 * tokens of it, or a fifth of it for a small window); undefined before that, or when no threshold is known.
 */
function contextLeftLine(context: Pick<AgentOutput, 'config' | 'model' | 'compaction' | 'messages'>): string | undefined {
  const threshold = thresholdOf(context);
  if (threshold === undefined) return undefined;
  const tokens = estimateTokens(context.compaction.basis, context.messages, { system: context.config.system, tools: context.config.tools });
  if (tokens < threshold - Math.min(20_000, threshold / 5)) return undefined;
  return `Context left until auto-compact: ${Math.max(0, Math.round(((threshold - tokens) / threshold) * 100))}%`;
}
