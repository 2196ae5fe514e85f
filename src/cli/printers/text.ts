/**
 * `--output-format text` (the default): the answer on stdout when the run is over; on stderr, the progress with
 * `--verbose` (and in the demo, which is there to show the loop), a call the permissions denied (nobody was asked
 * and no output lists it), a refused reply's warning, and why the run did not complete.
 */
import { defaultRunConfig } from '../../core/config.js';
import { toolLookup } from '../../core/tool.js';
import type { RunResult } from '../../run/runAgent.js';
import type { CliOptions } from '../commandLine/args.js';
import type { SessionSetup } from '../setup/runSetup.js';
import { sayDenied } from './denials.js';
import { structuredFailure } from './structuredLines.js';
import { apiErrorOf } from './claudeLines.js';
import { describeError, palette } from './output.js';
import type { RunPrinter } from './printer.js';
import { progressPrinter, refusalWarner } from './progress.js';
import { shown } from './terminal.js';
import { usageSummary } from './usage.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

/** The text printer of a run of `setup`. */
export function textPrinter(setup: SessionSetup): RunPrinter {
  const { options } = setup;
  const verbose = options.verbose === true || options.demo;
  const progress = verbose ? progressPrinter(toolLookup(setup.tools)) : undefined;
  const warn = refusalWarner(toolLookup(setup.tools));
  return {
    onEvent(event) {
      warn(event);
      progress?.(event);
      // Where nobody is asked and no output lists it, a denied call is said on stderr.
      if (event.type === 'permission_denied') sayDenied(event);
    },
    finish: (result, structured) => printText(result, options, structuredFailure(structured), verbose),
  };
}

/**
 * A text run's output: the answer as a terminal may show it, also into a pipe (--output-format json has it exact), an
 * API error in its place as in Claude Code's (`API Error: 400 ...`); why the run did not complete on stderr. A run
 * --max-turns stopped prints what Claude Code 2.1.197 prints, `Error: Reached max turns (N)` on stdout with no newline
 * and nothing on stderr (exit 1); --verbose, whose progress is on stderr, also says there how it stopped.
 */
async function printText(result: RunResult, options: CliOptions, failed: string | undefined, verbose: boolean): Promise<void> {
  const stopped = result.context.exitReason !== 'completed';
  const maxTurns = result.context.exitReason === 'max_turns' && failed === undefined;
  const answer = maxTurns ? undefined : (apiErrorOf(result)?.text ?? result.text);
  if (maxTurns) stdout.write(`Error: Reached max turns (${options.maxTurns ?? defaultRunConfig.maxTurns})`);
  if (answer) stdout.write(`${shown(answer)}\n`);
  if (stopped && (!maxTurns || verbose)) stderr.write(`${colors.red(shown(failed ?? describeError(result)))}\n`);
  if (verbose) stderr.write(`${colors.dim(shown(usageSummary(result)))}\n`);
}
