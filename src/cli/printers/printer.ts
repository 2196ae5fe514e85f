/**
 * What a run prints: one printer per output format, each behind this one interface: `--output-format text`
 * (./text.ts), `json` (./json.ts), `stream-json` (./streamJsonTurn.ts), and the REPL's terminal (./replTerminal.ts).
 * A printer takes the run's events as they come and its result at the end; the entry points (../commands/run.ts,
 * ../commands/repl.ts, ../control/streamInput.ts) print through one and nothing else. A new format is a file here
 * and its case in `printerOf`.
 */
import type { RunEvent } from '../../core/events.js';
import type { RunResult } from '../../run/runAgent.js';
import { isGateRef } from '../../run/permissionHooks.js';
import type { PermissionMode } from '../../permissions/modes.js';
import type { SessionSetup } from '../setup/runSetup.js';
import type { StructuredOutcome } from '../setup/structuredOutput.js';
import { jsonPrinter } from './json.js';
import { streamJsonTurnPrinter } from './streamJsonTurn.js';
import { textPrinter } from './text.js';

export interface RunPrinter {
  /** Each event of the run, as it comes. */
  onEvent(event: RunEvent): void;
  /** `--json-schema`'s reminder, sent when a turn ended with no structured output (a stream-json line; nothing in text or json). */
  remind?(text: string): void;
  /** The run is over: its answer, its result line; `structured`, the outcome of a turn that asked for structured output. */
  finish(result: RunResult, structured?: StructuredOutcome): void | Promise<void>;
}

/** The printer of a one-shot run's `--output-format`, writing its lines with `write` (stdout). */
export function printerOf(setup: SessionSetup, write: (line: string) => void): RunPrinter {
  const format = setup.options.outputFormat;
  if (format === 'stream-json') return streamJsonTurnPrinter(setup, write, modeOf(setup.run.permissions));
  if (format === 'json') return jsonPrinter(setup, write);
  return textPrinter(setup);
}

/** The permission mode a run starts in, for the init line: the gate's (or the one a reference holds). */
function modeOf(permissions: SessionSetup['run']['permissions']): PermissionMode | undefined {
  if (permissions === undefined) return undefined;
  return isGateRef(permissions) ? permissions.current.mode : permissions.mode;
}
