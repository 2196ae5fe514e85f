/**
 * The calls the permissions denied, as the outputs say them: listed in json's and stream-json's `permission_denials`
 * (`deniedCalls`), or, where nobody is asked and no output lists them, one line on stderr (`sayDenied`).
 */
import type { GateEvent, RunEvent } from '../../core/events.js';
import type { PermissionDenial } from './output.js';
import { shown } from './terminal.js';

/** The calls the gate denied among `events`, as `permission_denials` lists them. */
export function deniedCalls(): { onEvent(event: RunEvent): void; denials: PermissionDenial[] } {
  const denials: PermissionDenial[] = [];
  return {
    denials,
    onEvent(event) {
      if (event.type === 'permission_denied') denials.push({ tool_name: event.toolName, tool_use_id: event.block.id, tool_input: event.block.input });
    },
  };
}

/**
 * The line for a call the permissions denied where nobody is asked (a text `-p` run, the REPL on piped input; json
 * and stream-json list it in `permission_denials`): what, why, and the rule that would let it run, on stderr, e.g.
 * `agentloop: not run: Bash "touch new.txt": not allowed in permission mode default: ... (to allow: --allowedTools "Bash(touch:*)")`.
 */
export function sayDenied(event: GateEvent): void {
  const { block, reason, toolName } = event;
  const input = block.input as { command?: unknown };
  const what = typeof input.command === 'string' ? `${toolName} ${JSON.stringify(input.command)}` : event.call ?? toolName;
  const allow = event.decidedBy === 'rule' ? '' : ` (to allow: --allowedTools ${JSON.stringify(event.suggestion ?? toolName)})`;
  process.stderr.write(`${shown(`agentloop: not run: ${what}: ${reason}${allow}`)}\n`);
}
