/**
 * `--output-format json`: one result line when the run is over, as Claude Code writes it (./output.ts `toJsonResult`),
 * with what the run counted as it went (./streamJson.ts `runMeter`: the times, the usage per model) and the calls the
 * permissions denied. Its count also makes stream-json's result line (./streamJsonTurn.ts).
 */
import type { RunEvent } from '../../core/events.js';
import { toolLookup } from '../../core/tool.js';
import type { RunResult } from '../../run/runAgent.js';
import type { SessionSetup } from '../setup/runSetup.js';
import { deniedCalls } from './denials.js';
import { structuredResult, type StructuredOutcome } from './structuredLines.js';
import { toJsonResult, type PermissionDenial } from './output.js';
import type { RunPrinter } from './printer.js';
import { refusalWarner } from './progress.js';
import { runMeter } from './streamJson.js';
import { jsonLine } from './terminal.js';

/**
 * What a result line counts as the run goes, and the line at its end; `hookDenials`, the calls a host's PreToolUse
 * hook denies (the list grows during the run: those added from now on are this run's).
 */
export function resultCounter(maxTokens: number | undefined, hookDenials: readonly PermissionDenial[] = []) {
  const meter = runMeter(undefined, maxTokens);
  const denied = deniedCalls();
  const before = hookDenials.length;
  return {
    onEvent(event: RunEvent): void {
      meter.onEvent(event);
      denied.onEvent(event);
    },
    line(result: RunResult, structured: StructuredOutcome) {
      const permissionDenials = [...hookDenials.slice(before), ...denied.denials];
      return structuredResult(toJsonResult(result, { ...meter.facts(), permissionDenials }), structured);
    },
  };
}

/** The json printer: nothing while the run goes (but a refused reply's warning on stderr), the result line at its end. */
export function jsonPrinter(setup: SessionSetup, write: (line: string) => void): RunPrinter {
  const counter = resultCounter(setup.options.maxTokens);
  const warn = refusalWarner(toolLookup(setup.tools));
  return {
    onEvent(event) {
      counter.onEvent(event);
      warn(event);
    },
    finish(result, structured) {
      write(jsonLine(counter.line(result, structured)));
    },
  };
}
