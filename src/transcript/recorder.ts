/**
 * Writes a run to its session transcript as it goes. The recorder only consumes the `RunEvent`s
 * of `runAgent` (pass `recorder.onEvent` as, or inside, `onEvent`): the machine knows nothing of it.
 *
 * A recorder holds its session's lock (lock.ts) from before its first write until `close()`: one
 * writer per session. If the transcript is removed, replaced or cut shorter during the run, the
 * recorder says so once (`onMoved`) and goes on in a new session forked from it: the history so far
 * (the recorder remembers it, memory.ts), then the run's further records. The file at the old path
 * is left as it is (it may be someone's); `--continue` finds the new session, the newest.
 */
import { randomUUID } from 'node:crypto';
import type { RunEvent } from '../core/events.js';
import { draftOf, lineOf, promptDraft, questionKey, resultDraft, resumeDrafts, timestamps, type Draft, type FinishedRun } from './drafts.js';
import { readHeader } from './headers.js';
import { lockSession, type SessionLock } from './lock.js';
import { SessionMemory } from './memory.js';
import { transcriptPath } from './paths.js';
import { TRANSCRIPT_VERSION, type Question, type SessionHeader } from './records.js';
import type { RestoredConversation } from './resume.js';
import { moveOn, type Written } from './lost.js';
import { TranscriptLostError, TranscriptWriter } from './writer.js';
import { ClaudeMirror, type MirrorOptions } from './claudeMirror.js';

export { draftOf, resultDraft, type Draft, type FinishedRun } from './drafts.js';

export interface SessionRecorder {
  /** The session written; a new one when the transcript was lost during the run (`onMoved`). */
  readonly id: string;
  readonly path: string;
  /** Set when a write failed: recording stopped there, the run went on. */
  readonly failure: Error | undefined;
  /**
   * Records a question of the user, before its run starts: from then on a kill loses nothing of
   * it (resume.ts asks it again). Recording the same text again before a message is written does
   * nothing, so the CLI can record it the moment it is known and runAgent again when it starts.
   */
  prompt(question: Question): void;
  /**
   * Records what a resume found and the messages its repair added, and the prompt the resumed
   * run starts with (if any), in one write.
   */
  resumed(conversation: RestoredConversation, prompt?: Question | null): void;
  /**
   * Records a run event: the records of one step of the run go out in one write when the step
   * ends (a microtask later), a `tool_start` at once (its tool is called once `recorded` settles).
   */
  onEvent(event: RunEvent): void;
  /**
   * The write-ahead hook: settles once the `tool_start` record of `toolUseId` (given to `onEvent`) is on disk; the tool
   * is called only then (run/writeAhead.ts). Without it, a record is on disk when `onEvent` returns. This recorder
   * writes a `tool_start` at once, in `onEvent`: its promise is settled already.
   */
  recorded?(toolUseId: string): Promise<void>;
  /** Writes the records of the step that runs now, without waiting for its end. */
  flush(): void;
  /** Records how a run ended (a REPL session has one per question). */
  finish(result: FinishedRun): void;
  /** Writes what is pending, closes the transcript and releases the session. */
  close(): void;
}

export interface RecorderOptions {
  /** Flush each tick's records to the disk with fsync (default true). */
  durable?: boolean;
  /** Called once when a write fails (disk full, a folder gone); recording stops. */
  onError?: (error: Error) => void;
  /** Told in one line when the transcript was removed, replaced or cut and the run went on in a fork of it. */
  onMoved?: (notice: string) => void;
  /** The session's lock, taken already (`waitForSession`); else the recorder takes it or throws `SessionBusyError`. */
  lock?: SessionLock;
  now?: () => Date;
  /** Every record goes through it before it is written (the writer's one choke point): no secret in the transcript. */
  redactor?: import('../core/redact.js').Redactor;
  /** Also write the session in Claude Code's place and shape (./claudeMirror.ts), after each write of the transcript. */
  mirror?: MirrorOptions;
}

/** The session a new one is forked from (`--fork-session`): its id and its history, restored. */
export interface ForkSource {
  id: string;
  conversation: RestoredConversation;
}

/**
 * Starts the transcript of a new session; with `prompt`, the first question is in the same write
 * as the header, so no transcript exists without it. With `fork`, the history of that session is
 * copied into the new transcript in the same write (as a resume of it, which it is).
 */
export function startSession(
  home: string,
  session: { cwd: string; model: string; id?: string; prompt?: Question | null; fork?: ForkSource; label?: string },
  options: RecorderOptions = {},
): SessionRecorder {
  const now = options.now ?? (() => new Date());
  const id = session.id ?? randomUUID();
  const createdAt = now().toISOString();
  const prompt = session.prompt ?? undefined;
  const fork = session.fork;
  const header: SessionHeader = {
    type: 'session',
    version: TRANSCRIPT_VERSION,
    id,
    cwd: session.cwd,
    createdAt,
    model: session.model,
    ...(fork ? { forkedFrom: fork.id } : {}),
    ...(session.label ? { label: session.label } : {}),
  };
  const lock = options.lock ?? lockSession(transcriptPath(home, id));
  try {
    const drafts = [...(fork ? resumeDrafts(fork.conversation, fork.id) : []), ...(prompt !== undefined ? [promptDraft(prompt)] : [])];
    const writer = TranscriptWriter.create(home, header, durability(options), ...drafts.map((draft) => ({ ...draft, at: createdAt }) as never));
    const memory = new SessionMemory();
    if (fork) memory.seed(fork.conversation.messages);
    for (const draft of drafts) if (draft.type !== 'resume' && draft.type !== 'message') memory.note(draft);
    const recorder = createRecorder({ header, writer, lock, memory }, options, prompt);
    if (fork) recorder.mirror?.seed(fork.conversation.messages);
    return recorder;
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Goes on appending to the transcript of an existing session (`--resume`): call `resumed()` first. */
export function reopenSession(id: string, path: string, options: RecorderOptions = {}): SessionRecorder {
  const lock = options.lock ?? lockSession(path);
  try {
    const writer = TranscriptWriter.reopen(path, durability(options));
    const header = readHeader(path) ?? { type: 'session', version: TRANSCRIPT_VERSION, id, cwd: process.cwd(), createdAt: '', model: '' };
    return createRecorder({ header, writer, lock, memory: new SessionMemory() }, options);
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** How often an open transcript is checked between writes (it may be removed while a tool runs for minutes). */
const CHECK_EVERY_MS = 1000;

/** The writer's options: fsync, and the redactor every line goes through. */
const durability = (options: RecorderOptions) => ({ durable: options.durable, redactor: options.redactor });

/**
 * The records a run event leaves in the file at once, in the write of the event itself: a tool
 * starts right after its `tool_start`, and resume.ts must know of it (never run it again).
 */
const WRITTEN_AT_ONCE: ReadonlySet<RunEvent['type']> = new Set(['tool_start']);

/** Whether `event` is written at once: a tool's start, a subagent's tool's too (its tool waits for that record as well). */
const writtenAtOnce = (event: RunEvent): boolean => WRITTEN_AT_ONCE.has(event.type) || (event.type === 'agent_event' && writtenAtOnce(event.event));


function createRecorder(session: Written, options: RecorderOptions, recordedPrompt?: Question): Recorder {
  return new Recorder(session, options, recordedPrompt);
}

/** A session's recorder (see `SessionRecorder`); `onEvent` and `flush` are bound, to be passed as they are. */
class Recorder implements SessionRecorder {
  private failed: Error | undefined;
  private readonly at: () => string;
  /** The prompt recorded last, until a message is written (the run has put it into the history). */
  private unanswered: string | undefined;
  /** Lines not written yet: the records of the step that is running, written in one write when it ends (a microtask), or with the next record written at once. */
  private pending: string[] = [];
  private pendingPrompt = false;
  private scheduled = false;
  private readonly watchdog = setInterval(() => this.check(), CHECK_EVERY_MS);
  readonly mirror: ClaudeMirror | undefined;

  constructor(
    private readonly session: Written,
    private readonly options: RecorderOptions,
    recordedPrompt?: Question,
  ) {
    this.at = timestamps(options.now);
    this.watchdog.unref();
    this.mirror = options.mirror ? new ClaudeMirror(session.header.cwd, options.mirror, options.redactor) : undefined;
    this.unanswered = recordedPrompt === undefined ? undefined : questionKey(recordedPrompt);
  }

  get id(): string {
    return this.session.header.id;
  }

  get path(): string {
    return this.session.writer.path;
  }

  get failure(): Error | undefined {
    return this.failed;
  }

  prompt(question: Question): void {
    if (questionKey(question) !== this.unanswered) this.write(promptDraft(question));
  }

  resumed(conversation: RestoredConversation, prompt?: Question | null): void {
    this.session.memory.seed(conversation.messages);
    this.mirror?.seed(conversation.messages);
    this.write(...resumeDrafts(conversation), ...(prompt !== undefined && prompt !== null ? [promptDraft(prompt)] : []));
  }

  readonly onEvent = (event: RunEvent): void => {
    this.mirror?.onEvent(event);
    const draft = draftOf(event);
    if (!draft || this.failure) return;
    if (writtenAtOnce(event)) return this.write(draft);
    this.add(draft, this.at());
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.flush);
    }
  };

  recorded(): Promise<void> {
    return Promise.resolve(); // tool_start is WRITTEN_AT_ONCE: on disk (or recording failed) when onEvent returned
  }

  readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const lines = this.pending;
    const withPrompt = this.pendingPrompt;
    this.pending = [];
    this.pendingPrompt = false;
    if (!this.failure) this.writeOut(lines, withPrompt);
    this.mirror?.write(this.id); // after the transcript, its source
  };

  finish(result: FinishedRun): void {
    this.mirror?.finish();
    this.write(resultDraft(result));
  }

  close(): void {
    clearInterval(this.watchdog);
    this.flush();
    // A transcript lost after the last write is forked too: its records end up in a session all the same.
    if (!this.failure) this.writeOut([], false);
    this.mirror?.close();
    try {
      this.session.writer.close();
    } catch (error) {
      if (!this.failure) this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.session.lock.release();
    }
  }

  private add(draft: Draft, stamp: string): void {
    this.pending.push(lineOf(draft, stamp));
    this.session.memory.note(draft);
    if (draft.type === 'message') this.unanswered = undefined;
    if (draft.type === 'prompt') {
      this.unanswered = questionKey(draft.content ?? draft.text);
      this.pendingPrompt = true;
    }
  }

  /** Writes the drafts, after what is pending, in one write now. */
  private write(...drafts: Draft[]): void {
    if (this.failure) return;
    const stamp = this.at();
    for (const draft of drafts) this.add(draft, stamp);
    this.flush();
  }

  /** Writes `lines` (`withPrompt`: they hold the open question); a transcript lost meanwhile is forked first (`moveOn`). */
  private writeOut(lines: string[], withPrompt: boolean): void {
    try {
      this.session.writer.writeLines(lines);
    } catch (error) {
      if (!(error instanceof TranscriptLostError)) return this.fail(error);
      try {
        moveOn(this.session, error, this.options, this.at(), !withPrompt).writeLines(lines);
      } catch (again) {
        this.fail(again);
      }
    }
  }

  /** Between writes (a long tool): a transcript lost meanwhile is forked now, before a crash could lose it. */
  private check(): void {
    if (this.failed) return;
    try {
      this.session.writer.check();
    } catch (error) {
      if (error instanceof TranscriptLostError) this.writeOut([], this.pendingPrompt);
      else this.fail(error);
    }
  }

  private fail(error: unknown): void {
    this.failed = error instanceof Error ? error : new Error(String(error));
    this.options.onError?.(this.failed);
  }
}
