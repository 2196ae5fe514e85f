/**
 * The session of a run, as the CLI opens it: a new transcript, or the one `--resume`, `--continue` or `--session-id`
 * names (locked, read and reopened; `--fork-session` copies it), or none (`--no-session-persistence`).
 */
import { randomUUID } from 'node:crypto';
import type { MessageParam } from '../../core/messages.js';
import { reopenSession, startSession, type ForkSource, type RecorderOptions, type SessionRecorder } from '../../transcript/recorder.js';
import { UnsafeSessionFileError } from '../../transcript/sessionFile.js';
import { describeHolder, SessionBusyError, type LockHolder } from '../../transcript/lock.js';
import { lockAndRead, SessionNotResumableError, type LockedSession } from '../../transcript/open.js';
import type { Question } from '../../transcript/records.js';
import type { CutAgent } from '../../transcript/cutAgents.js';
import {
  agentloopHome,
  findSession,
  newestSessionFor,
  SessionExistsError,
  SessionNotFoundError,
  sessionFilesDir,
} from '../../transcript/store.js';
import type { CliOptions } from '../commandLine/args.js';
import type { Redactor } from '../../core/redact.js';
import type { MirrorOptions } from '../../transcript/claudeMirror.js';

/** A session that cannot be resumed: the message says why (exit code 2). */
export class SessionError extends Error {
  override readonly name = 'SessionError';
}

export interface PreparedSession {
  id: string;
  /** Absent when the transcript could not be created (the run goes on, unrecorded). */
  recorder: SessionRecorder | undefined;
  /** The conversation so far (empty for a new session). */
  messages: MessageParam[];
  /** Where the turn count goes on from, when resuming. */
  turnCount: number | undefined;
  /** The history ends with a user message: the model can be asked without a new prompt. */
  awaitsModel: boolean;
  /** Subagents the resumed session's last run cut off: its first run takes them up (run/childResume.ts). */
  cutAgents?: CutAgent[];
  resumed: boolean;
  /** Things to tell the user on stderr (unreadable lines, repairs, recording off). */
  notices: string[];
  /** The session's folder, where the bash tool keeps the full output of long commands (absent: not recorded). */
  outputDir: string | undefined;
}

export interface PrepareOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  model: string;
  /** Called if a transcript write fails later on. */
  onRecordError: (error: Error) => void;
  /** The question the run starts with: recorded with the header or the resume, in the same write. */
  prompt?: Question | null;
  /** A new session's label (`demo`): what tells it apart in `sessions`. */
  label?: string;
  /** What the transcript must never hold. */
  redactor?: Redactor;
  /** Told in one line when the transcript was lost during the run and the run went on in a fork of it. */
  onMoved?: (notice: string) => void;
  /** The session's copy in Claude Code's place and shape (transcript/claudeMirror.ts); none without it. */
  mirror?: MirrorOptions;
  /** With --wait-for-session: told who holds the session, when the wait begins. */
  onWait?: (holder: LockHolder | undefined) => void;
}

/**
 * A new session (with the id `--session-id` gives), or the one `--resume ID` / `--continue` names,
 * locked (refused while another run writes it, or waited for with `--wait-for-session`), repaired
 * and reopened; with `--fork-session`, its history goes on in a new session (the old transcript is
 * only read, under its lock, so that its history is settled).
 */
export async function prepareSession(options: CliOptions, prepare: PrepareOptions): Promise<PreparedSession> {
  const home = agentloopHome(prepare.env);
  if (options.noSessionPersistence) return unsaved(options.sessionId ?? randomUUID()); // --no-session-persistence: no transcript
  if (options.resume === undefined && !options.continue) return newSession(home, options.sessionId ?? randomUUID(), prepare);

  const path = sessionToResume(home, options, prepare.cwd);
  // --continue where no session of this directory is: a new one, as Claude Code starts (with a question to ask).
  if (path === undefined) {
    if (prepare.prompt == null && options.print && options.inputFormat !== 'stream-json') throw new SessionError(`no session to continue in ${prepare.cwd}: give a prompt to start one`);
    return newSession(home, options.sessionId ?? randomUUID(), prepare);
  }
  const { lock, transcript, conversation } = await sessionLocked(path, options, prepare);
  const notices = transcript.problems.map((p) => `${path}: ${p}`);
  const { id, cwd } = transcript.header;
  if (cwd !== prepare.cwd) notices.push(`session ${id} was recorded in ${cwd}; its tools now run in ${prepare.cwd}`);
  notices.push(...conversation.repaired.map((r) => `resuming ${id}: ${r}`));
  const restored = { messages: conversation.messages, turnCount: conversation.turnCount, awaitsModel: conversation.awaitsModel, resumed: true, cutAgents: conversation.cutAgents };
  if (options.forkSession) {
    lock.release();
    const fork = newSession(home, options.sessionId ?? randomUUID(), prepare, { id, conversation });
    return { ...fork, ...restored, notices: [...notices, ...fork.notices] };
  }
  const recorder = reopened(id, path, { ...recorderOptions(prepare), lock });
  recorder.resumed(conversation, prepare.prompt ?? null);
  return { id, recorder, ...restored, notices, outputDir: sessionFilesDir(path) };
}

/** The session of `path`, locked for this run, read and restored; why not, as a `SessionError`. */
async function sessionLocked(path: string, options: CliOptions, prepare: PrepareOptions): Promise<LockedSession> {
  try {
    return await lockAndRead(path, { waitForSession: options.waitForSession === true, ...(prepare.onWait ? { onWait: prepare.onWait } : {}) });
  } catch (error) {
    if (error instanceof SessionNotResumableError || error instanceof UnsafeSessionFileError) throw new SessionError(error.message);
    throw busyError(error, 'add --wait-for-session to wait until it ends');
  }
}

/** The session's transcript reopened to go on with it; a path that is not safe to write, as a `SessionError`. */
function reopened(id: string, path: string, options: RecorderOptions): SessionRecorder {
  try {
    return reopenSession(id, path, options);
  } catch (error) {
    throw error instanceof UnsafeSessionFileError ? new SessionError(error.message) : error;
  }
}

/** A `SessionBusyError` as the one line the CLI prints (`hint` says what to do); anything else as it is. */
function busyError(error: unknown, hint: string): unknown {
  if (!(error instanceof SessionBusyError)) return error;
  return new SessionError(`${error.message.replace(/ is in use by .*$/, '')} is in use by ${describeHolder(error.holder)}: ${hint}`);
}

function recorderOptions(prepare: PrepareOptions) {
  return {
    onError: prepare.onRecordError,
    ...(prepare.redactor ? { redactor: prepare.redactor } : {}),
    ...(prepare.onMoved ? { onMoved: prepare.onMoved } : {}),
    ...(prepare.mirror ? { mirror: prepare.mirror } : {}),
  };
}

/** The transcript `--resume ID` names, or the newest of the working directory for `--continue` (undefined: none). */
function sessionToResume(home: string, options: CliOptions, cwd: string): string | undefined {
  if (options.resume === undefined) return newestSessionFor(home, cwd)?.path;
  try {
    return findSession(home, options.resume);
  } catch (error) {
    if (error instanceof SessionNotFoundError) throw new SessionError(error.message);
    throw error;
  }
}

/**
 * Starts the transcript of a new session (a fork of `fork`, if given). An id that is taken, or
 * written by a run now, is an error; a transcript that cannot be written (a read-only home) leaves
 * the run unrecorded.
 */
/** A session with no transcript (`notices`: why, when it was meant to be saved). */
const unsaved = (id: string, notices: string[] = []): PreparedSession => ({ id, recorder: undefined, messages: [], turnCount: undefined, awaitsModel: false, resumed: false, notices, outputDir: undefined });

function newSession(home: string, id: string, prepare: PrepareOptions, fork?: ForkSource): PreparedSession {
  const empty = { messages: [], turnCount: undefined, awaitsModel: false, resumed: false };
  try {
    const recorder = startSession(
      home,
      { id, cwd: prepare.cwd, model: prepare.model, prompt: prepare.prompt ?? null, ...(fork ? { fork } : {}), ...(prepare.label ? { label: prepare.label } : {}) },
      recorderOptions(prepare),
    );
    return { id, recorder, ...empty, notices: [], outputDir: sessionFilesDir(recorder.path) };
  } catch (error) {
    if (error instanceof SessionExistsError) throw new SessionError(`${error.message}: --session-id needs an id not in use`);
    if (error instanceof SessionBusyError) throw busyError(error, '--session-id needs an id not in use');
    return unsaved(id, [`this session is not saved (${error instanceof Error ? error.message : String(error)})`]);
  }
}
