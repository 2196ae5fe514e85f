/**
 * What a run prints: one printer per output format, each behind this one interface: `--output-format text`
 * (./text.ts), `json` (./json.ts), `stream-json` (./streamJsonTurn.ts), and the REPL's terminal (./replTerminal.ts).
 * A printer takes the run's events as they come and its result at the end; the entry points (../commands/run.ts,
 * ../commands/repl.ts, ../control/streamInput.ts) print through one and nothing else. A new format is a file here
 * and its case in ./byFormat.ts.
 */
import type { RunEvent } from '../../core/events.js';
import type { RunResult } from '../../run/runAgent.js';
import type { StructuredOutcome } from './structuredLines.js';

export interface RunPrinter {
  /** Each event of the run, as it comes. */
  onEvent(event: RunEvent): void;
  /** `--json-schema`'s reminder, sent when a turn ended with no structured output (a stream-json line; nothing in text or json). */
  remind?(text: string): void;
  /** The run is over: its answer, its result line; `structured`, the outcome of a turn that asked for structured output. */
  finish(result: RunResult, structured?: StructuredOutcome): void | Promise<void>;
}
