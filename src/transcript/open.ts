/**
 * Opening an existing session to go on with it: its lock first (refused with `SessionBusyError`,
 * or waited for), then its transcript read and its conversation restored, then the recorder, in
 * that order, so that what a run goes on from is what the last writer left, and no two runs write
 * one session (lock.ts).
 */
import { lockSession, waitForSession, type LockHolder, type SessionLock } from './lock.js';
import type { Question } from './records.js';
import { reopenSession, type RecorderOptions, type SessionRecorder } from './recorder.js';
import { restoreConversation, type RestoredConversation } from './resume.js';
import { readTranscript, type Transcript } from './store.js';
import { sessionIdOfPath } from './paths.js';

/** A transcript that is no session, or whose history cannot be repaired: the message says why. */
export class SessionNotResumableError extends Error {
  override readonly name = 'SessionNotResumableError';
}

export interface LockOptions {
  /** Wait while another run holds the session, instead of throwing `SessionBusyError`. */
  waitForSession?: boolean;
  /** Told who holds the session, once, when the wait begins. */
  onWait?: (holder: LockHolder | undefined) => void;
  /** Stops a wait. */
  signal?: AbortSignal;
}

/** A session locked for this run, read and restored. */
export interface LockedSession {
  lock: SessionLock;
  transcript: Transcript & { header: NonNullable<Transcript['header']> };
  conversation: RestoredConversation;
}

/** Locks the session whose transcript is `path` (or waits for it), then reads and restores it. The caller owns the lock. */
export async function lockAndRead(path: string, options: LockOptions = {}): Promise<LockedSession> {
  const lock = options.waitForSession
    ? await waitForSession(path, { ...(options.signal ? { signal: options.signal } : {}), ...(options.onWait ? { onWait: options.onWait } : {}) })
    : lockSession(path);
  try {
    const transcript = readTranscript(path);
    if (!transcript.header) throw new SessionNotResumableError(`${path} is not a session transcript`);
    // The session is the one its file names: the store finds it by that, whatever id its header says.
    const header = { ...transcript.header, id: sessionIdOfPath(path) };
    const conversation = restoreConversation(transcript.records);
    if (conversation.problems.length > 0) {
      throw new SessionNotResumableError(`session ${header.id} cannot be resumed: ${conversation.problems.join('; ')}`);
    }
    return { lock, transcript: { ...transcript, header }, conversation };
  } catch (error) {
    lock.release();
    throw error;
  }
}

export interface ResumedSession extends LockedSession {
  id: string;
  /** Writes the session from now on; it holds the lock until `close()`. */
  recorder: SessionRecorder;
}

/**
 * Goes on with the session whose transcript is `path` (`findSession` or `newestSessionFor` give
 * it): locked, read, restored, and reopened with the `resume` record (and `prompt`, if given)
 * written. Pass `conversation.messages` and `turnCount` to `runAgent` with `session: recorder`.
 */
export async function resumeSession(path: string, options: LockOptions & RecorderOptions & { prompt?: Question | null } = {}): Promise<ResumedSession> {
  const locked = await lockAndRead(path, options);
  const { header } = locked.transcript;
  const recorder = reopenSession(header.id, path, { ...options, lock: locked.lock });
  recorder.resumed(locked.conversation, options.prompt ?? null);
  return { ...locked, id: header.id, recorder };
}
