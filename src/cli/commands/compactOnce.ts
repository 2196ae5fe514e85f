/**
 * `-p "/compact [instructions]"` on a session (`--resume`, `--continue`): its history compacted now, no model turn, as
 * Claude Code 2.1.197 answers it (recorded: test/cli/compactOnce.process.test.ts): stream-json the lines of
 * ../control/compactTurn.ts, json their result line, text the result's text (empty: a blank line). A session with no
 * conversation yet has nothing to compact: a result of no turn, said on stderr too.
 */
import type { MessageParam } from '../../core/messages.js';
import { compactTurn, resultLine } from '../control/compactTurn.js';
import type { OutputFormat } from '../commandLine/flags.js';
import { jsonLine, shown } from '../printers/terminal.js';
import type { SessionSetup } from '../setup/runSetup.js';

interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Compacts and prints as `format` says; the exit code (1 when the compaction failed). */
export async function compactOnce(setup: SessionSetup, messages: MessageParam[], instructions: string, format: OutputFormat, io: Io): Promise<number> {
  const lines: Array<Record<string, unknown>> = [];
  const keep = (line: string) => {
    if (format === 'stream-json') io.stdout.write(line);
    lines.push(JSON.parse(line) as Record<string, unknown>);
  };
  if (messages.length === 0) {
    io.stderr.write('agentloop: nothing to compact: the session has no conversation yet\n');
    keep(jsonLine(resultLine(setup.session.id, 0, '', 0)));
  } else {
    const control = { hasHooks: () => false, hookContext: () => { throw new Error('no hooks on the command line'); } };
    await compactTurn({ setup, write: keep, control }, instructions, messages);
  }
  const result = [...lines].reverse().find((l) => l.type === 'result') ?? {};
  const failed = lines.find((l) => l.compact_result === 'failed');
  if (failed && result.is_error === true) io.stderr.write(`agentloop: /compact failed: ${shown(String(failed.compact_error))} (the conversation is as it was)\n`);
  if (format === 'json') io.stdout.write(jsonLine(result));
  else if (format === 'text') io.stdout.write(`${String(result.result ?? '')}\n`);
  return result.is_error === true ? 1 : 0;
}
