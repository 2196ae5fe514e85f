/** `agentloop sessions`: the saved sessions, newest first (`--output-format json`: their summaries as JSON). */
import { agentloopHome, listSessions, type SessionSummary } from '../../transcript/store.js';
import type { CliOptions } from '../commandLine/args.js';
import { jsonLine, shown } from '../printers/terminal.js';

function localTime(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The `agentloop sessions` table: short ids (a unique prefix is enough for `--resume`). What a transcript holds (ids,
 * working directories, prompts) is shown as a terminal may show it (../printers/terminal.ts).
 */
export function formatSessions(sessions: readonly SessionSummary[]): string {
  if (sessions.length === 0) return 'No sessions yet.';
  const rows = sessions.map((s) =>
    [
      s.id.slice(0, 8),
      localTime(s.updatedAt),
      String(s.turns),
      s.exitReason ?? '-',
      s.cwd,
      `${s.label ? `[${s.label}] ` : ''}${oneLine(s.firstPrompt, 60) || '-'}`,
    ].map(shown),
  );
  // The label (`demo`, `mistake NAME`) tells apart runs of the same prompt.
  const head = ['ID', 'UPDATED', 'TURNS', 'EXIT', 'CWD', 'FIRST PROMPT'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

export function sessionsCommand(
  options: CliOptions,
  env: NodeJS.ProcessEnv,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): number {
  const sessions = listSessions(agentloopHome(env));
  if (options.outputFormat === 'json') {
    out.write(jsonLine(sessions));
    return 0;
  }
  out.write(`${formatSessions(sessions)}\n`);
  for (const s of sessions) for (const problem of s.problems) err.write(`${shown(`${s.path}: ${problem}`)}\n`);
  return 0;
}
