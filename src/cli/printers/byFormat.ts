/** The printer of each `--output-format` (./printer.ts): a new format is its file and its case here. */
import type { PermissionMode } from '../../permissions/modes.js';
import { isGateRef } from '../../run/permissionHooks.js';
import type { SessionSetup } from '../setup/runSetup.js';
import { jsonPrinter } from './json.js';
import type { RunPrinter } from './printer.js';
import { streamJsonTurnPrinter } from './streamJsonTurn.js';
import { textPrinter } from './text.js';

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
