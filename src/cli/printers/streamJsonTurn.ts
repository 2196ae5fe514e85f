/**
 * `--output-format stream-json`, a turn at a time (a one-shot run is one turn; stream-json input has a turn per user
 * message): its own `system`/`init` line first, the lines of its events as Claude Code writes them (./streamJson.ts),
 * an API error's line, and its result line (./json.ts `resultCounter`).
 */
import { randomUUID } from 'node:crypto';
import { toolLookup } from '../../core/tool.js';
import type { PermissionMode } from '../../permissions/modes.js';
import type { SessionSetup } from '../setup/runSetup.js';
import { reminderLine } from './structuredLines.js';
import { apiErrorLine } from './claudeLines.js';
import { resultCounter } from './json.js';
import type { PermissionDenial } from './output.js';
import type { RunPrinter } from './printer.js';
import { refusalWarner } from './progress.js';
import { initFacts, streamJsonPrinter } from './streamJson.js';
import { jsonLine } from './terminal.js';

/** A turn's stream-json printer; `permissionMode`, the gate's as the turn starts (the init line says it). */
export function streamJsonTurnPrinter(
  setup: SessionSetup,
  write: (line: string) => void,
  permissionMode: PermissionMode | undefined,
  hookDenials: readonly PermissionDenial[] = [],
): RunPrinter & { blocked(reason: string): void } {
  const { options, cwd, version, run } = setup;
  const sessionId = setup.session.id;
  const counter = resultCounter(options.maxTokens, hookDenials); // a PreToolUse hook's denials (the gate's come as events)
  const facts = initFacts(options, cwd, { ...run, ...(setup.mcpStates ? { mcpStates: setup.mcpStates } : {}) }, { id: sessionId, tools: setup.tools, agents: setup.agents }, version);
  const print = streamJsonPrinter({ ...facts, ...(permissionMode !== undefined ? { permissionMode } : {}) }, write, options);
  const warn = refusalWarner(toolLookup(setup.tools));
  return {
    onEvent(event) {
      counter.onEvent(event);
      warn(event);
      print(event);
    },
    remind(text) {
      write(jsonLine(reminderLine(text, sessionId)));
    },
    finish(result, structured) {
      const failed = apiErrorLine(result, sessionId);
      if (failed) write(jsonLine(failed));
      write(jsonLine(counter.line(result, structured)));
    },
    /** A turn a UserPromptSubmit hook blocked: no model call, an error result saying why. */
    blocked(reason) {
      const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
      const line = { type: 'result', subtype: 'error_during_execution', is_error: true, duration_ms: 0, duration_api_ms: 0, num_turns: 0, result: '', session_id: sessionId };
      const rest = { total_cost_usd: 0, usage, modelUsage: {}, permission_denials: [], uuid: randomUUID(), stop_reason: null, api_error_status: null };
      const claude = { terminal_reason: 'hook_stopped', fast_mode_state: 'off', exit_reason: null, errors: [`The prompt was blocked by a UserPromptSubmit hook: ${reason}`] };
      write(jsonLine({ ...line, ...rest, ...claude }));
    },
  };
}
