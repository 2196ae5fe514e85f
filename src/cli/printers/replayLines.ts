/**
 * `--replay-user-messages`: each user message read from stream-json input is written back as Claude Code 2.1.197
 * writes it (recorded: test/cli/printers/claudeReplay.json): when its turn starts, right after the turn's `system`/`init`
 * line, as `{type: "user", message, session_id, parent_tool_use_id: null, uuid, timestamp, isReplay: true}`, the
 * message as it was given (a text or blocks), the uuid the host gave the line, else a new one. A message read while a
 * turn runs waits for its own turn, as Claude Code's queue holds it.
 */
import { randomUUID } from 'node:crypto';
import type { Question } from '../../transcript/records.js';
import { jsonLine } from './terminal.js';

/** The stream's writer, and the hook that takes each message read (none without the flag). */
export function replayingWriter(out: NodeJS.WritableStream, sessionId: string, enabled: boolean | undefined) {
  const waiting: { question: Question; uuid: string | undefined }[] = [];
  const write = (line: string) => {
    out.write(line);
    if (!line.startsWith('{"type":"system","subtype":"init"')) return;
    const next = waiting.shift();
    if (next) out.write(jsonLine({ type: 'user', message: { role: 'user', content: next.question }, session_id: sessionId, parent_tool_use_id: null, uuid: next.uuid ?? randomUUID(), timestamp: new Date().toISOString(), isReplay: true }));
  };
  const replay = enabled ? (question: Question, uuid?: string) => void waiting.push({ question, uuid }) : undefined;
  return { write, replay };
}
