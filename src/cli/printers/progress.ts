/**
 * What every printer of a terminal shows on stderr as a run goes: its progress (tool calls as the tools show them,
 * with the start of their output, retries, a compaction) and a warning when a refused reply had tools started.
 */
import type { RunEvent } from '../../core/events.js';
import { plural } from '../../core/plural.js';
import type { ToolLookup } from '../../core/tool.js';
import { compactedText } from './compactLines.js';
import { formatToolResult, formatToolStart, palette } from './output.js';
import { shown } from './terminal.js';

const { stderr, env } = process;
const colors = palette(stderr, env);

/** Shows a run's progress on stderr: tool calls (as `tools` show them) with the start of their output, retries. */
export function progressPrinter(tools: ToolLookup): (event: RunEvent) => void {
  return (event) => {
    if (event.type === 'tool_start') stderr.write(`${colors.cyan(formatToolStart(event, tools(event.block.name)))}\n`);
    if (event.type === 'tool_result') stderr.write(`${colors.dim(formatToolResult(event))}\n`);
    if (event.type === 'compact_boundary') stderr.write(`${colors.dim(shown(compactedText(event.boundary)))}\n`);
    if (event.type === 'retry' && event.fallbackFrom !== undefined) {
      stderr.write(colors.dim(`${shown(event.fallbackFrom)} is overloaded (${shown(event.error.message)}); switching to ${shown(event.model)}\n`));
    } else if (event.type === 'retry') {
      stderr.write(colors.dim(`model call failed (${shown(event.error.message)}); retry ${event.attempt} in ${event.delayMs} ms\n`));
    }
  };
}

/**
 * Warns on stderr, whatever the output format, when a reply is refused after tools of it had started (only read-only
 * ones can start while a reply streams): names them, says they were stopped and that nothing of the reply is kept.
 */
export function refusalWarner(tools: ToolLookup): (event: RunEvent) => void {
  const started = new Map<string, Extract<RunEvent, { type: 'tool_start' }>>();
  return (event) => {
    if (event.type === 'request') started.clear();
    if (event.type === 'tool_start') started.set(event.block.id, event);
    if (event.type !== 'reply_refused' || event.startedToolIds.length === 0) return;
    const names = event.startedToolIds.map((id) => {
      const start = started.get(id);
      return start ? `${formatToolStart(start, tools(start.block.name))} (${shown(id)})` : shown(id);
    });
    stderr.write(
      colors.red(
        `agentloop: a reply was refused (${shown(event.error.message)}) after ${plural(names.length, 'read-only tool')} of it had started: ${names.join(', ')}; stopped, nothing of the reply is kept\n`,
      ),
    );
  };
}
