/**
 * A transcript lost during its run (removed, replaced, or cut shorter than what was written): the
 * run goes on in a new session forked from it (recorder.ts), which starts with the history so far.
 */
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import type { Redactor } from '../core/redact.js';
import { resumeDrafts } from './drafts.js';
import { lockSession, type SessionLock } from './lock.js';
import type { SessionMemory } from './memory.js';
import { transcriptPath } from './paths.js';
import type { SessionHeader } from './records.js';
import { TranscriptWriter, type TranscriptLostError } from './writer.js';

/** A recorder's session: what it writes to, under which lock, and what it remembers. */
export interface Written {
  header: SessionHeader;
  writer: TranscriptWriter;
  lock: SessionLock;
  memory: SessionMemory;
}

/**
 * The transcript was lost (`lost`): starts a new session forked from it, with the history so far
 * and the records a resume needs (the open question unless the lines about to be written hold it),
 * releases the old session and tells `onMoved`. Returns the new writer; `session` now is the new one.
 */
export function moveOn(
  session: Written,
  lost: TranscriptLostError,
  options: { durable?: boolean; onMoved?: (notice: string) => void; redactor?: Redactor },
  stamp: string,
  withPrompt: boolean,
): TranscriptWriter {
  const old = session.header;
  const home = dirname(dirname(session.writer.path));
  const header: SessionHeader = { ...old, id: randomUUID(), createdAt: stamp, forkedFrom: old.id };
  const path = transcriptPath(home, header.id);
  const lock = lockSession(path);
  const drafts = [...resumeDrafts(session.memory.conversation(), old.id), ...session.memory.openDrafts(withPrompt)];
  let writer: TranscriptWriter;
  try {
    writer = TranscriptWriter.create(home, header, { durable: options.durable, redactor: options.redactor }, ...drafts.map((draft) => ({ ...draft, at: stamp }) as never));
  } catch (error) {
    lock.release();
    throw error;
  }
  try {
    session.writer.close();
  } finally {
    session.lock.release();
  }
  Object.assign(session, { header, writer, lock });
  options.onMoved?.(`the transcript of session ${old.id} was ${lost.loss} during the run (${lost.path}); the run goes on in session ${header.id} (${path}), forked from it`);
  return writer;
}
